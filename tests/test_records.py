"""Game records (rule book section 9): recording, files, replay, and loud failure on tampering."""

from __future__ import annotations

import copy
import io
import json

import numpy as np
import pytest

from president_env.core import PRESETS, action_table, card_names, current_player, init, preset, step_inplace, tables
from president_env.core.poker import claim_table, satisfies
from president_env.core.records import (
    Recorder,
    RecordError,
    ReplayError,
    random_actions,
    read_records,
    replay,
    validate_record,
    write_records,
)


def _play(rules, keys, seed=0, start_ranks=None):
    """Records of sessions with the given keys; game g draws its actions from default_rng([seed, key])."""
    st = init(rules, keys=np.asarray(keys, dtype=np.uint64), start_ranks=start_ranks)
    rngs = [np.random.default_rng([seed, int(k)]) for k in keys]
    rec = Recorder(rules, st, sessions=list(range(len(keys))))
    out = []
    while not rec.done:
        u = np.stack([r.random(rec.state.legal.shape[1]) for r in rngs])
        out += rec.step(np.where(rec.state.legal, u, -1.0).argmax(axis=1))
    return out


def _check_cards_match_actions(rules, rec):
    """Each decision moved cards of its action's rank (or wild cards) and size; a give-back moves one."""
    at = action_table(rules)
    n_back = sum(b for _, b in rules.exchange_pairs) if rec["prev_ranks"] is not None else 0
    dealt = {p: list(h) for p, h in enumerate(rec["deal"])}
    if at.poker:
        _check_poker_cards(rules, rec, n_back)
        return
    for i, d in enumerate(rec["decisions"]):
        size, name = int(at.size[d["action"]]), at.names[d["action"]]
        assert len(d["cards"]) == (min(size, 1) if i < n_back else size), (i, d)
        for c in d["cards"]:
            rank = c if c in ("JK", "BJ", "RJ") or c in rules.high_cards else c[0]
            if at.card_level and at.run[d["action"]]:
                assert c in at.cards[d["action"]] or rank in rules.wild_ranks, (i, d)
            else:
                assert rank == name or rank in rules.wild_ranks, (i, d)
        if at.card_level and i >= n_back:  # a set moves exactly the natural cards it names (a run: those held)
            natural = sorted(c for c in d["cards"] if (c if c == "JK" else c[:-1]) not in rules.wild_ranks)
            named = sorted(at.cards[d["action"]])
            assert (set(natural) <= set(named)) if at.run[d["action"]] else natural == named, (i, d)
    assert sum(len(h) for h in dealt.values()) == tables(rules).n_cards


def _check_poker_cards(rules, rec, n_back):
    """Poker: a give-back moves the card its pick names; a claim and its picks move nothing until the last
    pick, which moves the picked cards, and they make the claim (rules without a revolution)."""
    at, ct = action_table(rules), claim_table(rules)
    claim, picks = 0, []
    for i, d in enumerate(rec["decisions"]):
        a = d["action"]
        if i < n_back:
            assert d["cards"] == [at.cards[a][0]], (i, d)
        elif a == 0 or at.pick[a] < 0:
            assert d["cards"] == [], (i, d)
            claim, picks = a, []
        else:
            picks.append(at.cards[a][0])
            if len(picks) < ct.n[claim]:
                assert d["cards"] == [], (i, d)
            else:
                assert sorted(d["cards"]) == sorted(picks) and satisfies(rules, claim, d["cards"]), (i, d)
                claim, picks = 0, []


@pytest.fixture(scope="module")
def president_records():
    return _play(preset("president", hands_per_session=2), [11, 12])


