"""The web page in a real browser: headless Chromium driven by Selenium.

Needs the distribution's ``chromium`` and ``chromedriver`` (Debian: ``apt-get install chromium
chromium-driver``). Without them the tests are skipped, unless ``PRESIDENT_BROWSER_TESTS=require``
(as ``.ci/run`` sets it), which makes a missing browser a failure. With
``PRESIDENT_SCREENSHOTS=docs/img`` the tests write the screenshots of ``docs/web.md`` there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from president_cli.main import main as cli_main  # noqa: E402
from president_env.core.records import read_records  # noqa: E402
from president_web import create_app  # noqa: E402
from president_web.limits import Limits  # noqa: E402
from president_web.watch import RecordSet  # noqa: E402

REQUIRED = os.environ.get("PRESIDENT_BROWSER_TESTS", "") == "require"


def _browser() -> tuple[str, str] | None:
    binary = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = shutil.which("chromedriver") or next(
        (p for p in ("/usr/lib/chromium/chromedriver", "/usr/bin/chromedriver") if Path(p).exists()), None)
    return (binary, driver) if binary and driver else None


BROWSER = _browser()
if BROWSER is None:
    if REQUIRED:
        raise RuntimeError("PRESIDENT_BROWSER_TESTS=require, but chromium and chromedriver are not installed "
                           "(Debian: apt-get install chromium chromium-driver)")
    pytest.skip("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)",
                allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def records_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("web") / "sim.jsonl"
    assert cli_main(["simulate", "--preset", "president", "--games", "2", "--seed", "3", "--hands", "2",
                     "--records", str(path), "--random-ranks", "--no-progress"]) == 0
    return path


@pytest.fixture(scope="module")
def server(records_file) -> Iterator[str]:
    yield from _serve(create_app(RecordSet.parse(records_file.name, records_file.read_text())))


@pytest.fixture(scope="module")
def slow_server() -> Iterator[str]:
    """A server whose agents make one move per request: the page sees ``waiting`` views and must ask again."""
    yield from _serve(create_app(limits=Limits(agent_seconds=1e-6)))


def _serve(app) -> Iterator[str]:
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        if time.time() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    binary, driver_path = BROWSER
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    driver.set_script_timeout(20)
    _viewport(driver, 1280, 720)
    yield driver
    driver.quit()


def _viewport(driver, width: int, height: int) -> None:
    """The page's own size (the window less nothing: headless Chromium has no bars)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def _outside(browser, css: str) -> list[str]:
    """The elements matching ``css`` that are not wholly inside the window as it is (page not scrolled)."""
    return browser.execute_script("""
        const out = [];
        for (const node of document.querySelectorAll(arguments[0])) {
          const r = node.getBoundingClientRect();
          if (r.width === 0 || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)
            out.push(`${node.className} ${node.textContent.slice(0, 40)} ${JSON.stringify(r)}`);
        }
        return out;""", css)


def _no_scroll(browser) -> bool:
    return browser.execute_script("const e = document.documentElement; return scrollY === 0 && "
                                  "e.scrollHeight <= innerHeight && e.scrollWidth <= innerWidth")


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("PRESIDENT_SCREENSHOTS", "") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _open(browser, url: str) -> None:
    browser.get("about:blank")   # so that a URL differing only in its #tab loads the page again
    browser.get(url)
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return document.body.dataset.ready") == "yes")


def _text(browser, css: str) -> str:
    return browser.find_element(By.CSS_SELECTOR, css).text


def _frames(server: str, index: int, viewer: str = "all") -> list[dict]:
    frames, start = [], 0
    while start is not None:     # the server answers a page of frames at a time
        with urllib.request.urlopen(f"{server}/api/records/cli/{index}?viewer={viewer}&start={start}") as r:
            page = json.loads(r.read())
        frames += page["frames"]
        start = page["next"]
    return frames


