"""president: the reference RL environment for the card game President."""

from .core import PRESETS, Rules, RulesError, preset

__all__ = ["PRESETS", "Rules", "RulesError", "preset"]
