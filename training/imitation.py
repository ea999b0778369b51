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

from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from agents.registry import make_agent
from president_env.core import OVER, Rules, current_player, init, observe, step_inplace


@dataclass
class Demonstrations:
    obs: np.ndarray        # (N, D) float32
    masks: np.ndarray      # (N, A) bool
    actions: np.ndarray    # (N,) int64
    returns: np.ndarray    # (N,) float32


def collect(rules: Rules, teacher: str, decisions: int, gamma: float, seed: int = 0,
            batch_size: int = 512) -> Demonstrations:
    """Record about ``decisions`` decisions of ``teacher`` playing every seat (whole sessions)."""
    agent = make_agent(teacher, rules)
    rng = np.random.default_rng(seed)
    P = rules.players
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    total = 0
    while total < decisions:
        st = init(rules, batch_size, seed=rng)
        rows: list[list[list[int]]] = [[[] for _ in range(P)] for _ in range(batch_size)]  # decision ids
        rewards: list[float] = []
        base = total
        while not (st.phase == OVER).all():
            live = np.flatnonzero(st.phase != OVER)
            who = current_player(st)
            obs = observe(rules, st, who)[live]
            mask = st.legal[live]
            acts = np.zeros(batch_size, dtype=np.int64)
            acts[live] = agent.act(obs, mask, rng)
            step_inplace(rules, st, acts, where=st.phase != OVER)
            for b in live.tolist():
                rows[b][int(who[b])].append(len(rewards))
                rewards.append(0.0)
            obs_l.append(obs)
            mask_l.append(mask)
            act_l.append(acts[live])
            if st.hand_over.any():
                for b in np.flatnonzero(st.hand_over).tolist():
                    for p in range(P):
                        if rows[b][p]:
                            rewards[rows[b][p][-1]] += float(st.hand_points[b, p])
        # discounted returns per player, over its own decisions
        ret = np.zeros(len(rewards), dtype=np.float32)
        for b in range(batch_size):
            for p in range(P):
                g = 0.0
                for i in reversed(rows[b][p]):
                    g = rewards[i] + gamma * g
                    ret[i] = g
        ret_l.append(ret)
        total = base + len(rewards)
    return Demonstrations(np.concatenate(obs_l), np.concatenate(mask_l), np.concatenate(act_l),
                          np.concatenate(ret_l))


def pretrain(policy: torch.nn.Module, demos: Demonstrations, epochs: int, batch_size: int = 4096,
             lr: float = 1e-3, seed: int = 0) -> dict[str, float]:
    """Fit an SB3 maskable actor-critic policy to the demonstrations. Returns the last epoch's losses."""
    gen = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(demos.obs)
    masks = torch.as_tensor(demos.masks)
    acts = torch.as_tensor(demos.actions)
    rets = torch.as_tensor(demos.returns)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    policy.set_training_mode(True)
    n = len(acts)
    stats = {}
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen)
        tot_pi = tot_v = tot_acc = 0.0
        for start in range(0, n, batch_size):
            i = perm[start:start + batch_size]
            features = policy.extract_features(obs[i])
            latent_pi, latent_vf = policy.mlp_extractor(features)
            logits = policy.action_net(latent_pi).masked_fill(~masks[i], -1e8)
            values = policy.value_net(latent_vf).squeeze(-1)
            loss_pi = F.cross_entropy(logits, acts[i])
            loss_v = F.mse_loss(values, rets[i])
            opt.zero_grad()
            (loss_pi + 0.5 * loss_v).backward()
            opt.step()
            k = len(i)
            tot_pi += loss_pi.item() * k
            tot_v += loss_v.item() * k
            tot_acc += (logits.argmax(-1) == acts[i]).float().sum().item()
        stats = {"policy_loss": tot_pi / n, "value_loss": tot_v / n, "accuracy": tot_acc / n}
    policy.set_training_mode(False)
    return stats
