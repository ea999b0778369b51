"""A saved stable-baselines3 model as an agent (``ppo:path/to/model.zip`` on the command line).

Model files
-----------
A model is the zip that ``model.save(path)`` writes (sb3-contrib ``MaskablePPO``;
a plain ``PPO`` loads too), with one extra member, ``president.json``, that says
which game it was trained for::

    {"format": "president-model/1",
     "rules": {...Rules.to_dict()...},
     "observation_size": D, "n_actions": A,
     "observation": "president_env.core.observation.observe"}

:func:`save_model` writes both (the training code calls it); :func:`write_metadata`
adds the member to a zip saved by SB3 directly. stable-baselines3 ignores the
member when loading. The model's input is the flat (D,) float32 observation of
:func:`president_env.core.observe` (or a Dict space holding it under
``"observation"``, with the mask under ``"action_mask"``) and its action space is
``Discrete(n_actions)``.

Loading checks, with an error that says what is wrong: the file exists and is a
zip; its rules equal the rules of the game (the options that differ are named);
it loads as an SB3 model; its spaces fit the rules. A zip without
``president.json`` loads with a warning and only its spaces checked.

Acting: the policy's action logits with illegal actions removed; ``ppo:``
takes the most likely legal action, ``ppo-sample:`` samples one with the
agent's ``numpy.random.Generator``.
"""

from __future__ import annotations

import json
import os
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from president_env.core import Rules, n_actions
from president_env.core import observation as O
from president_env.core.jsonio import JSONInputError, loads

from .base import PolicyAgent, rules_mismatch

METADATA_MEMBER = "president.json"
METADATA_FORMAT = "president-model/1"
MAX_METADATA_BYTES = 1 << 20   # president.json is a few KB; a larger one is not read


class ModelError(ValueError):
    """A model file that cannot be used for these rules (missing, corrupt or trained for other rules)."""


def model_metadata(rules: Rules, **extra: Any) -> dict[str, Any]:
    """The ``president.json`` content for a model trained under ``rules``."""
    meta = {
        "format": METADATA_FORMAT,
        "rules": rules.to_dict(),
        "observation_size": O.size(rules),
        "n_actions": n_actions(rules),
        "observation": "president_env.core.observation.observe",
    }
    meta.update(extra)
    return meta


def write_metadata(path: str | os.PathLike, rules: Rules, **extra: Any) -> None:
    """Add (or replace) the ``president.json`` member of the model zip at ``path``."""
    path = Path(path)
    if not zipfile.is_zipfile(path):
        raise ModelError(f"{path}: not a zip file (save the model with model.save first)")
    with zipfile.ZipFile(path) as zf:
        members = [(info, zf.read(info.filename)) for info in zf.infolist() if info.filename != METADATA_MEMBER]
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for info, data in members:
            zf.writestr(info, data)
        zf.writestr(METADATA_MEMBER, json.dumps(model_metadata(rules, **extra), indent=1, sort_keys=True))
    os.replace(tmp, path)


def read_metadata(path: str | os.PathLike) -> dict[str, Any] | None:
    """The ``president.json`` of a model zip, or ``None`` when it has none."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} not found")
    try:
        with zipfile.ZipFile(path) as zf:
            if METADATA_MEMBER not in zf.namelist():
                return None
            size = zf.getinfo(METADATA_MEMBER).file_size
            if size > MAX_METADATA_BYTES:
                raise ModelError(f"{path}: {METADATA_MEMBER} is larger than {MAX_METADATA_BYTES} bytes: not "
                                 "written by president train")
            raw = zf.read(METADATA_MEMBER)
    except zipfile.BadZipFile as e:
        raise ModelError(f"{path}: not a readable model zip ({e})") from None
    try:
        meta = loads(raw)
    except JSONInputError as e:
        raise ModelError(f"{path}: {METADATA_MEMBER}: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != METADATA_FORMAT or "rules" not in meta:
        raise ModelError(f"{path}: {METADATA_MEMBER} is not a {METADATA_FORMAT} record")
    return meta


def save_model(model: Any, path: str | os.PathLike, rules: Rules, **extra: Any) -> Path:
    """Save an SB3 model to ``path`` (``.zip`` added if missing) with the rules it was trained for.

    The zip is written beside ``path`` and renamed over it when complete, so an interrupted save
    leaves the earlier file (if any) as it was."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_name(path.name + ".zip")
    tmp = path.with_name(f".{path.stem}.part.zip")
    try:
        model.save(tmp)
        write_metadata(tmp, rules, **extra)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def check_rules(path: str | os.PathLike, meta: dict[str, Any], rules: Rules) -> None:
    """Raise :class:`ModelError` if the model's recorded rules differ from ``rules``."""
    why = rules_mismatch(path, meta, rules, "model")
    if why is not None:
        raise ModelError(why)


def _load_sb3(path: Path) -> Any:
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3 import PPO
    except ImportError as e:  # pragma: no cover - the [train] extra
        raise ModelError(f"loading {path} needs stable-baselines3 and sb3-contrib (pip install '.[train]'): {e}") from e
    errors = []
    for cls in (MaskablePPO, PPO):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return cls.load(str(path), device="cpu")
        except Exception as e:  # noqa: BLE001 - report every failure as one clear error
            errors.append(f"{cls.__name__}: {type(e).__name__}: {e}")
    raise ModelError(f"{path}: could not load as a stable-baselines3 model ({' | '.join(errors)})")


class SB3Agent(PolicyAgent):
    """A trained MaskablePPO (or PPO) policy; illegal actions are never chosen."""

    def __init__(self, path: str | os.PathLike, rules: Rules, deterministic: bool = True,
                 name: str | None = None) -> None:
        super().__init__(path, rules, deterministic, name)
        if not self.path.is_file():
            raise FileNotFoundError(f"model file {str(self.path)!r} not found")
        if not zipfile.is_zipfile(self.path):
            raise ModelError(f"{self.path}: not a zip file; a model is the zip written by model.save()")
        self.metadata = read_metadata(self.path)
        if self.metadata is None:
            warnings.warn(f"{self.path} has no {METADATA_MEMBER}: the rules it was trained for cannot be checked "
                          "(only the sizes of its spaces are)", UserWarning, stacklevel=2)
        else:
            check_rules(self.path, self.metadata, rules)
        self.model = _load_sb3(self.path)
        self._check_spaces()

    def _check_spaces(self) -> None:
        import gymnasium as gym
        space = self.model.observation_space
        self._dict_obs = isinstance(space, gym.spaces.Dict)
        obs_space = space["observation"] if self._dict_obs and "observation" in space.spaces else space
        if getattr(obs_space, "shape", None) != (self.obs_size,):
            raise ModelError(f"{self.path}: the model observes shape {getattr(obs_space, 'shape', None)}, "
                             f"these rules give observations of shape ({self.obs_size},): trained for other rules?")
        act = self.model.action_space
        if not isinstance(act, gym.spaces.Discrete) or int(act.n) != self.n_actions:
            raise ModelError(f"{self.path}: the model's action space is {act}, these rules have "
                             f"Discrete({self.n_actions}): trained for other rules?")

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, A) action logits of the policy (before masking)."""
        import torch as th
        policy = self.model.policy
        x: Any = {"observation": obs, "action_mask": mask.astype(np.float32)} if self._dict_obs else obs
        with th.no_grad():
            tensor, _ = policy.obs_to_tensor(x)
            dist = policy.get_distribution(tensor)
            return dist.distribution.logits.cpu().numpy().astype(np.float64)
