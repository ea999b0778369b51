"""The agents a web request may name: by name only, never by a path on the server's disk.

A request names an opponent as one of

* ``random``, ``greedy``, ``heuristic``;
* ``zoo:NAME``, the zoo's agent for a preset;
* ``ppo:NAME`` or ``ppo-sample:NAME``, an agent file that the person who started the server
  put in a folder named on its command line (``president serve --agents-dir DIR``, the file
  ``DIR/NAME.agent.safetensors``); the files are read and checked when the server starts;
* ``search`` or ``search:SETTINGS`` within :data:`SEARCH_LIMITS` (its rollout ``policy`` one
  of the names above).

Anything else (``ppo:/etc/passwd``, ``ppo:../x``) is refused by its spec alone: no file is
opened. No refusal names a path on the server's disk or shows a byte of a file: an agent
file is named in messages by its spec, and a file that changed since the server started is
refused without saying how.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from agents.agent_file import SUFFIX, AgentFileError, FileAgent, read_agent_file
from agents.base import Agent
from agents.registry import MODEL_PREFIXES, SCRIPTED, SEARCH, ZOO_PREFIX
from agents.search import SearchAgent, parse_settings
from agents.zoo import zoo_names, zoo_path
from president_env.core import Rules

#: the most a web request's ``search`` may ask for (the command line allows far more): at most 256 rollouts a
#: decision (worlds x actions, or rollouts)
SEARCH_LIMITS = {"worlds": 32, "actions": 8, "rollouts": 256, "batch": 4096}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


class AgentRefused(ValueError):
    """An opponent spec the server does not play: the message says what it plays instead."""


class AgentShelf:
    """The server's agents by name: the scripted ones, the zoo, search, and the agent files of ``dirs``."""

    def __init__(self, dirs: Iterable[str | Path] = ()) -> None:
        self.files: dict[str, Path] = {}
        for d in dirs:
            folder = Path(d)
            if not folder.is_dir():
                raise AgentRefused(f"--agents-dir {folder}: not a folder")
            for path in sorted(folder.glob(f"*{SUFFIX}")):
                name = path.name[: -len(SUFFIX)]
                if not NAME.match(name) or not path.is_file():
                    continue
                if name in self.files:
                    raise AgentRefused(f"--agents-dir: two agent files named {name!r} ({self.files[name]}, {path})")
                read_agent_file(path)   # checked now; an error here is the operator's to see, with the path
                self.files[name] = path

    def names(self) -> list[str]:
        """The agent files by name, as a request names them (``ppo:NAME``)."""
        return [f"ppo:{n}" for n in self.files]

    def choices(self) -> str:
        files = ", ".join(self.names()) or "none (president serve --agents-dir DIR adds some)"
        return (f"{', '.join(SCRIPTED)}, zoo:NAME ({', '.join(zoo_names()) or 'none'}), search or "
                f"search:SETTINGS, and the agent files {files}")

    def build(self, spec: str, rules: Rules) -> Agent:
        """The agent ``spec`` names, for ``rules``; :class:`AgentRefused` (naming the spec, never a path) if not."""
        if not isinstance(spec, str) or not spec.strip() or len(spec) > 200:
            raise AgentRefused(f"an agent is named by a short text; choices: {self.choices()}")
        spec = spec.strip()
        prefix, sep, rest = spec.partition(":")
        prefix = prefix.lower()
        if not sep and prefix in SCRIPTED:
            return SCRIPTED[prefix](rules)
        if prefix == SEARCH:
            return self._search(spec, rest, rules)
        if sep and prefix == ZOO_PREFIX:
            try:
                path = zoo_path(rest)
            except ValueError as e:
                raise AgentRefused(str(e)) from None
            return self._file(spec, path, rules, deterministic=True)
        if sep and prefix in MODEL_PREFIXES:
            path = self.files.get(rest.strip())
            if path is None:
                raise AgentRefused(f"agent {spec[:100]!r}: the web page plays agent files by name from the folders "
                                   f"its server was started with (president serve --agents-dir), never by a path; "
                                   f"it has {', '.join(self.names()) or 'none'}")
            return self._file(spec, path, rules, deterministic=prefix == "ppo")
        raise AgentRefused(f"unknown agent {spec[:100]!r}; choices: {self.choices()}")

    @staticmethod
    def _file(spec: str, path: Path, rules: Rules, deterministic: bool) -> Agent:
        try:
            return FileAgent(path, rules, deterministic=deterministic, name=spec)
        except AgentFileError as e:
            why = str(e).replace(str(path), spec)
            if "made for other rules" in why or "sizes (observation" in why:
                raise AgentRefused(why) from None
            raise AgentRefused(f"{spec}: its agent file cannot be read now (it changed since the server started; "
                               "the server's operator can check it)") from None
        except OSError:
            raise AgentRefused(f"{spec}: its agent file cannot be read now (the server's operator can check it)"
                               ) from None

    def _search(self, spec: str, settings: str, rules: Rules) -> Agent:
        try:
            kwargs = parse_settings(settings)
        except ValueError as e:
            raise AgentRefused(f"agent {spec!r}: {e}") from None
        for key, most in SEARCH_LIMITS.items():
            if key in kwargs and kwargs[key] > most:  # type: ignore[operator]
                raise AgentRefused(f"agent {spec!r}: search setting {key} may be at most {most} on this server")
        policy = str(kwargs.pop("policy", "heuristic"))
        if policy.partition(":")[0].lower() == SEARCH:
            raise AgentRefused(f"agent {spec!r}: the rollout policy cannot be search itself")
        fallback = str(kwargs.pop("fallback", "heuristic"))
        if fallback.partition(":")[0].lower() == SEARCH:
            raise AgentRefused(f"agent {spec!r}: the fallback cannot be search itself")
        try:
            built_fallback = fallback if fallback in ("heuristic", "policy") else self.build(fallback, rules)
        except AgentRefused as e:
            raise AgentRefused(f"agent {spec!r}: fallback: {e}") from None
        if str(kwargs.get("belief", "uniform")) != "uniform":
            raise AgentRefused(f"agent {spec!r}: the web page deals a search's worlds uniformly (it does not hand "
                               "the agent the hand's plays), so belief must be uniform here")
        try:
            built = self.build(policy, rules)
            return SearchAgent(rules, policy=built, fallback=built_fallback, name=spec,  # type: ignore[arg-type]
                               **kwargs)
        except AgentRefused as e:
            raise AgentRefused(f"agent {spec!r}: rollout policy: {e}") from None
        except ValueError as e:
            raise AgentRefused(f"agent {spec!r}: {e}") from None
