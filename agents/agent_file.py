"""Agent files that are data, never code: a policy's tensors in safetensors plus JSON metadata.

An agent file (``*.agent.safetensors`` by convention) is one safetensors file. Its tensors
are the policy network, float32 (or float16, half the size: ``dtype="float16"``, ``export-agent
--float16``; computed in float32 after loading), named by layer::

    hidden.0.weight (H0, D)   hidden.0.bias (H0,)      first hidden layer
    hidden.1.weight (H1, H0)  hidden.1.bias (H1,)      ...
    action.weight   (A, Hn)   action.bias   (A,)       action logits

and its header metadata holds one key, ``president-agent``, a JSON object::

    {"format": "president-agent/1",
     "rules": {...Rules.to_dict()...},
     "observation_size": D, "n_actions": A,
     "observation": "president_env.core.observation.observe",
     "architecture": {"type": "mlp", "hidden": [H0, H1, ...], "activation": "tanh"},
     "made_by": {"preset": ..., "command": ..., "seed": ..., "timesteps": ..., "code_version": ...}}

The logits are ``action(act(hidden.n(... act(hidden.0(obs)))))`` on the flat observation of
:func:`president_env.core.observe`; illegal actions are masked out before choosing.

Reading a file parses the safetensors header (JSON, read within the limits of
:mod:`president_env.core.jsonio` and at most :data:`MAX_HEADER_BYTES`) and copies the tensor
bytes: nothing is unpickled, imported or evaluated, and torch is not needed. Every check names
the file: it exists, it is a complete safetensors file, the metadata is this format with every
field of the right type and range, the rules are the game's, the sizes fit the rules, the
tensors have the shapes the architecture implies, and every weight is a finite number.

:func:`export_sb3_zip` converts a stable-baselines3 ``MaskablePPO``/``PPO`` zip without
unpickling its ``data`` member: the weights come from ``policy.pth`` through
``torch.load(weights_only=True)`` (a restricted reader of tensors), the rules from its
``president.json``, and the activation from the class name SB3 writes in plain text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from president_env.core import Rules, RulesError, n_actions
from president_env.core import observation as O
from president_env.core.files import atomic_writer
from president_env.core.jsonio import JSONInputError, loads

from .base import PolicyAgent, rules_mismatch

FORMAT = "president-agent/1"
META_KEY = "president-agent"
SUFFIX = ".agent.safetensors"
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
_SB3_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}
DTYPES = {"float32": np.float32, "float16": np.float16}   # how the tensors may be stored
_STORED = frozenset(np.dtype(d) for d in DTYPES.values())
MAX_HEADER_BYTES = 4 << 20     # a safetensors header (tensor table and metadata) of an agent file is a few KB
MAX_SIZE = 1 << 20             # observation size, action count and hidden width an agent file may state
MAX_LAYERS = 64


class AgentFileError(ValueError):
    """An agent file that cannot be used: missing, truncated, not this format, or made for other rules."""


# --------------------------------------------------------------------------- writing
def refusal_words(e: BaseException) -> str:
    """What a restricted reader (``torch.load(weights_only=True)``) found wrong, without its advice: torch's
    message suggests loading again with ``weights_only=False``, which would run the file's pickle, so only
    its finding (``Unsupported global: GLOBAL os.system``) is kept."""
    text = str(e)
    found = re.search(r"WeightsUnpickler error:\s*([^\n]+)", text)
    if found:
        finding = re.split(r"\. (?=[A-Z])", found.group(1))[0]
        return f"{type(e).__name__}: {finding[:200]}"
    if "weights_only" in text or "pickle" in text.lower():
        return type(e).__name__
    return f"{type(e).__name__}: {text[:200]}"


def code_version() -> str:
    """The package version and, when run from a git checkout, the commit (``0.1.0+abc1234``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("president")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without install
        v = "0+unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
                                cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{v}+{commit}" if commit else v


def agent_metadata(rules: Rules, hidden: list[int], activation: str, made_by: dict[str, Any]) -> dict[str, Any]:
    """The metadata object of an agent file for a policy trained under ``rules``."""
    return {
        "format": FORMAT,
        "rules": rules.to_dict(),
        "observation_size": O.size(rules),
        "n_actions": n_actions(rules),
        "observation": "president_env.core.observation.observe",
        "architecture": {"type": "mlp", "hidden": [int(h) for h in hidden], "activation": activation},
        "made_by": made_by,
    }


def write_agent_file(path: str | os.PathLike, rules: Rules, layers: list[tuple[np.ndarray, np.ndarray]],
                     activation: str = "tanh", made_by: dict[str, Any] | None = None,
                     dtype: str = "float32") -> Path:
    """Write an agent file: ``layers`` are (weight (out, in), bias (out,)) pairs, the last one the action layer.

    ``dtype="float16"`` stores the tensors at half precision (half the file); the agent then
    plays the rounded network, which can differ from the float32 one where two logits are
    within rounding of each other."""
    from safetensors.numpy import save

    if dtype not in DTYPES:
        raise AgentFileError(f"dtype {dtype!r} is not one of {list(DTYPES)}")
    if activation not in ACTIVATIONS:
        raise AgentFileError(f"activation {activation!r} is not one of {sorted(ACTIVATIONS)}")
    if len(layers) < 1:
        raise AgentFileError("an agent needs at least the action layer")
    tensors: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(layers):
        name = "action" if i == len(layers) - 1 else f"hidden.{i}"
        tensors[f"{name}.weight"] = np.ascontiguousarray(w, dtype=DTYPES[dtype])
        tensors[f"{name}.bias"] = np.ascontiguousarray(b, dtype=DTYPES[dtype])
    hidden = [int(w.shape[0]) for w, _ in layers[:-1]]
    meta = agent_metadata(rules, hidden, activation, dict(made_by or {}))
    _check_shapes(Path(path), meta, {k: v.shape for k, v in tensors.items()})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = save(tensors, metadata={META_KEY: json.dumps(meta, sort_keys=True)})
    # written beside and renamed (an interrupted write leaves an earlier file as it was), with the mode any
    # new file gets from the umask (e.g. 0644): safetensors' save_file makes it owner-only, and an agent
    # file is meant to be shared
    with atomic_writer(path, binary=True) as f:
        f.write(data)
    return path


# --------------------------------------------------------------------------- reading
def _read_header(path: Path) -> tuple[dict[str, Any], int]:
    """The safetensors header of ``path`` (a JSON object) and the size of its data section."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise AgentFileError(f"{path}: not an agent file (too short to be safetensors: {size} bytes)")
        n = int.from_bytes(head, "little")
        if n <= 0 or n > min(size - 8, MAX_HEADER_BYTES):
            raise AgentFileError(f"{path}: not an agent file (its first 8 bytes do not give the length of a "
                                 f"safetensors header of at most {MAX_HEADER_BYTES} bytes within the file: not "
                                 "safetensors, or truncated)")
        raw = f.read(n)
    try:
        header = loads(raw)
    except JSONInputError as e:
        raise AgentFileError(f"{path}: not an agent file (its safetensors header: {e})") from None
    if not isinstance(header, dict):
        raise AgentFileError(f"{path}: not an agent file (its safetensors header is not a JSON object)")
    return header, size - 8 - n


def _tensor_ends(path: Path, header: dict[str, Any]) -> list[int]:
    """Where each tensor's data ends, from a checked tensor table."""
    ends = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
        ok = isinstance(offsets, list) and len(offsets) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in offsets)
        if not ok or offsets[0] > offsets[1]:
            raise AgentFileError(f"{path}: not an agent file (tensor {name[:80]!r} has no valid data_offsets)")
        ends.append(offsets[1])
    return ends