def test_watch_steps_through_a_recorded_hand(server, browser, records_file, tmp_path):
    records = read_records(records_file)
    _open(browser, server)
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: "start of the hand" in _text(d, "#step-label"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#hand-list tbody tr")
    assert len(rows) == len(records)
    rows[1].click()
    wait.until(lambda d: "open" in d.find_element(By.CSS_SELECTOR, '#hand-list tr[data-index="1"]')
               .get_attribute("class"))
    rec, frames = records[1], _frames(server, 1)
    n = len(rec["decisions"])
    for _ in range(3):
        browser.find_element(By.ID, "next").click()
    assert _text(browser, "#step-label") == f"decision 3 / {n}"
    assert _text(browser, "#event") == frames[3]["event"]
    browser.find_element(By.ID, "prev").click()
    assert _text(browser, "#step-label") == f"decision 2 / {n}"
    assert _text(browser, "#event").startswith(f"p{rec['decisions'][1]['agent']} ")
    # every seat's cards drawn as cards, as many as the frame says; what its player last did beside it
    seats = browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat")
    for seat, want in zip(seats, frames[2]["table"]["seats"], strict=True):
        faces = [c.get_attribute("data-name") for c in seat.find_elements(By.CSS_SELECTOR, ".held .card:not(.back)")]
        assert faces == [c["name"] for c in want["cards"]]
        last = seat.find_elements(By.CSS_SELECTOR, ".last")
        assert (len(last) == 1) == (want["last"] is not None)
        if last:
            assert last[0].find_element(By.CSS_SELECTOR, ".words").text == want["last"]["words"]
    # the hand's number is the record's (counted from 0, as president replay counts them)
    assert f"hand {rec['hand']} " in _text(browser, "#watch-table .trick .facts")
    row = browser.find_element(By.CSS_SELECTOR, '#hand-list tr[data-index="1"]')
    assert row.find_elements(By.TAG_NAME, "td")[3].text == str(rec["hand"])
    assert not _outside(browser, "#watch-table .seat, #watch-table .trick, #next") and _no_scroll(browser)
    browser.find_element(By.ID, "last").click()
    assert _text(browser, "#step-label") == f"decision {n} / {n}"
    assert "hand over" in _text(browser, "#event")
    assert f"hand {rec['hand']} · hand over" in _text(browser, "#watch-table .trick .facts")
    points = [s.find_element(By.CSS_SELECTOR, ".facts").text for s in
              browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat")]   # the hand's points: the record's
    assert [re.search(r"([+-]\d+) this hand", f).group(1) for f in points] == \
        [f"{rec['points'][s['player']]:+d}" for s in frames[-1]["table"]["seats"]]
    assert not browser.find_element(By.ID, "next").is_enabled()
    browser.find_element(By.ID, "first").click()
    assert "start of the hand" in _text(browser, "#step-label")
    for _ in range(min(n, 12)):
        browser.find_element(By.ID, "next").click()
    browser.save_screenshot(str(_shots(tmp_path) / "web_watch.png"))
    # one player's view: the others' cards are backs
    Select(browser.find_element(By.ID, "viewer")).select_by_value("0")
    wait.until(lambda d: "start of the hand" in _text(d, "#step-label"))
    for seat, want in zip(browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat"),
                          _frames(server, 1, "0")[0]["table"]["seats"], strict=True):
        backs = seat.find_elements(By.CSS_SELECTOR, ".held .card.back")
        assert len(backs) == (0 if want["player"] == 0 else want["n_cards"])


def test_watch_opens_an_uploaded_file(server, browser, tmp_path):
    path = tmp_path / "daifugo.jsonl"
    assert cli_main(["simulate", "--preset", "daifugo", "--games", "1", "--seed", "1", "--hands", "1",
                     "--records", str(path), "--no-progress"]) == 0
    _open(browser, server)
    browser.find_element(By.ID, "records-file").send_keys(str(path))
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: "daifugo.jsonl" in Select(d.find_element(By.ID, "record-set")).first_selected_option.text)
    # the uploaded file's first hand is open (not the command line's, which the page opened first): its
    # opening clears the error box, so the refusal below cannot be cleared by it
    wait.until(lambda d: [r.text for r in d.find_elements(By.CSS_SELECTOR, "#hand-list tbody tr.open td:nth-child(2)")]
               == ["daifugo"])
    assert "start of the hand" in _text(browser, "#step-label")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    browser.find_element(By.ID, "records-file").send_keys(str(bad))
    wait.until(lambda d: d.find_element(By.ID, "error").is_displayed())
    assert "bad.jsonl:1: not valid JSON" in _text(browser, "#error")


def _fresh_play(browser, server: str) -> None:
    """The Play tab of a browser that has no game (its storage cleared, the page loaded again)."""
    _open(browser, server + "/#watch")
    browser.execute_script("localStorage.clear()")
    browser.refresh()   # (a get of the same page with another #tab would not load it again)
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return document.body.dataset.ready") == "yes")
    browser.find_element(By.ID, "tab-play").click()


def _view(browser) -> dict:
    return browser.execute_script("return play.view")


def _send(browser, body: dict) -> None:
    browser.execute_async_script("sendMove(arguments[0]).then(arguments[1])", body)


def _click_move(browser, move: dict) -> None:
    """Select the move's cards by clicking them, then press the play button."""
    used: set[int] = set()
    cards = browser.find_elements(By.CSS_SELECTOR, "#my-hand .card")
    for name in move["cards"]:
        i = next(i for i, c in enumerate(cards) if c.get_attribute("data-name") == name and i not in used)
        used.add(i)
        cards[i].click()
    button = browser.find_element(By.ID, "play-btn")
    assert button.is_enabled() and move["words"] in button.text
    button.click()


IN_VIEW = "#moves button, #play-btn, #pass-btn, #play-table .trick, #play-table .seat, #play-table .seat .last"


def _form(browser) -> dict:
    return browser.execute_script("return formValues()")


def test_play_a_session_by_clicking_cards(server, browser, tmp_path):
    _fresh_play(browser, server)
    assert browser.current_url.endswith("#play")                   # a URL for each tab
    assert browser.find_element(By.ID, "new-game").is_displayed()  # no game yet: the form is open
    Select(browser.find_element(By.ID, "preset")).select_by_value("president")
    for name, value in (("seed", "7"), ("hands", "2")):
        field = browser.find_element(By.ID, name)
        field.clear()
        field.send_keys(value)
    for sel in browser.find_elements(By.CSS_SELECTOR, "#opponents select"):
        Select(sel).select_by_value("random")
    browser.find_element(By.ID, "start").click()
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_element(By.ID, "game").is_displayed())
    assert not browser.find_element(By.ID, "new-game").is_displayed()   # folded away during the game
    form = _form(browser)
    view = _view(browser)
    assert [s["agent"] for s in sorted(view["table"]["seats"], key=lambda s: s["player"])] == \
        ["you", "random", "random", "random"]
    rng = np.random.default_rng(0)
    checked_illegal = reloaded = False
    turns = seen_plays = 0
    while not view["over"]:
        assert view["your_turn"]
        # the card table at 1280x720: the legal moves, the trick and what each opponent did last, all in view
        assert not _outside(browser, IN_VIEW) and _no_scroll(browser), _outside(browser, IN_VIEW)
        lasts = browser.find_elements(By.CSS_SELECTOR, "#play-table .seat .last")
        assert len(lasts) == sum(s["last"] is not None for s in view["table"]["seats"])
        seen_plays += sum(s["last"] is not None and s["player"] != 0 for s in view["table"]["seats"])
        assert len(browser.find_elements(By.CSS_SELECTOR, "#moves button")) == len(view["legal"])
        assert len(browser.find_elements(By.CSS_SELECTOR, "#play-table .held .card.back")) == sum(
            s["n_cards"] for s in view["table"]["seats"] if s["player"] != 0)   # your own cards: once, below
        assert f"hand {view['table']['hand_no']}" in _text(browser, "#game-head")
        if turns == 5:   # and on a larger screen
            _viewport(browser, 1920, 1080)
            assert not _outside(browser, IN_VIEW) and _no_scroll(browser)
            _viewport(browser, 1280, 720)
        if not checked_illegal:
            # two cards that make no legal move: the play button stays disabled and nothing changes
            legal_kinds = [m["kinds"] for m in view["legal"]]
            hand = view["hand"]
            pair = next(((a, b) for a in range(len(hand)) for b in range(a + 1, len(hand))
                         if sorted([hand[a]["kind"], hand[b]["kind"]]) not in legal_kinds), None)
            if pair is not None:
                cards = browser.find_elements(By.CSS_SELECTOR, "#my-hand .card")
                for i in pair:
                    cards[i].click()
                assert len(browser.find_elements(By.CSS_SELECTOR, "#my-hand .card.selected")) == 2
                assert not browser.find_element(By.ID, "play-btn").is_enabled()
                browser.find_element(By.ID, "play-btn").click()
                _send(browser, {"action": 9999})  # an illegal request that bypasses the button
                assert browser.find_element(By.ID, "error").is_displayed()
                assert "not legal" in _text(browser, "#error")
                assert _view(browser) == view
                browser.find_element(By.ID, "clear-btn").click()
                checked_illegal = True
        if turns == 3 and not reloaded:
            browser.save_screenshot(str(_shots(tmp_path) / "web_play.png"))
            browser.refresh()
            WebDriverWait(browser, 20).until(lambda d: d.execute_script("return document.body.dataset.ready") == "yes")
            assert browser.find_element(By.ID, "page-play").is_displayed() and browser.current_url.endswith("#play")
            assert _view(browser) == view  # the reload lost nothing: the game ...
            assert _form(browser) == form  # ... and the form it was started with, folded away
            assert form["seed"] == "7" and form["hands"] == "2"
            assert {o["choice"] for o in form["opponents"].values()} == {"random"}
            assert not browser.find_element(By.ID, "new-game").is_displayed()
            reloaded = True
        move = view["legal"][int(rng.integers(len(view["legal"])))]
        before = len(view["log"])
        if move["id"] == 0:
            browser.find_element(By.ID, "pass-btn").click()
        else:
            _click_move(browser, move)
        old_log = view["log"]
        wait.until(lambda d, old=old_log: _view(d)["log"] != old)
        view = _view(browser)
        assert len(view["log"]) > before or view["over"]
        turns += 1
    assert checked_illegal and reloaded and seen_plays > 10
    assert "Session over" in _text(browser, "#game-head")
    text = browser.execute_async_script(
        "fetch('/api/game/records', {headers: {'X-Game-Token': localStorage.getItem('president-game-token')}})"
        ".then(r => r.text()).then(arguments[0])")
    records = [json.loads(line) for line in text.splitlines()]
    assert [r["hand"] for r in records] == [0, 1]
    log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    for rec in records:   # the page numbers the hands as the records (and the command line) do
        assert any(line.startswith(f"hand {rec['hand']} over: ") for line in log)


