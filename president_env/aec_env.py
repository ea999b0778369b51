"""The PettingZoo environment: President as an AEC game over the rules core's single-game engine.

.. code-block:: python

    import president_env

    env = president_env.env(preset="president", players=4, render_mode="ansi")
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

``president_env.env(...)`` wraps :class:`raw_env` as PettingZoo's classic
environments are (out-of-bounds check and call-order enforcement; with
``illegal_action="terminate"`` also PettingZoo's ``TerminateIllegalWrapper``).

Agents
    ``player_0`` .. ``player_{n-1}`` are *people*, not seats: with ``reseat`` they
    move seats between hands. The agent to act always comes from the core
    (passes, skips, finished players, the exchange's give-backs): there is no
    round-robin selector.

Options (keywords of :func:`env` and :class:`raw_env`)
    ``preset`` a preset name (see ``president_env.PRESETS``) or a :class:`Rules`;
    any rule option as a keyword overrides the preset (``players=5``).
    ``episode="session"`` (default: hands until the target points or the fixed
    number of hands) or ``"hand"`` (one hand: the rules get ``hands_per_session=1``).
    ``start_ranks=None`` (the first hand has no ranks and no exchange),
    ``"random"`` (random social ranks, so the exchange is played from hand one)
    or a list of finishing positions by player.
    ``reward="points"`` or ``"rank"`` (below). ``render_mode`` ``None``, ``"ansi"``
    (``render()`` returns the text) or ``"human"`` (printed after every step): the
    core's text table (``president_env.core.render``) seen by the agent to act,
    with only its own cards shown.

Actions
    ``Discrete(A)``: id 0 is pass, then one id per (play rank, size); during the
    exchange a size-1 id gives back one card of that rank. The table is
    ``president_env.core.action_table(rules).rows()`` (``describe_action`` gives
    an id in words). An illegal action raises :class:`IllegalActionError` naming
    the agent, the action and the legal ids; with ``env(illegal_action="terminate",
    illegal_reward=-1)`` the game ends instead and the offender gets the penalty.

Observation
    A dict: ``observation`` a float32 vector, ``action_mask`` an int8 vector of
    length A (all zero except for the agent to act). The vector holds what a
    player at the table knows and nothing more. Its pieces come from
    :func:`president_env.core.observation.layout` (exposed here as
    :func:`observation_table`); per-seat pieces are by seat *relative to the
    observer* in the direction of play (entry 0 is the observer). Offsets depend
    on the rules; for the ``president`` preset with 4 players (D = 103, A = 53):

    | piece | offset | length | meaning |
    |---|---|---|---|
    | `hand` | 0 | 13 | own cards, count per kind |
    | `played` | 13 | 13 | cards played this hand, count per kind |
    | `top_rank` | 26 | 14 | one-hot play rank on top; last entry = nothing on top |
    | `top_size` | 40 | 4 | one-hot size of the play on top |
    | `top_owner` | 44 | 4 | one-hot relative seat that made the play on top |
    | `top_wild` | 48 | 1 | the play on top contains wild cards |
    | `top_count` | 49 | 1 | cards of the top's rank in consecutive plays this trick |
    | `leading` | 50 | 1 | observer to act with nothing on top |
    | `my_turn` | 51 | 1 | observer to act |
    | `card_counts` | 52 | 4 | cards held, by relative seat |
    | `passed` | 56 | 4 | passed / locked out / had its turn this trick, by relative seat |
    | `finished` | 60 | 4 | finishing position + 1 this hand (0 = playing), by relative seat |
    | `social` | 64 | 4 | last hand's position + 1 (0 = none), by relative seat |
    | `points` | 68 | 4 | session points, by relative seat |
    | `revolution` | 72 | 1 | rank order reversed |
    | `direction` | 73 | 1 | +1 normal direction of play, -1 reversed |
    | `phase` | 74 | 3 | one-hot exchange, play, session over |
    | `exch_given` | 77 | 13 | cards given in this hand's exchange, per kind |
    | `exch_received` | 90 | 13 | cards received in this hand's exchange, per kind |

Rewards
    At the end of *every* hand each agent receives a reward from its own finishing
    position in that hand (whether it went out long before or not); nothing
    otherwise. ``reward="points"`` (default): the rule book's points for the
    position (``rules.points``; President +2, Vice-President +1, Vice-Scum -1,
    Scum -2, others 0 with the default scoring), the same numbers as the core's
    ``state.hand_points``. ``reward="rank"``: a normalised rank, ``1 - 2 *
    position / (players - 1)``: +1 for first, -1 for last, evenly spaced between.
    The hand that just ended is also in ``infos[agent]`` (``hand_position``,
    ``hand_points``) for the step that ended it.

Seeding
    ``reset(seed=s)`` derives the game's key as ``core.make_keys(1, s)``, so the
    same seed gives the same game here, in ``training.gym_env`` and in game 0 of
    ``training.vec_env`` (whose game i has ``make_keys(B, s)[i]``). A later
    ``reset()`` without a seed draws the next key from the same generator.

Given deals
    ``reset(seed=s, options={"deal": {"player_0": ["3C", "7H", ...], ...}})``
    starts the session from that deal (card names as in the rule book; ``10``
    may be written for ``T``). The deal must name every agent and split the pack
    exactly as a deal does: every card to exactly one player, hands of
    ``C // P`` or ``C // P + 1`` cards. Anything else raises ``ValueError``.
    Other keys of ``options`` are ignored (as Gymnasium's and PettingZoo's envs
    ignore options they do not know; PettingZoo's ``api_test`` passes one).
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .core import (
    OVER,
    PRESETS,
    IllegalActionError,
    Rules,
    RulesError,
    State,
    describe_action,
    make_keys,
    n_actions,
    tables,
)
from .core import observation as O
from .core import preset as make_preset
from .core.cards import card_index
from .core.render import render as core_render
from .core.scalar import ScalarGame

__all__ = [
    "env", "raw_env", "make_rules", "observation_table", "format_observation_table", "observation_bounds",
    "observation_box", "hand_rewards", "render_text", "REWARD_SCHEMES", "EPISODES",
]

REWARD_SCHEMES = ("points", "rank")
EPISODES = ("session", "hand")


# --------------------------------------------------------------------------- shared helpers
def check_arguments(where: str, env_args: Iterable[str], rule_overrides: Mapping[str, Any],
                    reset_args: Iterable[str] = ("seed", "options")) -> None:
    """Refuse keywords that are neither ``where``'s own arguments nor rule options, naming them as such.

    ``seed`` and ``options`` belong to ``reset``; saying so beats listing the rule options for them.
    """
    from .core.rules import OPTION_NAMES

    unknown = [k for k in rule_overrides if k not in OPTION_NAMES]
    if not unknown:
        return
    late = [k for k in unknown if k in reset_args]
    hint = f"; {', '.join(late)} {'goes' if len(late) == 1 else 'go'} to reset({late[0]}=...)" if late else ""
    raise RulesError(f"{where}: unknown argument(s) {unknown}{hint}; its arguments are {', '.join(env_args)} "
                     f"and the rule options ({', '.join(n for n in OPTION_NAMES if n != 'name')})")


def env_arguments(init: Callable[..., Any]) -> tuple[str, ...]:
    """The named parameters of an env's ``__init__`` (not ``self``, not its ``**rule_overrides``)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(n for n, p in inspect.signature(init).parameters.items() if p.kind in kinds and n != "self")