def _metadata(path: Path, header: dict[str, Any]) -> dict[str, Any]:
    """The president-agent metadata object of a header, every field checked for type and range."""
    table = header.get("__metadata__", {})
    if not isinstance(table, dict):
        raise AgentFileError(f"{path}: not an agent file (its safetensors __metadata__ is not a JSON object)")
    meta_raw = table.get(META_KEY)
    if meta_raw is None:
        raise AgentFileError(f"{path}: a safetensors file without {META_KEY!r} metadata: not a president agent file")
    if not isinstance(meta_raw, str):
        raise AgentFileError(f"{path}: its {META_KEY} metadata is not a JSON string")
    try:
        meta = loads(meta_raw)
    except JSONInputError as e:
        raise AgentFileError(f"{path}: its {META_KEY} metadata: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise AgentFileError(f"{path}: its metadata is not of the format {FORMAT!r}")
    for key in ("rules", "observation_size", "n_actions", "architecture"):
        if key not in meta:
            raise AgentFileError(f"{path}: metadata lacks {key!r}")
    for key in ("observation_size", "n_actions"):
        v = meta[key]
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_SIZE:
            raise AgentFileError(f"{path}: metadata {key} must be an integer 1..{MAX_SIZE}")
    if not isinstance(meta["rules"], dict):
        raise AgentFileError(f"{path}: metadata rules must be an object of option values")
    if "made_by" in meta and not isinstance(meta["made_by"], dict):
        raise AgentFileError(f"{path}: metadata made_by must be an object")
    return meta


def read_agent_file(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(metadata, tensors) of an agent file, checked for format, completeness, shapes and finite weights
    (not the rules: :func:`check_rules`)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"agent file {str(path)!r} not found")
    header, data_size = _read_header(path)
    meta = _metadata(path, header)
    ends = _tensor_ends(path, header)
    if max(ends, default=0) > data_size:
        raise AgentFileError(f"{path}: truncated: its tensors need {max(ends)} bytes of data, the file has {data_size}")
    _check_shapes(path, meta, None)   # the architecture alone, before reading the tensors
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    try:
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError, TypeError) as e:
        raise AgentFileError(f"{path}: its tensors cannot be read ({str(e)[:200]})") from None
    _check_shapes(path, meta, {k: v.shape for k, v in tensors.items()})
    for k, v in tensors.items():
        if v.dtype not in _STORED:
            raise AgentFileError(f"{path}: tensor {k} is {v.dtype}; an agent file stores {' or '.join(DTYPES)}")
        if not np.isfinite(v).all():
            bad = int((~np.isfinite(v)).sum())
            raise AgentFileError(f"{path}: tensor {k} holds {bad} non-finite weight(s) (NaN or infinity): refused")
    return meta, tensors


