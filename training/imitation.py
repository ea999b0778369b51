"""Warm start: fit the policy (and its value) to a scripted teacher before PPO.

A MaskablePPO learner that starts from random weights spends most of a short
budget relearning what a hand-written player already knows. We first play the
teacher against itself on the batched core, record every decision (what the
player to act sees, its legal mask, the teacher's action) and each decision's
discounted return (the player's hand points that follow, discounted per own
decision as PPO discounts them), then fit the actor by cross-entropy on the
masked logits and the critic by regression on the returns.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from torch.nn import functional as F
from tqdm import tqdm

from agents.base import Agent
from agents.belief import TableHistories, wants_history
from agents.registry import make_agent
from president_env.core import OVER, Rules, current_player, init, n_actions, observe, step_inplace
from president_env.core.observation import size as observation_size
from training.legal_dist import legal_log_softmax, legal_positions

_BITS_SET = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)


class Demonstrations:
    """Recorded decisions: ``obs`` (N, D) float32, the legal masks (N, A) (kept as bits: a table of thousands of
    actions, uecda's 2,606, would take A bytes a decision), ``actions`` (N,), ``returns`` (N,) float32, and
    whether the deadline came before the decisions asked for (``timed_out``)."""

    def __init__(self, obs: np.ndarray, masks: np.ndarray | None, actions: np.ndarray, returns: np.ndarray,
                 timed_out: bool = False, *, packed: np.ndarray | None = None, n_actions: int | None = None) -> None:
        self.obs, self.actions, self.returns, self.timed_out = obs, actions, returns, timed_out
        if packed is None:
            masks = np.asarray(masks, dtype=bool)
            packed, n_actions = np.packbits(masks, axis=1), masks.shape[1]
        self.packed, self.n_actions = packed, int(n_actions)

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def masks(self) -> np.ndarray:
        """(N, A) bool, unpacked (a copy)."""
        return self.mask_rows(slice(None))

    def legal_counts(self) -> np.ndarray:
        """(N,) the number of legal actions of each decision."""
        return _BITS_SET[self.packed].sum(axis=1, dtype=np.int64)

    def mask_rows(self, rows: np.ndarray | slice) -> np.ndarray:
        """The legal masks of some decisions, (len(rows), A) bool."""
        return np.unpackbits(self.packed[rows], axis=1, count=self.n_actions).view(bool)


def collect(rules: Rules, teacher: str | Agent, decisions: int, gamma: float, seed: int = 0,
            batch_size: int = 512, deadline: float | None = None, progress: bool = False,
            desc: str | None = None, privileged: bool = False) -> Demonstrations:
    """Record about ``decisions`` decisions of ``teacher`` (an agent spec, or an agent) playing every seat (whole
    sessions, ``batch_size`` games at a time; ``desc`` names the progress bar).

    At ``deadline`` (a ``time.time()``) the play stops: the decisions of the hands still in play
    are dropped, and the returns of the rest run to the last finished hand of their session. With ``privileged``
    (the ``privileged_critic`` setting) each recorded observation is followed by the other hands
    (:mod:`training.privileged`), which the teacher does not see: the fit's critic reads them, its actor not.
    A teacher that deals its worlds from a weighted belief (a search with ``belief=``) is handed each player's view
    of the hand's plays (``act_with_history``), as the arena hands it."""
    agent = teacher if isinstance(teacher, Agent) else make_agent(teacher, rules)
    with_history = wants_history(agent)
    rng = np.random.default_rng(seed)
    P = rules.players
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    total = 0
    timed_out = False
    bar = tqdm(total=decisions, unit="decision", desc=desc or f"warm start 1/2: {agent.name} self-play",
               disable=not progress, leave=False)
    while total < decisions and not timed_out:
        st = init(rules, batch_size, seed=rng)
        rows: list[list[list[int]]] = [[[] for _ in range(P)] for _ in range(batch_size)]  # decision ids
        in_play: list[list[int]] = [[] for _ in range(batch_size)]  # decisions of each game's unfinished hand
        rewards: list[float] = []
        b_obs, b_mask, b_act = [], [], []
        histories = TableHistories(rules, batch_size) if with_history else None
        while not (st.phase == OVER).all():
            if deadline is not None and time.time() > deadline:
                timed_out = True
                break
            live = np.flatnonzero(st.phase != OVER)
            who = current_player(st)
            obs = observe(rules, st, who)[live]
            mask = st.legal[live]
            acts = np.zeros(batch_size, dtype=np.int64)
            if histories is not None:       # each player's own view of the hand's plays, never the hidden hands
                acts[live] = agent.act_with_history(obs, mask, rng, histories.views(live, who[live]))
                histories.record(st, acts, where=st.phase != OVER)
            else:
                acts[live] = agent.act(obs, mask, rng)
            if privileged:
                from training.privileged import privileged_observation

                obs = privileged_observation(rules, st.take(live), who[live], obs)
            step_inplace(rules, st, acts, where=st.phase != OVER)
            for b in live.tolist():
                rows[b][int(who[b])].append(len(rewards))
                in_play[b].append(len(rewards))
                rewards.append(0.0)
            b_obs.append(obs)
            b_mask.append(np.packbits(mask, axis=1))
            b_act.append(acts[live])
            if st.hand_over.any():
                for b in np.flatnonzero(st.hand_over).tolist():
                    in_play[b].clear()
                    for p in range(P):
                        if rows[b][p]:
                            rewards[rows[b][p][-1]] += float(st.hand_points[b, p])
            bar.update(live.size)
        if not rewards:
            break
        # discounted returns per player, over its own decisions
        ret = np.zeros(len(rewards), dtype=np.float32)
        for b in range(batch_size):
            for p in range(P):
                g = 0.0
                for i in reversed(rows[b][p]):
                    g = rewards[i] + gamma * g
                    ret[i] = g
        keep = np.ones(len(rewards), dtype=bool)
        keep[[i for ids in in_play for i in ids]] = False     # hands cut by the deadline (none otherwise)
        obs_l.append(np.concatenate(b_obs)[keep])
        mask_l.append(np.concatenate(b_mask)[keep])
        act_l.append(np.concatenate(b_act)[keep])
        ret_l.append(ret[keep])
        total += int(keep.sum())
    bar.close()
    if not obs_l:
        D, A = observation_size(rules), n_actions(rules)
        if privileged:
            from training.privileged import privileged_size

            D += privileged_size(rules)
        return Demonstrations(np.zeros((0, D), np.float32), np.zeros((0, A), bool), np.zeros(0, np.int64),
                              np.zeros(0, np.float32), timed_out)
    return Demonstrations(np.concatenate(obs_l), None, np.concatenate(act_l), np.concatenate(ret_l), timed_out,
                          packed=np.concatenate(mask_l), n_actions=n_actions(rules))


def pretrain(policy: torch.nn.Module, demos: Demonstrations, epochs: int, batch_size: int = 4096,
             lr: float = 1e-3, seed: int = 0, deadline: float | None = None,
             progress: bool = False, desc: str = "warm start 2/2: fitting the policy",
             policy_too: bool = True) -> dict[str, float]:
    """Fit an SB3 maskable actor-critic policy to the demonstrations (``policy_too=False``: the value head alone,
    the policy's layers untouched); stop at ``deadline`` (a ``time.time()``) after the minibatch in hand.
    Returns the losses and accuracy over the last epoch's minibatches, the epochs done (a fraction when the
    deadline cut one) and whether the deadline stopped the fit."""
    gen = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(demos.obs)
    acts = torch.as_tensor(demos.actions)
    rets = torch.as_tensor(demos.returns)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    n = len(acts)
    per_epoch = -(-n // batch_size)
    stats: dict[str, float] = {"epochs": 0.0, "timed_out": deadline is not None and time.time() > deadline}
    if n == 0:
        return stats
    policy.set_training_mode(True)
    bar = tqdm(total=epochs * per_epoch, unit="batch", desc=desc,
               disable=not progress, leave=False)
    done = 0
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen)
        tot_pi = tot_v = tot_acc = seen = 0.0
        for start in range(0, n, batch_size):
            if deadline is not None and time.time() > deadline:
                stats["timed_out"] = True
                break
            i = perm[start:start + batch_size]
            features = policy.extract_features(obs[i])
            latent_pi, latent_vf = policy.mlp_extractor(features)
            # the cross-entropy of the masked logits, computed on the legal ids only (training/legal_dist.py)
            idx, valid = legal_positions(torch.as_tensor(demos.mask_rows(i.numpy())))
            logp = legal_log_softmax(policy.action_net(latent_pi), idx, valid)
            pos = ((idx == acts[i][:, None]) & valid).to(torch.int8).argmax(dim=1, keepdim=True)
            values = policy.value_net(latent_vf).squeeze(-1)
            loss_pi = -logp.gather(1, pos).mean()
            loss_v = F.mse_loss(values, rets[i])
            opt.zero_grad()
            (loss_pi + 0.5 * loss_v if policy_too else 0.5 * loss_v).backward()
            opt.step()
            k = len(i)
            tot_pi += loss_pi.item() * k
            tot_v += loss_v.item() * k
            tot_acc += (torch.gather(idx, 1, logp.argmax(-1, keepdim=True)).squeeze(1) == acts[i]).float().sum().item()
            seen += k
            done += 1
            bar.update(1)
            bar.set_postfix(epoch=epoch + 1, accuracy=f"{tot_acc / seen:.1%}", refresh=False)
        if seen:
            stats.update(policy_loss=tot_pi / seen, value_loss=tot_v / seen, accuracy=tot_acc / seen)
        if stats["timed_out"]:
            break
    bar.close()
    stats["epochs"] = round(done / per_epoch, 3)
    policy.set_training_mode(False)
    return stats