def test_play_a_poker_combination_by_clicking_cards(server, browser, tmp_path):
    # rich_man_poor_man, seed 31, with revolutions: you lead holding 3C ... JC JS JH ... 2H (2 is wild)
    _fresh_play(browser, server)
    Select(browser.find_element(By.ID, "preset")).select_by_value("rich_man_poor_man")
    for name, value in (("seed", "31"), ("hands", "1"), ("options", '{"four_of_a_kind": "revolution"}')):
        field = browser.find_element(By.ID, name)
        field.clear()
        field.send_keys(value)
    browser.find_element(By.ID, "start").click()
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: {"3C", "JC", "JS", "JH", "2H"} <= {c["name"] for c in (_view(d) or {}).get("hand", [])}
               and _view(d)["table"]["preset"] == "rich_man_poor_man")   # seed 31's hand: not an earlier game
    view = _view(browser)
    assert view["your_turn"] and view["table"]["poker"] and view["table"]["preset"] == "rich_man_poor_man"
    # the legal claims, one row per kind; a click on one selects cards that make it
    groups = [g.get_attribute("data-group") for g in browser.find_elements(By.CSS_SELECTOR, "#moves .move-group")]
    assert "pairs" in groups and "fours of a kind" in groups
    browser.find_element(By.CSS_SELECTOR, '#moves .move-group[data-group="pairs"] button').click()
    button = browser.find_element(By.ID, "play-btn")
    wait.until(lambda d: button.text.startswith("Play: pair of"))
    browser.find_element(By.ID, "clear-btn").click()
    cards = {c.get_attribute("data-name"): c for c in browser.find_elements(By.CSS_SELECTOR, "#my-hand .card")}
    # cards that make nothing: the button stays off and says why
    for name in ("3C", "4S"):
        cards[name].click()
    wait.until(lambda d: "no poker combination" in _text(d, "#claim-hint"))
    assert not button.is_enabled()
    browser.find_element(By.ID, "clear-btn").click()
    # four jacks with a wild two, or (chosen) a full house: the strongest claim first
    for name in ("3C", "JC", "JS", "JH", "2H"):
        cards[name].click()
    wait.until(lambda d: button.text == "Play: four jacks and a three")
    choice = Select(browser.find_element(By.ID, "claim-choice"))
    assert browser.find_element(By.ID, "claim-choice").is_displayed()
    assert [o.text for o in choice.options] == ["four jacks", "full house of jacks"]
    choice.select_by_visible_text("full house of jacks")
    assert button.text == "Play: full house, jacks over threes"
    browser.save_screenshot(str(_shots(tmp_path) / "web_poker.png"))
    button.click()
    wait.until(lambda d: _view(d)["log"] != view["log"])
    lines = _view(browser)["log"][len(view["log"]):]
    assert lines[0] == "you: full house, jacks over threes (3C JC JS JH 2H)"
    assert not any("revolution" in line for line in lines[:2])