def _check_shapes(path: Path, meta: dict[str, Any], shapes: dict[str, tuple[int, ...]] | None) -> None:
    """The architecture in the metadata, and (``shapes`` given) the tensors' shapes it implies."""
    arch = meta["architecture"]
    if not isinstance(arch, dict) or arch.get("type") != "mlp":
        raise AgentFileError(f"{path}: its architecture is not supported (only type 'mlp')")
    if not isinstance(arch.get("activation"), str) or arch["activation"] not in ACTIVATIONS:
        raise AgentFileError(f"{path}: its activation is not one of {sorted(ACTIVATIONS)}")
    hidden = arch.get("hidden")
    if not isinstance(hidden, list) or len(hidden) > MAX_LAYERS or not all(
            isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_SIZE for h in hidden):
        raise AgentFileError(f"{path}: architecture hidden sizes must be a list of at most {MAX_LAYERS} integers "
                             f"1..{MAX_SIZE}")
    if shapes is None:
        return
    dims = [int(meta["observation_size"]), *hidden, int(meta["n_actions"])]
    names = [f"hidden.{i}" for i in range(len(hidden))] + ["action"]
    want = {}
    for name, (i, o) in zip(names, zip(dims[:-1], dims[1:], strict=True), strict=True):
        want[f"{name}.weight"] = (o, i)
        want[f"{name}.bias"] = (o,)
    if set(shapes) != set(want):
        raise AgentFileError(f"{path}: tensors {sorted(shapes)} do not match the architecture, "
                             f"which needs {sorted(want)}")
    for k, shape in want.items():
        if tuple(shapes[k]) != shape:
            raise AgentFileError(f"{path}: tensor {k} has shape {tuple(shapes[k])}, the metadata "
                                 f"(observation {dims[0]}, hidden {hidden}, actions {dims[-1]}) needs {shape}")


