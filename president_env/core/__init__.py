"""The rules core: NumPy and numba only. Rules and presets, cards, actions, the compiled engine (batched)."""

from .actions import PASS, action_id, action_table, card_action_id, claim_id, describe_action, n_actions, pick_id
from .cards import card_index, card_names, tables
from .engine import (
    IllegalActionError,
    current_player,
    exchange_kind,
    init,
    legal_action_mask,
    make_keys,
    refresh_legal,
    rewards,
    set_threads,
    step,
    step_inplace,
    terminated,
)
from .observation import observe
from .resample import resample, resample_game, worlds_from_observation
from .rules import PRESETS, Rules, RulesError, preset
from .scalar import ScalarGame
from .state import EXCHANGE, OVER, PLAY, State

__all__ = [
    "PASS", "action_id", "action_table", "card_action_id", "claim_id", "pick_id", "describe_action", "n_actions",
    "card_index", "card_names",
    "tables",
    "IllegalActionError", "current_player", "exchange_kind", "init", "legal_action_mask", "make_keys",
    "refresh_legal", "rewards", "set_threads",
    "step", "step_inplace", "terminated", "observe", "PRESETS", "Rules", "RulesError", "preset",
    "EXCHANGE", "OVER", "PLAY", "State", "ScalarGame", "resample", "resample_game", "worlds_from_observation",
]