def test_each_tab_has_a_url(server, browser):
    _open(browser, server + "/#play")
    assert browser.find_element(By.ID, "page-play").is_displayed()
    assert not browser.find_element(By.ID, "page-watch").is_displayed()
    browser.find_element(By.ID, "tab-watch").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "page-watch").is_displayed())
    assert browser.current_url.endswith("#watch")
    browser.back()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "page-play").is_displayed())
    _open(browser, server + "/#watch")
    assert browser.find_element(By.ID, "page-watch").is_displayed()
    icon = browser.find_element(By.CSS_SELECTOR, "link[rel=icon]").get_attribute("href")
    with urllib.request.urlopen(icon) as r, urllib.request.urlopen(f"{server}/favicon.ico") as r2:
        assert r.status == r2.status == 200 and r.read() == r2.read()


@pytest.mark.parametrize("name, seed", [("double_deck", 4), ("huberes", 2)])
def test_every_seat_fits_the_window_with_many_players(server, browser, name, seed):
    _fresh_play(browser, server)
    Select(browser.find_element(By.ID, "preset")).select_by_value(name)
    for field, value in (("seed", str(seed)), ("hands", "1")):
        browser.find_element(By.ID, field).clear()
        browser.find_element(By.ID, field).send_keys(value)
    browser.find_element(By.ID, "start").click()
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: (_view(d) or {}).get("table", {}).get("preset") == name)   # (the seed shows at the end)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        view = _view(browser)
        if view["over"]:
            break
        assert len(browser.find_elements(By.CSS_SELECTOR, "#play-table .seat")) == view["table"]["players"]
        assert not _outside(browser, IN_VIEW) and _no_scroll(browser), _outside(browser, IN_VIEW)
        _send(browser, {"action": view["legal"][int(rng.integers(len(view["legal"])))]["id"]})
    assert browser.find_elements(By.CSS_SELECTOR, "#play-table .seat .last")