# --------------------------------------------------------------------------- round trip
@pytest.mark.parametrize("name", PRESETS)
def test_round_trip_every_preset(name, tmp_path):
    rules = preset(name, hands_per_session=2)
    keys = [5, 6]
    st0 = init(rules, keys=np.array(keys, dtype=np.uint64))
    records = _play(rules, keys)
    assert sorted((r["session"], r["hand"]) for r in records) == [(0, 0), (0, 1), (1, 0), (1, 1)]

    path = tmp_path / "r.jsonl"
    assert write_records(path, records) == 4
    back = read_records(path)
    assert back == records

    P, t = rules.players, tables(rules)
    for rec in back:
        assert rec["preset"] == name and rec["rules"] == rules.to_dict()
        # The deal is a split of the whole pack.
        assert sorted(c for hand in rec["deal"] for c in hand) == sorted(t.card_names)
        end = replay(rec)
        assert end.hand_points[0].tolist() == rec["points"]
        _check_cards_match_actions(rules, rec)
        if rec["hand"] == 0:
            assert rec["prev_ranks"] is None and rec["exchanges"] == []
            # The first hand's deal is what init dealt (by player).
            g = rec["session"]
            by_player = [card_names(rules, st0.hands[g, list(st0.seat_player[g]).index(p)]) for p in range(P)]
            assert rec["deal"] == by_player
        else:
            first = next(r for r in back if r["session"] == rec["session"] and r["hand"] == 0)
            assert rec["prev_ranks"] == [first["finish_order"].index(p) for p in range(P)]
            pairs = rules.exchange_pairs
            assert [len(e["cards"]) for e in rec["exchanges"]] == [give for give, _ in pairs]
            scum_to_pres = rec["exchanges"][0] if pairs else None
            if scum_to_pres:
                assert scum_to_pres["from"] == first["finish_order"][-1]
                assert scum_to_pres["to"] == first["finish_order"][0]
            n_back = sum(back_n for _, back_n in pairs)
            # The give-backs are the first decisions, each one card from the receiver.
            for d in rec["decisions"][:n_back]:
                assert len(d["cards"]) == 1
                assert d["agent"] in [first["finish_order"][k] for k in range(len(pairs))]


def test_records_do_not_depend_on_the_batch():
    rules = preset("daifugo", hands_per_session=3)
    alone = _play(rules, [77])
    batched = [r for r in _play(rules, [3, 77, 9]) if r["key"] == 77]
    for r in batched:
        r["session"] = 0
    assert alone == batched


def test_random_start_ranks_give_an_exchange_on_the_first_hand():
    rules = preset("butthead", hands_per_session=1)
    (rec,) = _play(rules, [4], start_ranks="random")
    assert rec["prev_ranks"] is not None
    assert [len(e["cards"]) for e in rec["exchanges"]] == [2, 1]
    assert all(len(d["cards"]) == 1 for d in rec["decisions"][:5])  # 3 + 2 cards given back
    replay(rec)


def test_write_to_an_open_file_and_json_lines():
    recs = _play(preset("president", hands_per_session=1), [1])
    buf = io.StringIO()
    write_records(buf, recs + recs)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2 and json.loads(lines[1]) == recs[0]


# --------------------------------------------------------------------------- tampering
def _first(record, pred):
    return next(i for i, d in enumerate(record["decisions"]) if pred(d))


@pytest.fixture
def rec(president_records):
    r = next(x for x in president_records if x["hand"] == 1)
    replay(r)  # untouched, it replays
    return copy.deepcopy(r)


def test_changed_legal_list_fails(rec):
    i = _first(rec, lambda d: len(d["legal"]) > 2)
    rec["decisions"][i]["legal"].pop()
    with pytest.raises(ReplayError, match=rf"decision {i} .*legal"):
        replay(rec)


def test_changed_card_fails(rec):
    i = _first(rec, lambda d: len(d["cards"]) > 0)
    card = rec["decisions"][i]["cards"][0]
    rec["decisions"][i]["cards"][0] = card[0] + ("S" if card[1] != "S" else "C")
    with pytest.raises(ReplayError, match=rf"decision {i} .*moved"):
        replay(rec)


def test_changed_action_fails(rec):
    n_back = 3  # president: exchange [2, 1]
    i = next(i for i, d in enumerate(rec["decisions"]) if i >= n_back and d["action"] != 0
             and any(a not in (0, d["action"]) for a in d["legal"]))
    d = rec["decisions"][i]
    d["action"] = next(a for a in d["legal"] if a not in (0, d["action"]))
    with pytest.raises(ReplayError, match=rf"decision {i} \(play\): action {d['action']} .* moved"):
        replay(rec)