def check_rules(path: str | os.PathLike, meta: dict[str, Any], rules: Rules) -> None:
    """Raise :class:`AgentFileError` if the file was made for other rules (naming the options that differ)."""
    why = rules_mismatch(path, meta, rules, "agent file")
    if why is not None:
        raise AgentFileError(why)
    if int(meta["observation_size"]) != O.size(rules) or int(meta["n_actions"]) != n_actions(rules):
        raise AgentFileError(f"{path}: sizes (observation {meta['observation_size']}, actions {meta['n_actions']}) "
                             f"differ from these rules' ({O.size(rules)}, {n_actions(rules)})")


# --------------------------------------------------------------------------- the agent
_BLAS: ThreadpoolController | None = None
_BLAS_USERS = 0                    # contexts open now (any thread): the limit is set by the first, lifted by the last
_BLAS_LOCK = threading.Lock()
_BLAS_LIMIT: Any = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A context in which NumPy's BLAS uses one thread.

    The policy networks are small (a few hundred units): OpenBLAS splitting their products
    over threads spins when the other cores are busy, so on the 2-core development machine
    with one other job running a 256-unit policy took 12 ms a call of 40 rows with the default
    threads and 0.24 ms with one (and one thread is as fast on an idle machine).

    Setting the limit costs about 0.15 ms (threadpoolctl asks every BLAS library), as much as a
    product of 40 rows, so contexts nest: one held around many calls (the search agent's
    rollouts) makes those inside it free. The limit is process-wide, held while any context is open."""
    global _BLAS, _BLAS_USERS, _BLAS_LIMIT
    with _BLAS_LOCK:
        if _BLAS_USERS == 0:
            if _BLAS is None:
                _BLAS = ThreadpoolController()
            _BLAS_LIMIT = _BLAS.limit(limits=1, user_api="blas")
        _BLAS_USERS += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS -= 1
            if _BLAS_USERS == 0:
                _BLAS_LIMIT.restore_original_limits()
                _BLAS_LIMIT = None


class FileAgent(PolicyAgent):
    """A policy network read from an agent file, run in NumPy; illegal actions are never chosen."""

    def __init__(self, path: str | os.PathLike, rules: Rules, deterministic: bool = True,
                 name: str | None = None) -> None:
        super().__init__(path, rules, deterministic, name)
        self.metadata, tensors = read_agent_file(self.path)
        check_rules(self.path, self.metadata, rules)
        n = len(self.metadata["architecture"]["hidden"])
        names = [f"hidden.{i}" for i in range(n)] + ["action"]
        self.layers = [(tensors[f"{k}.weight"].astype(np.float32), tensors[f"{k}.bias"].astype(np.float32))
                       for k in names]
        self._act_fn = ACTIVATIONS[self.metadata["architecture"]["activation"]]

    def logits(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """(N, A) action logits (before masking), float32 as the network computes them."""
        x = np.asarray(obs, dtype=np.float32)
        # an overflow shows as non-finite logits (PolicyError)
        with np.errstate(over="ignore", invalid="ignore"), one_blas_thread():
            for w, b in self.layers[:-1]:
                x = self._act_fn(x @ w.T + b)
            w, b = self.layers[-1]
            return x @ w.T + b


# --------------------------------------------------------------------------- export
def sb3_layers(state_dict: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy layers of an SB3 ``MlpPolicy`` state dict: ``mlp_extractor.policy_net.*`` then ``action_net``."""
    pattern = re.compile(r"mlp_extractor\.policy_net\.(\d+)\.weight$")
    idx = sorted({int(m.group(1)) for k in state_dict if (m := pattern.match(k))})
    layers = []
    for i in idx:
        layers.append((_np(state_dict[f"mlp_extractor.policy_net.{i}.weight"]),
                       _np(state_dict[f"mlp_extractor.policy_net.{i}.bias"])))
    if "action_net.weight" not in state_dict:
        raise AgentFileError("the policy has no action_net: not a stable-baselines3 actor-critic MLP policy")
    layers.append((_np(state_dict["action_net.weight"]), _np(state_dict["action_net.bias"])))
    return layers


