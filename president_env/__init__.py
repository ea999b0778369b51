"""president: the reference RL environment for the card game President."""

from .aec_env import env, raw_env
from .core import PRESETS, Rules, RulesError, preset
from .registration import ENV_ID, register_envs

register_envs()

__all__ = ["ENV_ID", "PRESETS", "Rules", "RulesError", "preset", "env", "raw_env", "register_envs"]