def test_illegal_action_fails(rec):
    i = len(rec["decisions"]) // 2
    d = rec["decisions"][i]
    d["action"] = next(a for a in range(1, 60) if a not in d["legal"])
    with pytest.raises(ReplayError, match=rf"decision {i} .*not legal"):
        replay(rec)


def test_changed_agent_fails(rec):
    i = 7
    rec["decisions"][i]["agent"] = (rec["decisions"][i]["agent"] + 1) % 4
    with pytest.raises(ReplayError, match=rf"decision {i} .*player"):
        replay(rec)


def test_changed_points_and_finish_fail(rec):
    bad = copy.deepcopy(rec)
    bad["points"][0] += 1
    with pytest.raises(ReplayError, match="points"):
        replay(bad)
    bad = copy.deepcopy(rec)
    bad["finish_order"][:2] = bad["finish_order"][1::-1]
    with pytest.raises(ReplayError, match="finish_order"):
        replay(bad)


def test_changed_deal_fails(rec):
    # Swap the first card played with a card of another rank dealt to another player.
    card = next(d["cards"][0] for i, d in enumerate(rec["decisions"]) if i >= 3 and d["cards"])
    holder = next(p for p, h in enumerate(rec["deal"]) if card in h)
    other = (holder + 1) % 4
    swap = next(c for c in rec["deal"][other] if c[0] != card[0])
    rec["deal"][holder][rec["deal"][holder].index(card)] = swap
    rec["deal"][other][rec["deal"][other].index(swap)] = card
    with pytest.raises(ReplayError):
        replay(rec)


def test_deal_that_is_not_a_split_fails(rec):
    rec["deal"][0][0] = rec["deal"][1][0]
    with pytest.raises(ReplayError, match="deal"):
        replay(rec)
    rec["deal"][0][0] = "ZZ"
    with pytest.raises(ReplayError, match="unknown card 'ZZ'"):
        replay(rec)


def test_changed_exchange_fails(rec):
    rec["exchanges"][0]["cards"][0] = "3C"
    with pytest.raises(ReplayError, match="exchanges"):
        replay(rec)


def test_extra_or_missing_decisions_fail(rec):
    bad = copy.deepcopy(rec)
    bad["decisions"].append(copy.deepcopy(bad["decisions"][-1]))
    n = len(rec["decisions"])
    with pytest.raises(ReplayError, match=rf"decision {n}: the hand ended"):
        replay(bad)
    bad = copy.deepcopy(rec)
    bad["decisions"].pop()
    with pytest.raises(ReplayError, match="end before the hand does"):
        replay(bad)


def test_changed_rules_or_preset_fail(rec):
    bad = copy.deepcopy(rec)
    bad["preset"] = "daifugo"
    with pytest.raises(ReplayError, match="preset"):
        replay(bad)
    bad = copy.deepcopy(rec)
    bad["rules"]["pass_rule"] = "nonsense"
    with pytest.raises(ReplayError, match="pass_rule"):
        replay(bad)


