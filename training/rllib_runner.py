"""An RLlib ``EnvRunner`` that steps hundreds of games as arrays on the batched core.

RLlib's own runners step a multi-agent env one game at a time through per-step Python
machinery (episode objects, connectors, metrics): a few hundred decisions per second per
runner here, although the core makes hundreds of thousands. :class:`BatchedEnvRunner`
keeps RLlib's runner (its module, weight sync, metrics and checkpoints: it subclasses
:class:`~ray.rllib.env.single_agent_env_runner.SingleAgentEnvRunner`) and replaces the
sampling loop:

* ``num_envs_per_env_runner`` games live in one batched core state (:class:`SeatGames`);
  at each step every game's player to act is a row of one batched forward pass of the
  shared policy (the observation dict ``{"observation", "action_mask"}`` that the AEC
  env gives, so :class:`~training.rllib_module.MaskedMLPModule` reads the mask where it
  always does), actions are drawn from the masked logits (Gumbel-max, from the runner's
  own generator), and the core plays them all in one call;
* each (game, player) pair is a trajectory, as in the SB3 trainer's seat rollouts
  (:mod:`training.seat_rollout`): a seat's reward at a decision is what it earned until its
  next decision (hand points, or the rank reward), a trajectory ends with its episode (one
  hand, or one session with ``episode="session"``);
* ``sample()`` returns finished trajectories only, as RLlib ``SingleAgentEpisode`` objects
  built from arrays in one go (no per-step episode calls), until at least the asked number
  of decisions is in; unfinished trajectories carry over to the next call. Every
  trajectory therefore ends in a terminal step and PPO needs no bootstrap value.

This is the ``policies="shared"`` path (every seat the one learning policy): RLlib sees a
single-agent problem whose episodes are seat trajectories. One env step is one decision
of one seat, so RLlib's env steps are the learner's decisions, as on the AEC path.

Seeding: the deals of runner ``w`` come from ``numpy.random.default_rng([seed, w, 0])``
and its action draws from ``[seed, w, 1]``, so a seed gives the same games for the same
weights.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer

from president_env.aec_env import hand_rewards, make_rules, observation_box
from president_env.core import OVER, Rules, current_player, init, make_keys, n_actions, step_inplace
from president_env.core import observation as O
from training.rllib_env import ENV_KEYS
from training.seat_rollout import Growing


def seat_spaces(rules: Rules) -> tuple[gymnasium.spaces.Dict, gymnasium.spaces.Discrete]:
    """The observation and action space of one seat (those of the AEC env)."""
    A = n_actions(rules)
    obs = gymnasium.spaces.Dict({"observation": observation_box(rules),
                                 "action_mask": gymnasium.spaces.Box(0, 1, (A,), dtype=np.int8)})
    return obs, gymnasium.spaces.Discrete(A)


def rules_of(config: dict[str, Any]) -> Rules:
    """The rules an ``env_config`` plays (see :func:`training.rllib_env.env_config`)."""
    unknown = sorted(set(config) - set(ENV_KEYS))
    if unknown:
        raise ValueError(f"unknown env_config key(s) {unknown}; keys: {', '.join(ENV_KEYS)}")
    overrides = {"players": int(config["players"])} if config.get("players") else {}
    return make_rules(config.get("preset", "president"), config.get("episode", "hand"), **overrides)


class SeatGames:
    """B games on the batched core, every seat a trajectory of the one policy (see the module docstring).

    RLlib reads the spaces of one seat from it (``single_observation_space``,
    ``single_action_space``); it is not a Gymnasium env: :meth:`observe`, :meth:`step` and
    :meth:`take_finished` are what the runner calls."""

    def __init__(self, rules: Rules, num_games: int, start_ranks: str | None = "random", reward: str = "points",
                 seed: int | None = 0, worker: int = 0) -> None:
        if num_games < 1:
            raise ValueError(f"num_games must be positive, got {num_games}")
        self.rules, self.num_envs = rules, num_games
        self.start_ranks, self.reward = start_ranks, reward
        self.single_observation_space, self.single_action_space = seat_spaces(rules)
        self.observation_space = self.single_observation_space
        self.action_space = self.single_action_space
        self.unwrapped = self
        seq = None if seed is None else [int(seed), int(worker)]
        self._key_rng = np.random.default_rng(None if seq is None else [*seq, 0])
        self.rng = np.random.default_rng(None if seq is None else [*seq, 1])
        B, P = num_games, rules.players
        self.state = init(rules, keys=make_keys(B, self._key_rng), start_ranks=start_ranks)
        D, A = self.single_observation_space["observation"].shape[0], self.single_action_space.n
        self._obs, self._mask = Growing(np.float32, width=D), Growing(np.int8, width=A)
        self._logits = Growing(np.float32, width=A)
        self._act, self._logp = Growing(np.int64), Growing(np.float32)
        self._rew, self._traj = Growing(np.float32), Growing(np.int64)
        self._last = np.full((B, P), -1, dtype=np.int64)     # each open trajectory's latest row
        self._traj_of = np.full((B, P), -1, dtype=np.int64)  # each (game, player)'s trajectory number
        self._early = np.zeros((B, P), dtype=np.float32)     # rewards before a trajectory's first decision
        self._n_traj = 0
        self.ended = np.zeros(0, dtype=np.int64)             # games whose episode the last step ended
        self._open_len = np.zeros((B, P), dtype=np.int64)    # decisions in each open trajectory
        self._done: list[int] = []                           # finished trajectories, not yet taken
        self.finished_decisions = 0                          # ... and their decisions

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(who, obs (B, D) float32, mask (B, A) int8): every game's player to act and what it sees."""
        who = current_player(self.state)
        return who, O.observe(self.rules, self.state, who), self.state.legal.astype(np.int8)

    def step(self, who: np.ndarray, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, logp: np.ndarray,
             logits: np.ndarray) -> int:
        """Play ``actions`` (one per game) and file the decisions; returns how many trajectories finished."""
        B = self.num_envs
        g = np.arange(B)
        rows = self._obs.n + g
        new = self._traj_of[g, who] < 0
        self._traj_of[g[new], who[new]] = self._n_traj + np.arange(int(new.sum()))
        self._n_traj += int(new.sum())
        self._obs.extend(obs)
        self._mask.extend(mask)
        self._logits.extend(logits)
        self._act.extend(actions)
        self._logp.extend(logp)
        self._rew.extend(self._early[g, who])
        self._traj.extend(self._traj_of[g, who])
        self._early[g, who] = 0
        self._last[g, who] = rows
        self._open_len[g, who] += 1
        step_inplace(self.rules, self.state, actions)
        st = self.state
        if st.hand_over.any():
            hr = hand_rewards(self.rules, st, self.reward)
            b, p = np.nonzero(np.broadcast_to(st.hand_over[:, None], self._last.shape))
            t = self._last[b, p]
            np.add.at(self._rew.data, t[t >= 0], hr[b, p][t >= 0])
            np.add.at(self._early, (b[t < 0], p[t < 0]), hr[b, p][t < 0])
        ended = self.ended = np.flatnonzero(st.phase == OVER)
        if not ended.size:
            return 0
        finished = self._traj_of[ended][self._traj_of[ended] >= 0]
        self._done.extend(finished.tolist())
        self.finished_decisions += int(self._open_len[ended].sum())
        self._open_len[ended] = 0
        self._last[ended] = -1
        self._traj_of[ended] = -1
        self._early[ended] = 0
        st.put(ended, init(self.rules, keys=make_keys(ended.size, self._key_rng), start_ranks=self.start_ranks))
        return int(finished.size)

    def take_finished(self) -> list[dict[str, np.ndarray]]:
        """The finished trajectories' rows, one dict of arrays each (in order of decision), removed from storage."""
        if not self._done:
            return []
        traj = self._traj.rows()
        sel = np.isin(traj, np.asarray(self._done))
        idx = np.flatnonzero(sel)
        idx = idx[np.argsort(traj[idx], kind="stable")]
        bounds = np.flatnonzero(np.diff(traj[idx])) + 1
        cols = {"obs": self._obs, "mask": self._mask, "logits": self._logits, "act": self._act,
                "logp": self._logp, "rew": self._rew}
        taken = {k: c.rows()[idx] for k, c in cols.items()}
        out = [{k: v[a:b] for k, v in taken.items()}
               for a, b in zip(np.r_[0, bounds], np.r_[bounds, idx.size], strict=True)]
        keep = np.flatnonzero(~sel)
        remap = np.full(len(traj), -1, dtype=np.int64)
        remap[keep] = np.arange(keep.size)
        for c in (*cols.values(), self._traj):
            c.keep(keep)
        live = self._last >= 0
        self._last[live] = remap[self._last[live]]
        self._done, self.finished_decisions = [], 0
        return out

    def close(self) -> None:
        pass


