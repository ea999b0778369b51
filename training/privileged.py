"""A critic that sees the whole deal while the actor sees only its observation (``privileged_critic``).

Asymmetric actor-critic, as PerfectDou and Suphx train: the value of a position is easier to learn from
every hand than from one, and the value is needed only during training, so it may see what no player
sees. The actor, which is what plays and what the agent file holds, still sees only its observation.

With the setting on, the model's observation is ``[obs, privileged]``: the player's ordinary
observation (``D`` columns) followed by :func:`privileged_features` (``(P - 1) * K`` columns): the cards
each other seat holds, count per kind (the observation's kinds), by relative seat (entry ``j`` is the seat
``j`` places after the player in the rules' direction of play, as the observation's per-seat pieces are),
each count divided by the number of cards of that kind in the deck. :class:`PrivilegedCriticPolicy`
(a ``MaskableActorCriticPolicy``) gives its actor the first ``D`` columns only and its critic all of them,
so its ``mlp_extractor.policy_net`` and ``action_net`` have the ordinary shapes and the agent file
written from it (``train.save_both``) is the actor alone: ``ppo:FILE`` plays it like any other.

A policy with privileged columns acts on an ordinary observation too (:func:`widen`: the columns are
zero, and the actor never reads them), so evaluations and snapshots in the pool need no deal.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import gymnasium
import numpy as np
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from president_env.core import Rules, init
from president_env.core import observation as O
from training.vec_env import PresidentVecEnv

SETTING = "privileged_critic"


@lru_cache(maxsize=64)
def _kind_totals(rules: Rules) -> np.ndarray:
    """(K,) float32: cards of each kind in the deck (at least 1), counted from a fresh deal."""
    st = init(rules, 1, seed=0)
    held = st.counts[0].astype(np.int64).sum(axis=0) + st.played[0] + st.discarded[0]
    return np.maximum(held, 1).astype(np.float32)


def privileged_size(rules: Rules) -> int:
    """The number of privileged columns: ``(P - 1) * K``."""
    return (rules.players - 1) * len(_kind_totals(rules))


def privileged_features(rules: Rules, st: Any, players: np.ndarray) -> np.ndarray:
    """(B, (P - 1) * K) float32: for each game of ``st`` and the player ``players[b]``, the other seats' hands
    (count per kind over the deck's count of the kind), by relative seat 1 .. P - 1 (see the module)."""
    P = rules.players
    players = np.asarray(players, dtype=np.int64).reshape(-1)
    B = len(players)
    d = 1 if rules.direction == "clockwise" else -1
    seat = np.argmax(st.seat_player == players[:, None], axis=1)           # the player's (first) seat
    rel = (seat[:, None] + d * np.arange(1, P)[None, :]) % P                # (B, P - 1) seats after it
    counts = st.counts[np.arange(B)[:, None], rel].astype(np.float32)      # (B, P - 1, K)
    return (counts / _kind_totals(rules)).reshape(B, -1)


def privileged_observation(rules: Rules, st: Any, players: np.ndarray, obs: np.ndarray | None = None) -> np.ndarray:
    """``[observation, privileged features]`` of ``players`` (one per game of ``st``); ``obs``: the observation
    already computed."""
    if obs is None:
        obs = O.observe(rules, st, players)
    return np.concatenate([obs, privileged_features(rules, st, players)], axis=1)


def privileged_box(rules: Rules) -> gymnasium.spaces.Box:
    """The observation space of ``[obs, privileged]``."""
    n = O.size(rules) + privileged_size(rules)
    return gymnasium.spaces.Box(-np.inf, np.inf, shape=(n,), dtype=np.float32)


def widen(policy: Any, obs: np.ndarray) -> np.ndarray:
    """``obs`` with zero privileged columns when ``policy`` has them (its actor never reads them), else as is."""
    extra = int(getattr(policy, "privileged_columns", 0))
    obs = np.asarray(obs, dtype=np.float32)
    if not extra or obs.shape[-1] != policy.observation_space.shape[0] - extra:
        return obs
    return np.concatenate([obs, np.zeros((*obs.shape[:-1], extra), dtype=np.float32)], axis=-1)


class PrivilegedMlpExtractor(MlpExtractor):
    """SB3's ``MlpExtractor`` whose policy network reads the first ``actor_dim`` features only (the
    observation) and whose value network reads them all (the observation and the privileged columns)."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module], device: Any,
                 actor_dim: int) -> None:
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.actor_dim = actor_dim
        self.policy_net = MlpExtractor(actor_dim, net_arch, activation_fn, device).policy_net

    def forward(self, features: Any) -> tuple[Any, Any]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: Any) -> Any:
        return self.policy_net(features[..., : self.actor_dim])


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` over ``[obs, privileged]`` whose actor sees ``obs`` alone (``actor_dim``
    columns) and whose critic sees everything; see the module."""

    def __init__(self, *args: Any, actor_dim: int, **kwargs: Any) -> None:
        self.actor_dim = actor_dim
        super().__init__(*args, **kwargs)
        self.privileged_columns = self.observation_space.shape[0] - actor_dim

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = PrivilegedMlpExtractor(self.features_dim, self.net_arch, self.activation_fn,
                                                    self.device, self.actor_dim)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return super()._get_constructor_parameters() | {"actor_dim": self.actor_dim}

    def predict(self, observation: Any, *args: Any, **kwargs: Any) -> Any:
        """SB3's ``predict``; an ordinary observation (without the privileged columns) is widened first."""
        if isinstance(observation, np.ndarray):
            observation = widen(self, observation)
        return super().predict(observation, *args, **kwargs)


class PrivilegedVecEnv(PresidentVecEnv):
    """:class:`training.vec_env.PresidentVecEnv` whose observations are ``[obs, privileged]`` of the learner
    (the SB3 loop of ``learner_seats=1`` with ``privileged_critic``). ``terminal_observation`` stays the
    ordinary observation: SB3 reads it only on a truncated episode, and these never are."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.observation_space = privileged_box(self.rules)

    def _observe(self) -> np.ndarray:
        return privileged_observation(self.rules, self._state, self._learner)