# --------------------------------------------------------------------------- reading
def _write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def test_read_names_the_line_of_corrupt_json(tmp_path, president_records):
    good = json.dumps(president_records[0])
    path = tmp_path / "r.jsonl"
    _write_lines(path, [good, good[:-5]])
    with pytest.raises(RecordError, match=r"r\.jsonl:2: not valid JSON"):
        read_records(path)


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.pop("points"), r":1: missing field 'points'"),
    (lambda r: r.__setitem__("hand", "one"), r":1: field 'hand' must be an integer 0\.\.1000000"),
    (lambda r: r.__setitem__("hand", 10**19), r":1: field 'hand' must be an integer 0\.\.1000000, got 10{19}"),
    (lambda r: r.__setitem__("dealer", 10**19), r":1: field 'dealer' must be an integer 0\.\.63"),
    (lambda r: r.__setitem__("session", 2**64), r":1: field 'session' must be a 64-bit integer"),
    (lambda r: r.__setitem__("points", [2**40, 0, 0, 0]), r":1: field 'points' must be a list of 32-bit"),
    (lambda r: r["decisions"][0].__setitem__("action", -1), r":1: field decisions\[0\]\.action must be an "
                                                              r"integer 0\.\.16777215"),
    (lambda r: r.__setitem__("dealer", True), r":1: field 'dealer' must be an integer"),
    (lambda r: r["decisions"][3].pop("legal"), r":1: missing field decisions\[3\]\.legal"),
    (lambda r: r["decisions"][2].__setitem__("legal", [0, "5"]), r":1: field decisions\[2\]\.legal must be"),
    (lambda r: r["exchanges"].__setitem__(0, [1, 2]), r":1: field exchanges\[0\] must be an object"),
    (lambda r: r.__setitem__("format", "other/9"), r":1: field 'format'"),
])
def test_read_names_missing_or_ill_typed_fields(tmp_path, president_records, change, message):
    rec = copy.deepcopy(next(r for r in president_records if r["hand"] == 1))
    change(rec)
    path = tmp_path / "r.jsonl"
    _write_lines(path, [json.dumps(rec)])
    with pytest.raises(RecordError, match=message):
        read_records(path)


def test_validate_rejects_a_non_object():
    with pytest.raises(RecordError, match="JSON object"):
        validate_record([1, 2])


# --------------------------------------------------------------------------- recorder input checks
def test_recorder_refuses_a_state_in_the_middle_of_a_hand():
    rules = preset("president")
    st = init(rules, batch_size=2, seed=0)
    step_inplace(rules, st, random_actions(st.legal, np.random.default_rng(0)))
    with pytest.raises(ValueError, match="not at the start of a hand"):
        Recorder(rules, st)
    with pytest.raises(ValueError, match="agents must name 4 players"):
        Recorder(rules, init(rules, batch_size=1, seed=0), agents=["a", "b"])


def test_recorder_with_a_given_deal():
    rules = preset("president", hands_per_session=1)
    st0 = init(rules, batch_size=1, seed=3)
    deal = np.stack([st0.hands[0, ::-1]])  # seat s's cards to player P-1-s
    st = init(rules, batch_size=1, seed=3, deal=deal, start_ranks=np.array([[1, 0, 3, 2]]))
    rec = Recorder(rules, st, deal=deal)
    (r,) = rec.run(lambda s: random_actions(s.legal, np.random.default_rng(1)))
    assert r["deal"] == [card_names(rules, deal[0, p]) for p in range(4)]
    replay(r)


def test_random_actions_are_legal_and_cover_the_legal_set():
    rng = np.random.default_rng(0)
    legal = np.zeros((2, 6), dtype=bool)
    legal[0, [1, 4]] = True
    legal[1, 0] = True
    seen = {int(random_actions(legal, rng)[0]) for _ in range(50)}
    assert seen == {1, 4}
    assert random_actions(legal, rng)[1] == 0
    with pytest.raises(ValueError, match="at least one legal action"):
        random_actions(np.zeros((1, 3), dtype=bool), rng)


# --------------------------------------------------------------------------- engine
def test_engine_moved_holds_the_last_play_of_a_hand():
    rules = preset("president")
    st = init(rules, batch_size=4, seed=1)
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 3:
        a = random_actions(st.legal, rng)
        seat = st.current.copy()
        before = st.hands.copy()
        step_inplace(rules, st, a)
        for b in np.flatnonzero(st.hand_over):
            size = (a[b] - 1) % rules.max_set + 1
            moved = st.moved[b]
            assert moved.sum() == size and (before[b, seat[b]] | ~moved).all()
            checked += 1


def test_current_player_is_the_recorded_agent(president_records):
    # A cross-check of the recorder against the engine's own reading of who acts.
    rules = preset("president", hands_per_session=2)
    r = president_records[0]
    st = init(rules, keys=np.array([r["key"]], dtype=np.uint64))
    assert int(current_player(st)[0]) == r["decisions"][0]["agent"]
