"""The policy's categorical over the legal actions only: the same distribution as MaskablePPO's, computed
on the few ids a position allows instead of on the whole table.

MaskablePPO's ``MaskableCategorical`` keeps every id: it sets the illegal logits to -1e8 and normalises,
takes entropies and back-propagates over all of them. With thousands of ids (``uecda``: 2,606; a
position allows 1 to about 100) that is most of a training run's time: in a 2-minute profile of a
``uecda`` run the normalisation alone took 17 s of the updates' 61. :class:`LegalCategoricalDistribution`
gathers the legal ids' logits from the network's output (the same ``action_net`` layer, so checkpoints
and agent files are unchanged) and does the rest on them: the probabilities, log-probabilities,
entropies and gradients are those of the masked distribution (tests/test_legal_dist.py compares them).

:func:`use_legal_distribution` puts it into an SB3 maskable policy; :func:`legal_log_softmax` is the same
computation for the warm start's fit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution

__all__ = ["LegalCategoricalDistribution", "legal_log_softmax", "legal_positions", "use_legal_distribution"]

#: the log-probability given to an action the mask does not allow (MaskableCategorical's is about -1e8 too)
ILLEGAL_LOG_PROB = -1e8


def legal_positions(masks: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
    """For masks (B, A) bool: ``idx`` (B, L) the legal ids of each row in increasing order, padded with 0, and
    ``valid`` (B, L) which of them are real (L: the most legal ids of a row, at least 1)."""
    B = masks.shape[0]
    counts = masks.sum(dim=1)
    L = max(int(counts.max()) if B else 1, 1)
    rows, cols = masks.nonzero(as_tuple=True)                   # row-major: each row's ids in order
    starts = th.cumsum(counts, 0) - counts
    pos = th.arange(rows.numel(), device=masks.device) - starts[rows]
    idx = th.zeros((B, L), dtype=th.long, device=masks.device)
    valid = th.zeros((B, L), dtype=th.bool, device=masks.device)
    idx[rows, pos] = cols
    valid[rows, pos] = True
    return idx, valid


def legal_log_softmax(logits: th.Tensor, idx: th.Tensor, valid: th.Tensor) -> th.Tensor:
    """(B, L) log-probabilities of the legal ids ``idx`` under the logits (B, A) (-inf on the padding)."""
    picked = th.gather(logits, 1, idx).masked_fill(~valid, float("-inf"))
    return th.log_softmax(picked, dim=1)


class LegalCategoricalDistribution(MaskableCategoricalDistribution):
    """``MaskableCategoricalDistribution`` computed on the legal ids (see the module). Without masks, or when a
    row allows nothing, it is the dense one."""

    def __init__(self, action_dim: int) -> None:
        super().__init__(action_dim)
        self._logits: th.Tensor | None = None
        self._idx = self._valid = self._logp = None

    def proba_distribution(self, action_logits: th.Tensor) -> LegalCategoricalDistribution:
        self._logits = action_logits.view(-1, self.action_dim)
        self._idx = self._valid = self._logp = None
        self.distribution = None              # the dense distribution, built only without masks
        return self

    def apply_masking(self, masks: Any) -> None:
        if masks is None:
            self._dense(None)
            return
        m = th.as_tensor(masks, dtype=th.bool, device=self._logits.device).reshape(self._logits.shape)
        if not bool(m.any(dim=1).all()):       # a row with no legal id: the dense distribution's behaviour
            self._dense(m)
            return
        self._idx, self._valid = legal_positions(m)
        self._logp = legal_log_softmax(self._logits, self._idx, self._valid)
        self.distribution = None

    def _dense(self, masks: th.Tensor | None) -> None:
        self._idx = self._valid = self._logp = None
        self.distribution = MaskableCategorical(logits=self._logits, masks=masks)

    def _sparse(self) -> bool:
        if self._logp is None and self.distribution is None:
            self._dense(None)
        return self._logp is not None

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        if not self._sparse():
            return self.distribution.log_prob(actions)
        a = actions.reshape(-1).long()
        match = (self._idx == a[:, None]) & self._valid
        pos = match.to(th.int8).argmax(dim=1, keepdim=True)
        lp = th.gather(self._logp, 1, pos).squeeze(1)
        return th.where(match.any(dim=1), lp, th.full_like(lp, ILLEGAL_LOG_PROB))

    def entropy(self) -> th.Tensor:
        if not self._sparse():
            return self.distribution.entropy()
        finite = self._logp.masked_fill(~self._valid, 0.0)      # 0 * -inf would give NaN gradients
        return -(th.exp(self._logp) * finite).sum(dim=1)

    def sample(self) -> th.Tensor:
        if not self._sparse():
            return self.distribution.sample()
        pos = th.multinomial(th.exp(self._logp), 1)
        return th.gather(self._idx, 1, pos).squeeze(1)

    def mode(self) -> th.Tensor:
        if not self._sparse():
            return th.argmax(self.distribution.probs, dim=1)
        pos = th.argmax(self._logp, dim=1, keepdim=True)
        return th.gather(self._idx, 1, pos).squeeze(1)


def use_legal_distribution(policy: Any) -> Any:
    """Make an SB3 ``MaskableActorCriticPolicy`` compute its distribution on the legal ids (its layers and
    weights unchanged; a policy saved and loaded again has SB3's own until this is called). Returns it."""
    n = int(np.prod(policy.action_space.n))
    policy.action_dist = LegalCategoricalDistribution(n)
    return policy