def _np(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def _sb3_activation(path: Path, data_json: dict[str, Any]) -> str:
    """The activation of an SB3 policy from the plain-text class name in its ``data`` (never unpickled)."""
    kwargs = data_json.get("policy_kwargs") or {}
    if isinstance(kwargs, dict) and ":serialized:" in kwargs:
        text = str(kwargs.get(":type:", "")) + " " + str(kwargs)
    else:
        text = json.dumps(kwargs.get("activation_fn", "")) if isinstance(kwargs, dict) else ""
    found = [name for cls, name in _SB3_ACTIVATIONS.items() if re.search(rf"\b{cls}\b", text)]
    if "activation_fn" not in text:
        return "tanh"  # SB3's default for PPO and MaskablePPO
    if len(found) != 1:
        raise AgentFileError(f"{path}: cannot tell the policy's activation from its data ({text[:120]!r})")
    return found[0]


MAX_MEMBER_BYTES = 1 << 30   # a member of a model zip read by export (policy.pth of a large network is ~100 MB)


def _member(zip_path: Path, zf: zipfile.ZipFile, name: str) -> bytes:
    """A zip member's bytes, refused when it would unpack to more than :data:`MAX_MEMBER_BYTES`."""
    if zf.getinfo(name).file_size > MAX_MEMBER_BYTES:
        raise AgentFileError(f"{zip_path}: member {name} unpacks to more than {MAX_MEMBER_BYTES} bytes: refused")
    return zf.read(name)


def export_sb3_zip(zip_path: str | os.PathLike, out: str | os.PathLike, rules: Rules | None = None,
                   made_by: dict[str, Any] | None = None, dtype: str = "float32") -> Path:
    """Convert an SB3 model zip to an agent file without unpickling anything; return the written path.

    ``rules`` defaults to the zip's ``president.json``. ``made_by`` adds to (and wins over) the
    provenance read from it. ``dtype`` as in :func:`write_agent_file`.
    """
    import torch

    zip_path = Path(zip_path)
    if not zip_path.is_file():
        raise FileNotFoundError(f"model file {str(zip_path)!r} not found")
    try:
        with zipfile.ZipFile(zip_path) as zf:
            names = zf.namelist()
            if "policy.pth" not in names:
                raise AgentFileError(f"{zip_path}: no policy.pth member: not a stable-baselines3 model zip")
            policy_raw = _member(zip_path, zf, "policy.pth")
            data_json = loads(_member(zip_path, zf, "data")) if "data" in names else {}
            meta = loads(_member(zip_path, zf, "president.json")) if "president.json" in names else None
    except zipfile.BadZipFile as e:
        raise AgentFileError(f"{zip_path}: not a readable zip ({e})") from None
    except JSONInputError as e:
        raise AgentFileError(f"{zip_path}: a JSON member is corrupt ({e})") from None
    if not isinstance(data_json, dict) or (meta is not None and not isinstance(meta, dict)):
        raise AgentFileError(f"{zip_path}: its data or president.json member is not a JSON object")
    if rules is None:
        if meta is None or "rules" not in meta:
            raise AgentFileError(f"{zip_path}: no president.json with the rules; give the rules (--preset)")
        try:
            rules = Rules.from_dict(meta["rules"])
        except (RulesError, TypeError, ValueError) as e:
            raise AgentFileError(f"{zip_path}: the rules in president.json are not valid ({e})") from None
    import io

    try:
        state = torch.load(io.BytesIO(policy_raw), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - the restricted reader refuses anything but tensors
        raise AgentFileError(f"{zip_path}: policy.pth holds more than tensors, refused: reading it would run code "
                             f"from the file ({refusal_words(e)})") from None
    try:
        layers = sb3_layers(state)
    except (KeyError, TypeError, AttributeError) as e:
        raise AgentFileError(f"{zip_path}: policy.pth is not the state of an SB3 MLP policy ({type(e).__name__}: "
                             f"{str(e)[:100]})") from None
    provenance = {k: meta[k] for k in ("timesteps", "preset", "command", "seed", "code_version")
                  if meta and k in meta}
    provenance.setdefault("preset", rules.name)
    provenance["exported_from"] = zip_path.name
    provenance.update(made_by or {})
    provenance.setdefault("code_version", code_version())
    return write_agent_file(out, rules, layers, activation=_sb3_activation(zip_path, data_json), made_by=provenance,
                            dtype=dtype)