def make_rules(preset: str | Rules = "president", episode: str = "session", **rule_overrides: Any) -> Rules:
    """The rules an environment plays: a preset (or a Rules) with overrides, one hand when ``episode="hand"``."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    if isinstance(preset, Rules):
        rules = preset.replace(**rule_overrides) if rule_overrides else preset
    elif isinstance(preset, str):
        rules = make_preset(preset, **rule_overrides)
    else:
        raise TypeError(f"preset must be a preset name (one of {', '.join(PRESETS)}) or a Rules, got {preset!r}")
    if episode == "hand":
        rules = rules.replace(hands_per_session=1)
    return rules


def observation_table(rules: Rules) -> tuple[tuple[str, int, int, str], ...]:
    """The observation index table: (piece, offset, length, meaning) rows, from the core's layout."""
    return O.layout(rules)


def format_observation_table(rules: Rules) -> str:
    """The observation index table as a Markdown table."""
    rows = ["| piece | offset | length | meaning |", "|---|---|---|---|"]
    rows += [f"| `{name}` | {off} | {n} | {meaning} |" for name, off, n, meaning in observation_table(rules)]
    return "\n".join(rows)


def _points_bounds(rules: Rules) -> tuple[float, float]:
    pts = np.array(rules.points)
    if rules.hands_per_session is not None:
        h = rules.hands_per_session
        return float(min(0, h * pts.min())), float(max(0, h * pts.max()))
    hi = rules.target_points - 1 + max(int(pts.max()), 0)
    if pts.sum() >= 0:  # the session total never falls, so nobody is below -(others' totals)
        return float(-(rules.players - 1) * hi), float(hi)
    return -np.inf, float(hi)