def sample_actions(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator, explore: bool = True
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(actions, log-probabilities) of masked logits: a Gumbel-max draw, or the arg max when not exploring."""
    z = np.where(mask > 0, logits.astype(np.float64), -np.inf)
    if explore:
        z_draw = z + rng.gumbel(size=z.shape)
        actions = np.argmax(z_draw, axis=1)
    else:
        actions = np.argmax(z, axis=1)
    top = z.max(axis=1, keepdims=True)
    logsumexp = top[:, 0] + np.log(np.exp(z - top).sum(axis=1))
    logp = z[np.arange(len(z)), actions] - logsumexp
    return actions.astype(np.int64), logp.astype(np.float32)


def episode_of(rows: dict[str, np.ndarray], obs_space: gymnasium.spaces.Dict,
               action_space: gymnasium.spaces.Discrete) -> SingleAgentEpisode:
    """A finished trajectory as a numpy'd ``SingleAgentEpisode`` (its last observation repeated as the final one)."""
    n = len(rows["act"])
    last = np.r_[np.arange(n), n - 1]
    obs = InfiniteLookbackBuffer({"observation": rows["obs"][last], "action_mask": rows["mask"][last]}, 0, obs_space)
    return SingleAgentEpisode(
        observations=obs, observation_space=obs_space, action_space=action_space,
        infos=[{}] * (n + 1),
        actions=InfiniteLookbackBuffer(rows["act"], 0, action_space),
        rewards=InfiniteLookbackBuffer(rows["rew"], 0),
        extra_model_outputs={Columns.ACTION_LOGP: InfiniteLookbackBuffer(rows["logp"], 0),
                             Columns.ACTION_DIST_INPUTS: InfiniteLookbackBuffer(rows["logits"], 0)},
        terminated=True, len_lookback_buffer=0)


class BatchedEnvRunner(SingleAgentEnvRunner):
    """RLlib's single-agent runner with :class:`SeatGames` in place of a Gymnasium vector env (module docstring)."""

    def make_env(self) -> None:
        cfg = dict(self.config.env_config)
        self.env = SeatGames(rules_of(cfg), int(self.config.num_envs_per_env_runner),
                             start_ranks=cfg.get("start_ranks", "random"), reward=cfg.get("reward", "points"),
                             seed=self.config.seed, worker=int(self.worker_index or 0))
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = False

    def _sample(self, *, num_timesteps: int | None = None, num_episodes: int | None = None, explore: bool,
                random_actions: bool = False, force_reset: bool = False) -> list[SingleAgentEpisode]:
        env: SeatGames = self.env
        want_steps = num_timesteps if num_timesteps is not None else None
        episodes_done = 0
        while True:
            if want_steps is not None and env.finished_decisions >= want_steps:
                break
            if num_episodes is not None and episodes_done >= num_episodes:
                break
            who, obs, mask = env.observe()
            if random_actions:
                logits = np.zeros(mask.shape, dtype=np.float32)
            else:
                batch = {Columns.OBS: {"observation": torch.from_numpy(obs).to(self._device),
                                       "action_mask": torch.from_numpy(mask).to(self._device)}}
                with torch.no_grad():
                    out = (self.module.forward_exploration(batch) if explore
                           else self.module.forward_inference(batch))
                logits = out[Columns.ACTION_DIST_INPUTS].cpu().numpy()
            actions, logp = sample_actions(logits, mask, env.rng, explore or random_actions)
            episodes_done += env.step(who, obs, mask, actions, logp, logits)
        rows = env.take_finished()
        episodes = [episode_of(r, env.single_observation_space, env.single_action_space) for r in rows]
        steps = sum(len(r["act"]) for r in rows)
        self._done_episodes_for_metrics.extend(episodes)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=steps)
        self._increase_sampled_metrics(steps, len(episodes))
        return episodes
