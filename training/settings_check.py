"""Training settings checked by type and range (``--set NAME=VALUE``): a wrong value is named, never clamped.

Each settings table (:class:`training.hyperparams.TrainSettings`,
:class:`training.rllib_train.RllibSettings`) has a :class:`Setting` per field saying what
values it takes; :func:`check_overrides` checks overrides against them and returns them in
the field's own type (a list of layer sizes becomes a tuple). Numbers must be finite; a count
has an upper bound; ``null`` is a value only where the setting allows it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """What one setting takes: ``kind`` is ``bool`` (``true`` or ``false``), ``int``, ``float``, ``str``, ``ints``
    (a list of integers, each ``low..high``, at most ``most`` of them) or ``weights`` (an object of names from
    ``choices`` to finite numbers ``low..high``); ``choices`` limits a ``str`` (``None`` among them allows ``null``)."""

    kind: str
    low: float = -math.inf
    high: float = math.inf
    choices: tuple[Any, ...] | None = None
    most: int = 16

    def describe(self) -> str:
        """The values it takes, in words."""
        span = f"{self.low:g}..{self.high:g}"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "int":
            return f"an integer {span}"
        if self.kind == "float":
            return f"a finite number {span}"
        if self.kind == "str":
            return "one of " + ", ".join(json.dumps(c) for c in self.choices) if self.choices else "a string"
        if self.kind == "ints":
            return f"a list of 1 to {self.most} integers {span}"
        names = f" ({', '.join(self.choices)})" if self.choices else ""
        return f"an object of names{names} to finite weights {span}"

    def check(self, name: str, value: Any) -> Any:
        """``value`` in the setting's type, or ``ValueError`` naming ``name``, the value and what it takes."""
        ok = self._checked(value)
        if ok is _BAD:
            shown = json.dumps(value, default=str) if _jsonable(value) else repr(value)
            raise ValueError(f"setting {name}={shown[:120]}: expected {self.describe()}")
        return ok

    def _checked(self, value: Any) -> Any:  # noqa: C901 - one branch per kind
        if self.kind == "bool":
            return value if isinstance(value, bool) else _BAD
        if self.kind == "int":
            return value if _is_int(value) and self.low <= value <= self.high else _BAD
        if self.kind == "float":
            if not _is_number(value) or not math.isfinite(value) or not self.low <= value <= self.high:
                return _BAD
            return float(value)
        if self.kind == "str":
            if self.choices is not None:
                return value if value in self.choices and (value is None or isinstance(value, str)) else _BAD
            return value if isinstance(value, str) and value else _BAD
        if self.kind == "ints":
            if not isinstance(value, list | tuple) or not 1 <= len(value) <= self.most:
                return _BAD
            if not all(_is_int(v) and self.low <= v <= self.high for v in value):
                return _BAD
            return tuple(value)
        if self.kind == "weights":
            if not isinstance(value, Mapping) or not value:
                return _BAD
            for k, v in value.items():
                if (self.choices is not None and k not in self.choices) or not _is_number(v) \
                        or not math.isfinite(v) or not self.low <= v <= self.high:
                    return _BAD
            return {k: float(v) for k, v in value.items()}
        raise AssertionError(f"unknown kind {self.kind!r}")


_BAD = object()


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def check_overrides(what: str, specs: Mapping[str, Setting], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` checked against ``specs`` (``what`` names the table in the message of an unknown name)."""
    unknown = sorted(set(overrides) - set(specs))
    if unknown:
        raise ValueError(f"unknown {what} setting(s) {unknown}; settings are {sorted(specs)}")
    return {name: specs[name].check(name, value) for name, value in overrides.items()}
