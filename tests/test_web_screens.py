"""The card table on a phone (390x844) and a desktop (1280x720), checked by geometry in headless Chromium: no two
seats overlap each other or the trick, nothing is wider than the window, the status has width, names and ranks are
whole, a seat's cards fit it with every rank readable, and on a phone the hand and the legal moves come before the
log. Browser set-up and helpers: tests/test_web_browser.py (``PRESIDENT_SCREENSHOTS=DIR`` keeps the screenshots)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_web_browser import (  # noqa: F401 - fixtures
    _click_move,
    _fresh_play,
    _open,
    _serve,
    _shots,
    _view,
    _viewport,
    browser,
    records_file,
    server,
)

from president_cli.main import main as cli_main
from president_web import create_app
from president_web.watch import RecordSet

By = pytest.importorskip("selenium.webdriver.common.by").By
StaleElementReferenceException = pytest.importorskip("selenium.common.exceptions").StaleElementReferenceException
ui = pytest.importorskip("selenium.webdriver.support.ui")

PHONE, DESKTOP = (390, 844), (1280, 720)

GEOMETRY = """
const area = document.querySelector(arguments[0]);
const rect = (n) => n.getBoundingClientRect();
const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                          Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
const out = {overlaps: [], wide: [], cut: [], hidden_ranks: [], outside_seat: []};
const seats = [...area.querySelectorAll(".seat")];
const boxes = seats.map(rect);
const trick = rect(area.querySelector(".trick"));
boxes.forEach((a, i) => {
  if (overlap(a, trick)) out.overlaps.push(`seat ${seats[i].dataset.seat} and the trick`);
  boxes.forEach((b, j) => {
    if (j > i && overlap(a, b)) out.overlaps.push(`seats ${seats[i].dataset.seat}, ${seats[j].dataset.seat}`);
  });
});
for (const n of document.body.querySelectorAll("*")) {
  const r = rect(n);
  if (r.width > 0 && (r.left < -0.5 || r.right > innerWidth + 0.5))
    out.wide.push(`${n.tagName}.${n.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
}
for (const n of document.querySelectorAll(".seat .who, .seat .badge, .status, .seat .facts, .seat .last .words"))
  if (n.scrollWidth > n.clientWidth + 1) out.cut.push(`${n.className}: ${n.textContent}`);
seats.forEach((seat, i) => {
  const cards = [...seat.querySelectorAll(".held .card")];
  cards.forEach((c, k) => {
    const r = rect(c);
    if (r.right > boxes[i].right + 0.5 || r.left < boxes[i].left - 0.5)
      out.outside_seat.push(`seat ${seat.dataset.seat} card ${k}`);
    const next = cards[k + 1];
    const face = c.firstElementChild;
    if (next && face && Math.abs(rect(next).top - r.top) < 2 && rect(face).right > rect(next).left + 0.5)
      out.hidden_ranks.push(`seat ${seat.dataset.seat}: ${c.dataset.name} under ${next.dataset.name}`);
  });
});
const head = document.getElementById("game-head");
out.status_width = head ? rect(head).width : 0;
out.scroll_width = document.documentElement.scrollWidth;
out.inner_width = innerWidth;
return out;
"""


def _geometry(driver, area: str) -> dict:
    return driver.execute_script(GEOMETRY, area)


def _assert_fits(g: dict) -> None:
    assert g["scroll_width"] <= g["inner_width"], g["wide"][:5]
    for key in ("overlaps", "wide", "cut", "hidden_ranks", "outside_seat"):
        assert not g[key], (key, g[key][:6])


def _below(driver, upper: str, lower: str) -> bool:
    """Whether ``lower`` starts below the end of ``upper`` (page coordinates)."""
    return driver.execute_script(
        "const r = (s) => document.querySelector(s).getBoundingClientRect();"
        "return r(arguments[1]).top >= r(arguments[0]).bottom - 1", upper, lower)


def _start_and_play(driver, url: str, turns: int) -> dict:
    _fresh_play(driver, url)
    ui.Select(driver.find_element(By.ID, "preset")).select_by_value("president")
    seed = driver.find_element(By.ID, "seed")
    seed.clear()
    seed.send_keys("7")
    for sel in driver.find_elements(By.CSS_SELECTOR, "#opponents select"):
        ui.Select(sel).select_by_value("heuristic")
    driver.find_element(By.ID, "start").click()
    wait = ui.WebDriverWait(driver, 20)
    wait.until(lambda d: d.find_element(By.ID, "game").is_displayed())
    view = _view(driver)
    for _ in range(turns):
        wait.until(lambda d: _view(d)["your_turn"])
        view = _view(driver)
        move = next((m for m in view["legal"] if m["id"] != 0), view["legal"][0])
        if move["id"] == 0:
            driver.find_element(By.ID, "pass-btn").click()
        else:
            _click_move(driver, move)
        wait.until(lambda d, old=view["log"]: _view(d)["log"] != old)
    wait.until(lambda d: _view(d)["your_turn"])
    return _view(driver)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_play_fits_the_screen(server, browser, size, tmp_path):  # noqa: F811
    _viewport(browser, *size)
    try:
        view = _start_and_play(browser, server, turns=3)
        assert len(view["log"]) > 4
        browser.save_screenshot(str(_shots(tmp_path) / f"web_play_{size[0]}x{size[1]}.png"))
        g = _geometry(browser, "#play-table")
        _assert_fits(g)
        assert g["status_width"] > 150 and "Your turn" in browser.find_element(By.ID, "game-head").text
        assert browser.find_element(By.ID, "settings-summary").rect["height"] < 40   # "New game" on one line
        for css in ("#my-hand", "#moves", "#play-btn", "#pass-btn", "#play-table .trick .top-words"):
            assert browser.find_element(By.CSS_SELECTOR, css).is_displayed(), css
        if size == PHONE:   # the log comes after the hand and the moves: it never pushes them away
            assert _below(browser, "#moves", ".log-panel")
            assert _below(browser, "#play-table", ".my-area")
        # the settings form, opened, stays inside the window
        browser.find_element(By.ID, "settings-summary").click()
        _assert_fits(_geometry(browser, "#play-table"))
        browser.find_element(By.ID, "settings-summary").click()
    finally:
        _viewport(browser, *DESKTOP)


def _click_row(driver, text: str) -> bool:
    """Click the hand list's row that holds ``text``; False when the list was redrawn under the click."""
    try:
        next(r for r in driver.find_elements(By.CSS_SELECTOR, "#hand-list tbody tr") if text in r.text).click()
    except (StaleElementReferenceException, StopIteration):
        return False
    return True


@pytest.fixture(scope="module")
def big_hands(tmp_path_factory) -> Iterator[str]:
    """A server with a hand of seven players on two decks (14 and 15 cards each) and one of three on one (17, 18),
    each with ranks from a last hand (the seats show "Vice-President" and the like)."""
    out = tmp_path_factory.mktemp("screens")
    text = ""
    for preset, players in (("double_deck", 7), ("president", 3)):
        path = Path(out) / f"{preset}.jsonl"
        assert cli_main(["simulate", "--preset", preset, "--players", str(players), "--games", "1", "--seed", "5",
                         "--hands", "1", "--records", str(path), "--random-ranks", "--no-progress"]) == 0
        text += path.read_text()
    yield from _serve(create_app(RecordSet.parse("big.jsonl", text)))


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("index", [0, 1], ids=["7_players_2_decks", "3_players"])
def test_watch_fits_big_hands(big_hands, browser, size, index, tmp_path):  # noqa: F811
    _viewport(browser, *size)
    try:
        _open(browser, big_hands + "/#watch")
        wait = ui.WebDriverWait(browser, 20)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hand-list tbody tr")) >= 2)
        want = "double_deck" if index == 0 else "president"
        wait.until(lambda d: _click_row(d, want))
        # the hand has loaded (while it loads the steps are disabled: a click then was lost, and the wait timed out)
        wait.until(lambda d: d.find_element(By.ID, "step-label").text.startswith("start of the hand"))
        seats = 7 if index == 0 else 3
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-table .seat")) == seats)
        held = [len(s.find_elements(By.CSS_SELECTOR, ".held .card")) for s in
                browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat")]
        assert max(held) >= (15 if index == 0 else 17), held
        for _ in range(40):   # past the exchange, into the play
            label = browser.find_element(By.ID, "step-label").text
            if label.startswith("decision 12 "):
                break
            browser.find_element(By.ID, "next").click()
            wait.until(lambda d, old=label: d.find_element(By.ID, "step-label").text != old)
        assert browser.find_element(By.ID, "step-label").text.startswith("decision 12 ")
        browser.save_screenshot(str(_shots(tmp_path) / f"web_watch_{index}_{size[0]}x{size[1]}.png"))
        _assert_fits(_geometry(browser, "#watch-table"))
        event = browser.find_element(By.ID, "event")
        line = float(browser.execute_script("return parseFloat(getComputedStyle(arguments[0]).lineHeight) || 20",
                                            event))
        # a decision's line takes two lines at most (the hand's opening summary, ranks and exchange, may take more)
        assert event.rect["height"] <= 2 * line + 2, event.text
    finally:
        _viewport(browser, *DESKTOP)