def test_watch_shows_every_hand_of_eight_players_in_view(server, browser, tmp_path):
    path = tmp_path / "double_deck.jsonl"
    assert cli_main(["simulate", "--preset", "double_deck", "--games", "1", "--seed", "2", "--hands", "1",
                     "--records", str(path), "--no-progress"]) == 0
    _open(browser, server + "/#watch")
    browser.find_element(By.ID, "records-file").send_keys(str(path))
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: "double_deck" in Select(d.find_element(By.ID, "record-set")).first_selected_option.text)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-table .seat")) == 8)
    for _ in range(10):
        browser.find_element(By.ID, "next").click()
    frame = browser.execute_script("return watch.frames[watch.step]")
    for seat, want in zip(browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat"), frame["table"]["seats"],
                          strict=True):
        faces = [c.get_attribute("data-name") for c in seat.find_elements(By.CSS_SELECTOR, ".held .card")]
        assert faces == [c["name"] for c in want["cards"]]
    assert not _outside(browser, "#watch-table .seat, #watch-table .trick, #next") and _no_scroll(browser)


def test_the_page_answers_each_decision_once_and_waits_for_slow_agents(slow_server, browser):
    # the card table speaks the hardened protocol: each move carries the view's decision number, a double send
    # makes one move, a waiting view is asked again until it is your turn, and a refused (409) move redraws
    _fresh_play(browser, slow_server)
    Select(browser.find_element(By.ID, "preset")).select_by_value("president")
    for name, value in (("seed", "11"), ("hands", "1")):
        browser.find_element(By.ID, name).clear()
        browser.find_element(By.ID, name).send_keys(value)
    browser.execute_script("""
        window.seen = [];
        const draw = drawGame;
        drawGame = (v) => { draw(v); seen.push({waiting: v.waiting, head: $("game-head").textContent}); };""")
    browser.find_element(By.ID, "start").click()
    wait = WebDriverWait(browser, 60)
    your_turn = lambda d: (_view(d) or {}).get("table") and (_view(d)["your_turn"] or _view(d)["over"])  # noqa: E731
    wait.until(your_turn)
    view = _view(browser)
    # a double click: two sends of one move; the page sends it once, and no error shows
    n = view["decision"]
    browser.execute_async_script("Promise.all([sendMove(arguments[0]), sendMove(arguments[0])]).then(arguments[1])",
                                 {"action": view["legal"][-1]["id"]})
    wait.until(your_turn)
    assert _view(browser)["decision"] == n + 1 and not browser.find_element(By.ID, "error").is_displayed()
    seen = browser.execute_script("return seen")
    waits = [v["head"] for v in seen if v["waiting"]]
    assert waits and all(h.startswith("The others are playing") for h in waits), seen
    # another tab answers this decision first: the page's own move is refused (409), says so, and the page
    # draws the game as the server has it
    view = _view(browser)
    if view["over"]:
        return
    n, move = view["decision"], view["legal"][-1]["id"]
    status = browser.execute_async_script(
        "const body = JSON.stringify({decision: arguments[0], action: arguments[1]});"
        "fetch('/api/game/action', {method: 'POST', body, headers: {'Content-Type': 'application/json',"
        " 'X-Game-Token': localStorage.getItem('president-game-token')}}).then(r => arguments[2](r.status))", n, move)
    assert status == 200
    _send(browser, {"action": move})
    assert browser.find_element(By.ID, "error").is_displayed()
    assert re.search(r"sent twice|still to move", _text(browser, "#error")), _text(browser, "#error")
    wait.until(lambda d: _view(d)["decision"] == n + 1 and (_view(d)["your_turn"] or _view(d)["over"]))
