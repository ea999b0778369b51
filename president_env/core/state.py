"""The batched state: one struct of arrays with a leading batch axis and fixed dtypes.

Arrays marked *by seat* are indexed by seat (seats are numbered clockwise and
players move between them when reseating); arrays marked *by player* are indexed
by the player (agent) number. ``seat_player[b, s]`` is the player in seat ``s``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

EXCHANGE, PLAY, OVER = 0, 1, 2
PHASE_NAMES = ("exchange", "play", "over")


@dataclass
class State:
    """B independent sessions of President. See the field comments for shapes."""

    key: np.ndarray          # (B,) uint64   per-game seed: drives every deal of the session
    hand_no: np.ndarray      # (B,) int32    hands finished so far in the session
    phase: np.ndarray        # (B,) int8     EXCHANGE, PLAY or OVER (session finished)
    seat_player: np.ndarray  # (B,P) int8    player sitting in each seat
    dealer: np.ndarray       # (B,) int8     seat that dealt this hand
    social: np.ndarray       # (B,P) int8    by seat: last hand's finishing position (0 = President), -1 none
    hands: np.ndarray        # (B,P,C) bool  by seat: cards held
    counts: np.ndarray       # (B,P,K) int8  by seat: cards held per kind
    n_cards: np.ndarray      # (B,P) int8    by seat: cards held
    current: np.ndarray      # (B,) int8     seat to act
    leader: np.ndarray       # (B,) int8     seat that led (or will lead) the current trick
    top_rank: np.ndarray     # (B,) int8     play rank on top (effective rank), -1 when leading
    top_size: np.ndarray     # (B,) int8     cards in the play on top, 0 when leading
    top_owner: np.ndarray    # (B,) int8     seat that made the play on top, -1 when leading
    top_wild: np.ndarray     # (B,) bool     the play on top contains wild cards
    top_count: np.ndarray    # (B,) int8     cards of the top's rank in consecutive plays (complete_set_clears)
    first_lead: np.ndarray   # (B,) bool     the coming lead must contain the lowest card
    passed: np.ndarray       # (B,P) bool    by seat: may_replay: passed since the last play;
    #                                        locks_out: passed this trick; single_round: had its turn
    finish: np.ndarray       # (B,P) int8    by seat: finishing position this hand, -1 still playing
    next_best: np.ndarray    # (B,) int8     best finishing position not yet taken
    next_worst: np.ndarray   # (B,) int8     worst finishing position not yet taken
    revolution: np.ndarray   # (B,) bool     rank order reversed
    direction: np.ndarray    # (B,) int8     +1 clockwise (seat s -> s+1), -1 counter-clockwise
    played: np.ndarray       # (B,K) int8    cards played this hand, per kind (public)
    discarded: np.ndarray    # (B,K) int8    cards that left play unseen (president_must_win)
    exch_step: np.ndarray    # (B,) int8     exchange decisions made this hand (give-backs, then merchant trades)
    exch_in: np.ndarray      # (B,P,K) int8  by seat: cards received in this hand's exchange
    exch_out: np.ndarray     # (B,P,K) int8  by seat: cards given in this hand's exchange
    points: np.ndarray       # (B,P) int32   by player: session totals
    hand_points: np.ndarray  # (B,P) int32   by player: points of the hand that just ended (else 0)
    hand_over: np.ndarray    # (B,) bool     the last step ended a hand
    last_finish: np.ndarray  # (B,P) int8    by player: finishing positions of the last finished hand, -1 none
    single_row: np.ndarray   # (B,) int8     single plays of the top's rank in a row this trick (revolution_by_singles)
    exposed: np.ndarray      # (B,P) int8    by seat: card exposed on the pile it took (hand_assignment expose), -1 none
    trade_pick: np.ndarray   # (B,P) int8    by seat: merchant card chosen and not yet moved (merchant_trade), -1 none
    top_own: np.ndarray      # (B,) int8     own play rank of the last play this trick, -1 none (quick_clear)
    qc_count: np.ndarray     # (B,) int8     natural cards of that rank in consecutive plays at the top (quick_clear)
    claim_rank: np.ndarray   # (B,) int8     play rank the player to act may claim as a quick clear, -1 none
    claim_next: np.ndarray   # (B,) int8     seat that acts if the claim is declined, -1 none
    top_run: np.ndarray      # (B,) int8     run length of the play on top, 0 for a set (runs)
    top_cards: np.ndarray    # (B,C) bool    the cards of the play on top (card-level rules only)
    played_cards: np.ndarray  # (B,C) bool   cards played this hand (card-level rules only)
    moved: np.ndarray        # (B,C) bool    cards the last action played or gave (a merchant's first pick: its card)
    poker_claim: np.ndarray  # (B,) int16    poker: the claim id the player to act has made and is picking, 0 none
    picked: np.ndarray       # (B,C) bool    poker: the cards it has picked so far (still in its hand)
    top_claim: np.ndarray    # (B,) int16    poker: the claim id of the play on top, 0 when leading
    legal: np.ndarray        # (B,A) bool    legal actions now (only pass once the session is over)

    @property
    def batch_size(self) -> int:
        return int(self.key.shape[0])

    def copy(self) -> State:
        d = self.__dict__
        return State(**{name: d[name].copy() for name in _FIELDS})

    def take(self, idx: np.ndarray) -> State:
        """The sub-batch ``idx`` (a copy)."""
        d = self.__dict__
        return State(**{name: d[name][idx] for name in _FIELDS})

    def put(self, idx: np.ndarray, sub: State) -> None:
        """Write the sub-batch ``sub`` back at ``idx`` (in place)."""
        d, s = self.__dict__, sub.__dict__
        for name in _FIELDS:
            d[name][idx] = s[name]

    @staticmethod
    def concat(states: list[State]) -> State:
        """Join states of the same rules along the batch axis."""
        fields = dataclasses.fields(State)
        return State(**{f.name: np.concatenate([getattr(s, f.name) for s in states]) for f in fields})


_FIELDS = tuple(f.name for f in dataclasses.fields(State))


def field_names() -> tuple[str, ...]:
    return _FIELDS
