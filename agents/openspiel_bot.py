"""``ismcts``: OpenSpiel's MCTS over resampled worlds (determinized MCTS), as an agent.

For each decision with more than one legal action the agent

1. deals the hidden cards again ``worlds`` times, consistent with its observation
   (:func:`president_env.core.resample.worlds_from_observation`: it sees only its observation);
2. turns each world into a state of the OpenSpiel game of one hand
   (:meth:`president_env.openspiel.PresidentGame.state_from_core`), the observer as player 0;
3. runs OpenSpiel's ``open_spiel.python.algorithms.mcts.MCTSBot`` (UCT, random rollouts to the
   hand's end, every player maximising its own points) for ``sims / worlds`` simulations on each;
4. plays the legal action with the most root visits summed over the worlds (ties: the higher
   summed value, then the lower action id).

This is information-set search by determinization: OpenSpiel's C++ ``ISMCTSBot`` does not run
on a Python game (it crashes the interpreter on :class:`PresidentGame`), so the information
set is sampled here instead. Randomness (the worlds, MCTS's tie breaks and rollouts) comes from
the ``rng`` that :meth:`Agent.act` receives: the same seed and observations give the same actions.
Settings come from the spec: ``ismcts:sims=200,worlds=8,uct=2,rollouts=1``.

OpenSpiel is optional: building the agent without it raises ``ImportError`` naming
``pip install -e ".[openspiel]"``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from president_env.core import Rules
from president_env.core.resample import worlds_from_observation

from .base import Agent

NAME = "ismcts"
#: setting -> (type, default, lowest allowed, highest allowed, meaning)
SETTINGS: dict[str, tuple[type, float, float, float, str]] = {
    "sims": (int, 24, 1, 100_000, "MCTS simulations per decision, over all worlds"),
    "worlds": (int, 4, 1, 1024, "deals of the hidden cards per decision (each gets sims / worlds simulations)"),
    "uct": (float, 2.0, 0.0, 1e6, "UCT exploration constant"),
    "rollouts": (int, 1, 1, 1000, "random rollouts to the hand's end per leaf"),
}


@dataclass
class BotStats:
    """Counters since the agent was built: decisions, decisions searched, simulations, CPU time."""

    decisions: int = 0
    searched: int = 0
    simulations: int = 0
    cpu_seconds: float = 0.0


def parse_settings(text: str) -> dict[str, float]:
    """``"sims=200,worlds=8"`` -> settings; an unknown name or a bad value raises ``ValueError`` naming it."""
    out: dict[str, float] = {}
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"{NAME} setting {item!r} must be NAME=VALUE; settings: {', '.join(SETTINGS)}")
        name, value = (x.strip() for x in item.split("=", 1))
        if name not in SETTINGS:
            raise ValueError(f"unknown {NAME} setting {name!r}; settings: {', '.join(SETTINGS)}")
        kind = SETTINGS[name][0]
        if len(value) > 24:
            raise ValueError(f"{NAME} setting {name}: {value[:24]!r}... is too long")
        try:
            out[name] = kind(value)
        except ValueError:
            raise ValueError(f"{NAME} setting {name}={value!r} is not {'an integer' if kind is int else 'a number'}"
                             ) from None
    return out


def _import_openspiel():  # noqa: ANN202 - modules
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts

        from president_env import openspiel as president_openspiel
    except ImportError as exc:
        raise ImportError(f'the {NAME} agent needs OpenSpiel (the open-spiel package); install it with '
                          'pip install -e ".[openspiel]"') from exc
    return pyspiel, mcts, president_openspiel


class _TerminalRewards:
    """The one-hand game as ``MCTSBot`` wants it: a hand's points come only at its end, so its
    rewards are terminal (``MCTSBot`` checks the game type's reward model and nothing else)."""

    def __init__(self, game, pyspiel) -> None:  # noqa: ANN001 - a PresidentGame, the module
        self._game = game
        t = game.get_type()
        self._type = pyspiel.GameType(
            short_name=t.short_name, long_name=t.long_name, dynamics=t.dynamics, chance_mode=t.chance_mode,
            information=t.information, utility=t.utility, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=t.max_num_players, min_num_players=t.min_num_players,
            provides_information_state_string=True, provides_information_state_tensor=True,
            provides_observation_string=True, provides_observation_tensor=True,
            parameter_specification=game.get_parameters())

    def get_type(self):  # noqa: ANN201
        return self._type

    def max_utility(self) -> float:
        return self._game.max_utility()


class OpenSpielMCTSAgent(Agent):
    """OpenSpiel's MCTS over resampled worlds; see the module doc."""

    name = NAME
    deterministic = False

    def __init__(self, rules: Rules, sims: int = 24, worlds: int = 4, uct: float = 2.0, rollouts: int = 1,
                 name: str | None = None) -> None:
        super().__init__(rules)
        for key, value in (("sims", sims), ("worlds", worlds), ("uct", uct), ("rollouts", rollouts)):
            kind, _, low, high, _ = SETTINGS[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or (
                    kind is int and (not np.isfinite(value) or value != int(value))):
                raise ValueError(f"{NAME} setting {key} must be {'an integer' if kind is int else 'a number'}, "
                                 f"got {value!r}")
            if not np.isfinite(value) or not low <= value <= high:
                raise ValueError(f"{NAME} setting {key} must be {low:g}..{high:g}, got {value!r}")
        if worlds > sims:
            raise ValueError(f"{NAME} settings worlds={worlds} > sims={sims}: each world needs a simulation")
        self.sims, self.worlds, self.uct, self.rollouts = int(sims), int(worlds), float(uct), int(rollouts)
        self._pyspiel, self._mcts, pos = _import_openspiel()
        self.game = pos.PresidentGame.from_rules(rules, episode="hand")
        self._bot_game = _TerminalRewards(self.game, self._pyspiel)
        self.stats = BotStats()
        if name:
            self.name = name

    def report(self) -> str:
        """One line on the work done so far: decisions, simulations, CPU time per decision."""
        s = self.stats
        per = 1e3 * s.cpu_seconds / max(s.decisions, 1)
        per_searched = 1e3 * s.cpu_seconds / max(s.searched, 1)
        return (f"{self.name}: {s.decisions} decisions ({s.searched} searched), {s.simulations} simulations, "
                f"{per:.1f} ms CPU a decision ({per_searched:.1f} ms a searched one)")

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        t0 = time.process_time()
        try:
            out = np.argmax(mask, axis=1).astype(np.int64)
            self.stats.decisions += obs.shape[0]
            for r in np.flatnonzero(mask.sum(axis=1) > 1):
                out[r] = self._choose(obs[r:r + 1], mask[r], rng)
            return out
        finally:
            self.stats.cpu_seconds += time.process_time() - t0

    def _choose(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        """The action of one observation row: root visits of MCTS summed over resampled worlds."""
        A = mask.shape[0]
        visits = np.zeros(A, dtype=np.float64)
        value = np.zeros(A, dtype=np.float64)
        worlds = worlds_from_observation(self.rules, obs, self.worlds, rng)
        seeds = rng.integers(0, 2**31 - 1, size=(self.worlds, 2))
        base, extra = divmod(self.sims, self.worlds)
        for w in range(self.worlds):
            state = self.game.state_from_core(worlds, w)
            n = base + (1 if w < extra else 0)
            evaluator = self._mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(int(seeds[w, 0])))
            bot = self._mcts.MCTSBot(self._bot_game, self.uct, n, evaluator,
                                     random_state=np.random.RandomState(int(seeds[w, 1])))
            root = bot.mcts_search(state)
            for child in root.children:
                visits[child.action] += child.explore_count
                value[child.action] += child.total_reward
            self.stats.simulations += n
        self.stats.searched += 1
        visits[~mask] = -1.0
        legal = np.flatnonzero(mask)
        best = legal[np.lexsort((-value[legal], -visits[legal]))[0]] if visits.max() > 0 else legal[0]
        return int(best)
