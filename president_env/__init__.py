"""president: the reference RL environment for the card game President."""

from .aec_env import env, raw_env
from .core import PRESETS, Rules, RulesError, preset

__all__ = ["PRESETS", "Rules", "RulesError", "preset", "env", "raw_env"]