def observation_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) float32 bounds of the observation vector, piece by piece."""
    t = tables(rules)
    P, C = rules.players, t.n_cards
    per_kind = float(t.kind_count.max())
    plo, phi = _points_bounds(rules)
    known = {
        "hand": (0, per_kind), "played": (0, per_kind), "exch_given": (0, per_kind), "exch_received": (0, per_kind),
        "top_count": (0, C), "single_row": (0, C), "clear_count": (0, rules.max_set), "card_counts": (0, C),
        "finished": (0, P), "social": (0, P), "top_run": (0, len(rules.rank_order) + 1),
        "top_run_low": (0, len(rules.rank_order) + 1), "pass_run": (0, rules.pass_limit or 0),
        "points": (plo, phi), "direction": (-1, 1),
    }
    D = O.size(rules)
    low, high = np.zeros(D, np.float32), np.ones(D, np.float32)
    for name, off, n, _ in O.layout(rules):
        lo, hi = known.get(name, (0, 1))
        low[off:off + n], high[off:off + n] = lo, hi
    return low, high


def observation_box(rules: Rules) -> gymnasium.spaces.Box:
    """The Box of the observation vector."""
    low, high = observation_bounds(rules)
    return gymnasium.spaces.Box(low=low, high=high, dtype=np.float32)


def hand_rewards(rules: Rules, state: State, scheme: str = "points") -> np.ndarray:
    """(B, P) float32 rewards by player for the hands the last step ended (zero in other games)."""
    if scheme == "points":
        return state.hand_points.astype(np.float32)
    if scheme == "rank":
        P = rules.players
        r = 1.0 - 2.0 * state.last_finish.astype(np.float32) / (P - 1)
        return np.where(state.hand_over[:, None], r, np.float32(0)).astype(np.float32)
    raise ValueError(f"reward scheme must be one of {REWARD_SCHEMES}, got {scheme!r}")


def deal_from_names(rules: Rules, deal: dict[str, list[str]], agents: list[str]) -> np.ndarray:
    """A {agent: [card names]} deal as a (1, P, C) bool array by player, checked to be a deal of the pack."""
    if not isinstance(deal, dict):
        raise ValueError(f"options['deal'] must be a dict {{agent: [card names]}}, got {type(deal).__name__}")
    unknown = [a for a in deal if a not in agents]
    missing = [a for a in agents if a not in deal]
    if unknown or missing:
        raise ValueError(f"options['deal'] must name every agent exactly once: unknown {unknown}, missing {missing}")
    t = tables(rules)
    names = np.array(t.card_names)
    C, P = t.n_cards, rules.players
    taken = np.zeros(C, dtype=bool)
    out = np.zeros((1, P, C), dtype=bool)
    for p, agent in enumerate(agents):
        cards = deal[agent]
        if isinstance(cards, str):
            cards = cards.split()
        for raw in cards:
            first = int(np.flatnonzero(card_index(rules, [raw]))[0])  # raises on an unknown card
            free = np.flatnonzero((names == names[first]) & ~taken)
            if free.size == 0:
                raise ValueError(f"options['deal']: card {raw!r} is dealt more often than the pack holds it")
            taken[free[0]] = True
            out[0, p, free[0]] = True
    if not taken.all():
        absent = sorted({str(n) for n in names[~taken]})
        raise ValueError(f"options['deal'] is not a split of the pack: cards not dealt {absent}")
    sizes = out[0].sum(axis=1)
    base, extra = divmod(C, P)
    if not (((sizes == base) | (sizes == base + 1)).all() and (sizes == base + 1).sum() == extra):
        raise ValueError(
            f"options['deal'] is not a valid deal: {P} players share {C} cards as {base} each"
            f" ({extra} of them one more), got hand sizes {dict(zip(agents, sizes.tolist(), strict=True))}"
        )
    return out


def render_text(rules: Rules, state: State, game: int = 0, viewer: int | None = None) -> str:
    """A text table of one game: the pile, every seat's count and status, only ``viewer``'s cards."""
    return core_render(rules, state, game=game, viewer=viewer)


# --------------------------------------------------------------------------- the AEC env
class raw_env(AECEnv):
    """President for PettingZoo (AEC API), one game on the core's single-game engine. See the module doc.

    The game is ``self.game``, a :class:`~president_env.core.scalar.ScalarGame` (a batch of one,
    stepped by the compiled rules). ``self.core_state`` is the same game as a batch-of-one
    :class:`State`: a snapshot built when first read after a step (reading it costs tens of
    microseconds; changing its arrays does not change the game). Assigning a State to
    ``core_state`` replaces the game with that position.
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "president_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(
        self,
        preset: str | Rules = "president",
        render_mode: str | None = None,
        *,
        episode: str = "session",
        start_ranks: str | list[int] | None = None,
        reward: str = "points",
        **rule_overrides: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {reward!r}")
        if not (start_ranks is None or start_ranks == "random" or not isinstance(start_ranks, str)):
            raise ValueError(f"start_ranks must be None, 'random' or positions by player, got {start_ranks!r}")
        check_arguments("president_env.env", env_arguments(raw_env.__init__), rule_overrides)
        self.rules = make_rules(preset, episode, **rule_overrides)
        self.episode, self.reward_scheme, self.render_mode = episode, reward, render_mode
        self._start_ranks = None if start_ranks is None or start_ranks == "random" else np.asarray(start_ranks)[None]
        self._random_ranks = start_ranks == "random"
        P, A = self.rules.players, n_actions(self.rules)
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = gymnasium.spaces.Dict({
            "observation": observation_box(self.rules),
            "action_mask": gymnasium.spaces.Box(0, 1, (A,), dtype=np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: gymnasium.spaces.Discrete(A) for a in self.possible_agents}
        self._n_actions = A
        # reward="rank" by finishing position, computed as hand_rewards does (float32)
        self._rank_rewards = [float(x) for x in 1.0 - 2.0 * np.arange(P, dtype=np.float32) / (P - 1)]
        self._zero_mask = bytes(A)
        self._key_rng: np.random.Generator | None = None
        self.game: ScalarGame | None = None
        self._snapshot: State | None = None
        self.agents = []

    # -- spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # -- the core state
    @property
    def core_state(self) -> State | None:
        """The game as a batch-of-one core :class:`State` (a snapshot; None before ``reset``)."""
        if self._snapshot is None and self.game is not None:
            self._snapshot = self.game.to_state()
        return self._snapshot

    @core_state.setter
    def core_state(self, state: State) -> None:
        self.game = ScalarGame.from_state(self.rules, state)
        self._snapshot = None

    # -- the game
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._key_rng is None:
            self._key_rng = np.random.default_rng(seed)
        keys = make_keys(1, self._key_rng)
        deal = None
        if options:  # other keys are ignored, as Gymnasium and PettingZoo envs do (PettingZoo's api_test sends one)
            if options.get("deal") is not None:
                deal = deal_from_names(self.rules, options["deal"], self.possible_agents)
        start = "random" if self._random_ranks else self._start_ranks
        self.game = ScalarGame.new(self.rules, keys=keys, start_ranks=start, deal=deal)
        self._snapshot = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._infos_dirty = False
        self.agent_selection = self.possible_agents[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def _current(self) -> int:
        return self.game.current_player

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g = self.game
        p = self._index[agent]
        if g.phase != OVER and g.current_player == p:
            mask = g.state.legal[0].view(np.int8).copy()
        else:
            mask = np.zeros(self._n_actions, dtype=np.int8)
        return {"observation": g.observe(p), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        if type(action) is not int:
            try:
                action = operator.index(action)
            except TypeError:
                raise IllegalActionError(
                    f"{agent}: action must be an integer action id 0..{self._n_actions - 1}, got {action!r}"
                ) from None
        if not (0 <= action < self._n_actions and g.state.legal[0, action]):
            self._illegal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        g.step(action)
        self._snapshot = None
        if self._infos_dirty:
            self.infos = {a_: {} for a_ in self.agents}
            self._infos_dirty = False
        agents = self.possible_agents
        if g.hand_over:
            if self.reward_scheme == "points":
                r = [float(x) for x in g.hand_points]
            else:
                r = [self._rank_rewards[pos] for pos in g.last_finish]
            self.rewards = dict(zip(agents, r, strict=True))
            for i, ag in enumerate(agents):
                self.infos[ag] = {"hand_position": g.last_finish[i], "hand_points": g.hand_points[i]}
            self._infos_dirty = True
            self._accumulate_rewards()
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)  # nothing to accumulate
        if g.phase == OVER:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = agents[g.current_player]
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, a: int) -> None:
        A = self._n_actions
        g = self.game
        ex = g.phase == 0
        what = describe_action(self.rules, a, exchange=ex) if 0 <= a < A else "out of range"
        raise IllegalActionError(
            f"{agent}: illegal action {a} ({what}); legal: "
            f"{ {i: describe_action(self.rules, i, exchange=ex) for i in g.legal} }"
        )

    # -- output
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'human'")
            return None
        if self.game is None:
            raise RuntimeError("render() called before reset()")
        viewer = self._index[self.agent_selection] if self.agents else None
        text = render_text(self.rules, self.core_state, 0, viewer)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass


def env(
    preset: str | Rules = "president",
    render_mode: str | None = None,
    *,
    illegal_action: str = "raise",
    illegal_reward: float = -1.0,
    **kwargs: Any,
) -> AECEnv:
    """President for PettingZoo, wrapped as PettingZoo's classic envs are. See :class:`raw_env` for options.

    ``illegal_action="raise"`` (default) raises on an illegal action; ``"terminate"`` adds PettingZoo's
    ``TerminateIllegalWrapper``: the game ends and the offender gets ``illegal_reward``.
    """
    e: AECEnv = raw_env(preset, render_mode=render_mode, **kwargs)
    if illegal_action == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    elif illegal_action != "raise":
        raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e

