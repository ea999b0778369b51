"""PPO rollouts in which the learner holds several seats of every game.

The SB3 VecEnv (:mod:`training.vec_env`) gives the learner one seat per game: the other
seats' decisions cost time and teach nothing. Here the learner holds ``learner_seats``
players of each game (drawn per game), the opponent pool the others, and every decision
of a learner seat is a PPO transition of its own trajectory, a (game, player) pair.

A rollout plays B games in one batched core state. At each step the player to act in
every live game is either a learner seat (one batched policy call for all of them) or
an opponent (one call per pool member). Rewards go to the player's latest decision, so
a trajectory's reward at a decision is what that player earned until its next decision.
A rollout ends at whole episodes: once ``n_decisions`` learner decisions are in, finished
games start no new episode and the rest play out, so every trajectory ends at its
episode's end and needs no bootstrap value. Advantages are GAE(gamma, lambda) along each
trajectory, computed backwards over the global steps, all trajectories at once.

The result fills a ``MaskableRolloutBuffer`` for ``MaskablePPO.train()``, so the PPO
update itself is sb3-contrib's.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from president_env.aec_env import hand_rewards
from president_env.core import OVER, IllegalActionError, Rules, current_player, init, make_keys, step_inplace
from president_env.core import observation as O
from training.opponent_pool import OpponentPool


@dataclass
class Rollout:
    """Learner transitions of whole episodes, with GAE advantages and returns."""

    obs: np.ndarray          # (N, D) float32
    masks: np.ndarray        # (N, A) bool
    actions: np.ndarray      # (N,) int64
    values: np.ndarray       # (N,) float32, the critic's value when acting
    log_probs: np.ndarray    # (N,) float32, of the action under the acting policy
    rewards: np.ndarray      # (N,) float32
    advantages: np.ndarray   # (N,) float32
    returns: np.ndarray      # (N,) float32 (advantages + values)
    trajectory: np.ndarray   # (N,) int64: which trajectory, numbered by first decision (for tests and analysis)
    episodes: int            # trajectories finished (one per learner seat and episode)
    episode_reward: float    # mean total reward per trajectory
    opponent_decisions: int  # decisions the opponents made meanwhile

    def __len__(self) -> int:
        return int(self.actions.size)

    def sample(self, n: int, rng: np.random.Generator) -> Rollout:
        """``n`` of the transitions, drawn without replacement (advantages stay as computed on the whole)."""
        if n > len(self):
            raise ValueError(f"cannot sample {n} of {len(self)} transitions")
        i = np.sort(rng.choice(len(self), size=n, replace=False))
        return dataclasses.replace(self, **{f.name: getattr(self, f.name)[i] for f in dataclasses.fields(self)
                                            if isinstance(getattr(self, f.name), np.ndarray)})

    def fill(self, buffer_cls: Any, model: Any) -> Any:
        """A full ``buffer_cls`` (sb3-contrib's ``MaskableRolloutBuffer``) of these N transitions, as one env."""
        n = len(self)
        buf = buffer_cls(n, model.observation_space, model.action_space, device=model.device,
                         gamma=model.gamma, gae_lambda=model.gae_lambda, n_envs=1)
        buf.observations[:, 0] = self.obs
        buf.actions[:, 0, 0] = self.actions
        buf.values[:, 0] = self.values
        buf.log_probs[:, 0] = self.log_probs
        buf.rewards[:, 0] = self.rewards
        buf.advantages[:, 0] = self.advantages
        buf.returns[:, 0] = self.returns
        buf.action_masks[:, 0] = self.masks
        buf.pos, buf.full = n, True
        return buf


class SeatRollouts:
    """B games with the learner in ``learner_seats`` players of each; see the module doc."""

    def __init__(self, rules: Rules, n_games: int, pool: OpponentPool, learner_seats: int,
                 start_ranks: str | None = "random", reward: str = "points", seed: int | None = 0,
                 privileged: bool = False) -> None:
        P = rules.players
        if not 1 <= learner_seats <= P:
            raise ValueError(f"learner_seats must be 1..{P} for {P} players, got {learner_seats}")
        if learner_seats < P and pool is None:
            raise ValueError("learner_seats below the number of players needs an opponent pool")
        self.rules, self.n_games, self.pool, self.learner_seats = rules, n_games, pool, learner_seats
        self.start_ranks, self.reward = start_ranks, reward
        self.privileged = privileged     # the learner's rows are [obs, the other hands] (training.privileged)
        self._key_rng = np.random.default_rng(seed)
        self._rng = np.random.default_rng(None if seed is None else [int(seed), 2])

    def _roles(self, n: int) -> np.ndarray:
        """(n, P) member index per player: -1 for the learner, else a pool member."""
        P, L = self.rules.players, self.learner_seats
        roles = np.full((n, P), -1, dtype=np.int64)
        if L < P:
            others = np.argsort(self._rng.random((n, P)), axis=1)[:, : P - L]
            roles[np.arange(n)[:, None], others] = self.pool.sample(n, self._rng)[:, : P - L]
        return roles

    def collect(self, policy: Any, n_decisions: int, gamma: float, gae_lambda: float,
                deadline: float | None = None, on_decisions: Callable[[int], None] | None = None) -> Rollout:
        """About ``n_decisions`` learner decisions (at least that many, ending at whole episodes).

        From ``deadline`` (a ``time.time()``) on, finished games start no new episode either;
        ``on_decisions(k)`` hears of every step's ``k`` learner decisions (a progress bar)."""
        rules, B, P = self.rules, self.n_games, self.rules.players
        st = init(rules, keys=make_keys(B, self._key_rng), start_ranks=self.start_ranks)
        roles = self._roles(B)
        members = self.pool.policies if self.pool is not None else []
        last = np.full((B, P), -1, dtype=np.int64)        # each trajectory's latest transition
        traj = np.full((B, P), -1, dtype=np.int64)        # each (game, player)'s trajectory number
        n_traj = 0
        early = np.zeros((B, P), dtype=np.float32)        # rewards before a trajectory's first decision
        chunks: list[tuple[np.ndarray, ...]] = []        # per step: obs, mask, action, value, log-prob, trajectory
        rewards = Growing(np.float32, 2 * n_decisions)   # filled in as rewards arrive
        nxt = Growing(np.int64, 2 * n_decisions)         # the trajectory's next transition, -1 at its end
        offsets = [0]
        count = opp = episodes = 0
        policy.set_training_mode(False)
        while True:
            live = st.phase != OVER
            if not live.any():
                break
            games = np.flatnonzero(live)
            who = current_player(st)[games]
            obs = O.observe(rules, st.take(games), who)
            mask = st.legal[games]
            role = roles[games, who]
            acts = np.zeros(B, dtype=np.int64)
            mine = np.flatnonzero(role < 0)
            if mine.size:
                seen = obs[mine]
                if self.privileged:
                    from training.privileged import privileged_observation

                    seen = privileged_observation(rules, st.take(games[mine]), who[mine], seen)
                with torch.no_grad():
                    a, v, lp = policy(torch.as_tensor(seen), action_masks=mask[mine])
                a = a.numpy().astype(np.int64)
                acts[games[mine]] = a
                g, p = games[mine], who[mine]
                ids = count + np.arange(mine.size)
                new = traj[g, p] < 0
                traj[g[new], p[new]] = n_traj + np.arange(int(new.sum()))
                n_traj += int(new.sum())
                rewards.extend(early[g, p])
                nxt.extend(np.full(mine.size, -1, dtype=np.int64))
                early[g, p] = 0
                prev = last[g, p]
                nxt.data[prev[prev >= 0]] = ids[prev >= 0]
                last[g, p] = ids
                chunks.append((seen, mask[mine], a, v.numpy().reshape(-1), lp.numpy().reshape(-1), traj[g, p]))
                count += mine.size
                offsets.append(count)
                if on_decisions is not None:
                    on_decisions(int(mine.size))
            theirs = np.flatnonzero(role >= 0)
            for m in np.unique(role[theirs]).tolist():
                rows = theirs[role[theirs] == m]
                acts[games[rows]] = members[m].act(obs[rows], mask[rows], self._rng)
            opp += theirs.size
            bad = ~st.legal[games, acts[games]]
            if bad.any():
                j = int(np.argmax(bad))
                raise IllegalActionError(f"game {int(games[j])}: the opponent playing player_{int(who[j])} chose "
                                         f"illegal action {int(acts[games[j]])}")
            step_inplace(rules, st, acts, where=live)
            if st.hand_over.any():
                hr = hand_rewards(rules, st, self.reward)
                b, p = np.nonzero(st.hand_over[:, None] & (roles < 0))
                t = last[b, p]
                np.add.at(rewards.data, t[t >= 0], hr[b, p][t >= 0])
                np.add.at(early, (b[t < 0], p[t < 0]), hr[b, p][t < 0])
            ended = np.flatnonzero(live & (st.phase == OVER))
            if ended.size:
                episodes += int((last[ended] >= 0).sum())
                last[ended] = -1
                traj[ended] = -1
                early[ended] = 0
                wanted = count < n_decisions and (deadline is None or time.time() < deadline)
                if wanted:  # start new episodes only while decisions are wanted
                    st.put(ended, init(rules, keys=make_keys(ended.size, self._key_rng), start_ranks=self.start_ranks))
                    roles[ended] = self._roles(ended.size)
        obs_a, masks, actions, values, log_probs, trajectory = (np.concatenate(c) for c in zip(*chunks, strict=True))
        values = values.astype(np.float32)
        rew = rewards.data[:count].copy()
        adv = _gae(rew, values, nxt.data[:count], offsets, gamma, gae_lambda)
        return Rollout(obs_a, masks, actions, values, log_probs.astype(np.float32), rew, adv,
                       (adv + values).astype(np.float32), trajectory, episodes,
                       float(rew.sum()) / episodes if episodes else 0.0, opp)


class Growing:
    """An array of rows appended to in chunks (capacity doubles); ``rows()`` (``data[:n]``) is what was appended.
    Rows are scalars, or vectors of ``width``."""

    def __init__(self, dtype: Any, capacity: int = 1024, width: int | None = None) -> None:
        self.shape = () if width is None else (width,)
        self.data = np.zeros((max(capacity, 16), *self.shape), dtype=dtype)
        self.n = 0

    def extend(self, values: np.ndarray) -> None:
        end = self.n + len(values)
        if end > len(self.data):
            grown = np.zeros((max(end, 2 * len(self.data)), *self.shape), dtype=self.data.dtype)
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        self.data[self.n:end] = values
        self.n = end

    def rows(self) -> np.ndarray:
        return self.data[: self.n]

    def keep(self, idx: np.ndarray) -> None:
        """Keep only the rows ``idx`` (in that order)."""
        kept = self.data[idx]
        self.n = len(kept)
        self.data[: self.n] = kept


def _gae(rewards: np.ndarray, values: np.ndarray, nxt: np.ndarray, offsets: list[int], gamma: float,
         lam: float) -> np.ndarray:
    """GAE along each trajectory (``nxt`` links a transition to its trajectory's next; -1 ends it).

    A transition's successor always belongs to a later step, so sweeping the steps backwards
    sees every successor's advantage first.
    """
    adv = np.zeros(rewards.size, dtype=np.float32)
    for s in range(len(offsets) - 2, -1, -1):
        i = np.arange(offsets[s], offsets[s + 1])
        n = nxt[i]
        has = n >= 0
        v_next = np.where(has, values[np.maximum(n, 0)], 0.0)
        a_next = np.where(has, adv[np.maximum(n, 0)], 0.0)
        delta = rewards[i] + gamma * v_next - values[i]
        adv[i] = delta + gamma * lam * a_next
    return adv


def learn_by_seats(model: Any, rollouts: SeatRollouts, total_timesteps: int, callback: Any,
                   decisions_per_rollout: int, reset_num_timesteps: bool = True, progress: bool = False,
                   deadline: float | None = None) -> Any:
    """``MaskablePPO.learn`` with :class:`SeatRollouts` collecting: same callback, logger and PPO update.

    ``deadline`` (a ``time.time()``) ends the rollout in play early (whole episodes); the callback
    decides whether its update is made. The bar counts learner decisions as they are made."""
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from tqdm import tqdm

    total_timesteps, callback = model._setup_learn(total_timesteps, callback, reset_num_timesteps, "ppo", False)
    callback.on_training_start(locals(), globals())
    bar = tqdm(total=None if deadline else total_timesteps, initial=model.num_timesteps, unit="decision",
               disable=not progress, desc="PPO: learner decisions", leave=False)
    iteration = 0
    rng = np.random.default_rng(model.seed)
    while model.num_timesteps < total_timesteps:
        r = rollouts.collect(model.policy, decisions_per_rollout, model.gamma, model.gae_lambda, deadline=deadline,
                             on_decisions=bar.update)
        model.num_timesteps += len(r)
        if deadline:
            left = max(0, round(deadline - time.time()))
            bar.set_postfix_str(f"{left // 60}:{left % 60:02d} left", refresh=True)
        iteration += 1
        model._update_current_progress_remaining(model.num_timesteps, total_timesteps)
        model.logger.record("rollout/trajectory_reward_mean", r.episode_reward)
        model.logger.record("rollout/decisions", len(r))
        model.logger.record("time/iterations", iteration)
        model.logger.record("time/total_timesteps", model.num_timesteps)
        if not callback.on_step():  # as in SB3, before the update (the policy holds no autograd graph then)
            break
        # whole minibatches only: a last one of a few transitions gives a NaN advantage std (one transition)
        # or a noisy step; the few left out were collected but are not trained on
        keep = len(r) - len(r) % model.batch_size if len(r) >= model.batch_size else len(r)
        model.rollout_buffer = r.sample(keep, rng).fill(MaskableRolloutBuffer, model)
        model.train()
        model.logger.dump(step=model.num_timesteps)
    bar.close()
    callback.on_training_end()
    return model
