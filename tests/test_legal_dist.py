"""The policy's distribution over the legal ids (training/legal_dist.py) is MaskablePPO's masked categorical:
the same log-probabilities, entropies, modes, gradients and sampling frequencies."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution  # noqa: E402

from training.legal_dist import (  # noqa: E402
    ILLEGAL_LOG_PROB,
    LegalCategoricalDistribution,
    legal_log_softmax,
    legal_positions,
    use_legal_distribution,
)


def _case(seed: int, B: int = 64, A: int = 300):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(B, A, generator=g) * 3
    masks = torch.rand(B, A, generator=g) < torch.rand(B, 1, generator=g) * 0.2
    masks[torch.arange(B), torch.randint(0, A, (B,), generator=g)] = True      # every row allows something
    masks[0] = False
    masks[0, 7] = True                                                          # one legal id
    masks[1] = True                                                             # all legal
    return logits, masks


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_distribution_as_the_masked_one(seed):
    logits, masks = _case(seed)
    ref_l = logits.clone().requires_grad_(True)
    new_l = logits.clone().requires_grad_(True)
    ref = MaskableCategoricalDistribution(logits.shape[1]).proba_distribution(ref_l)
    ref.apply_masking(masks)
    new = LegalCategoricalDistribution(logits.shape[1]).proba_distribution(new_l)
    new.apply_masking(masks)
    g = torch.Generator().manual_seed(seed + 10)
    actions = torch.stack([torch.multinomial(m.float(), 1, generator=g)[0] for m in masks])
    torch.testing.assert_close(new.log_prob(actions), ref.log_prob(actions), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(new.entropy(), ref.entropy(), rtol=1e-5, atol=1e-5)
    assert torch.equal(new.mode(), ref.mode())
    (ref.log_prob(actions).sum() + 0.3 * ref.entropy().sum()).backward()
    (new.log_prob(actions).sum() + 0.3 * new.entropy().sum()).backward()
    torch.testing.assert_close(new_l.grad, ref_l.grad, rtol=1e-4, atol=1e-6)
    # an action the mask does not allow has (about) no probability, as in the masked distribution
    illegal = torch.tensor([int(np.flatnonzero(~m.numpy())[0]) if (~m).any() else 0 for m in masks])
    rows = (~masks).any(dim=1)
    assert (new.log_prob(illegal)[rows] == ILLEGAL_LOG_PROB).all() and (ref.log_prob(illegal)[rows] < -1e6).all()


def test_samples_are_legal_and_follow_the_probabilities():
    logits, masks = _case(5, B=4, A=40)
    dist = LegalCategoricalDistribution(40).proba_distribution(logits)
    dist.apply_masking(masks)
    torch.manual_seed(0)
    draws = torch.stack([dist.sample() for _ in range(4000)])                 # (4000, 4)
    assert masks[torch.arange(4)[None, :].expand_as(draws), draws].all()
    probs = torch.softmax(logits.masked_fill(~masks, -1e8), dim=1)
    for r in range(4):
        freq = torch.bincount(draws[:, r], minlength=40).float() / 4000
        assert (freq - probs[r]).abs().max() < 0.04


def test_positions_and_the_log_softmax():
    masks = torch.tensor([[False, True, False, True], [True, False, False, False]])
    idx, valid = legal_positions(masks)
    assert idx.tolist() == [[1, 3], [0, 0]] and valid.tolist() == [[True, True], [True, False]]
    logp = legal_log_softmax(torch.zeros(2, 4), idx, valid)
    torch.testing.assert_close(logp[0], torch.log(torch.tensor([0.5, 0.5])))
    assert logp[1, 0] == 0 and logp[1, 1] == float("-inf")


def test_without_masks_or_with_an_empty_row_it_is_the_dense_distribution():
    logits, masks = _case(3, B=8, A=20)
    masks[2] = False
    for m in (None, masks):
        ref = MaskableCategoricalDistribution(20).proba_distribution(logits)
        ref.apply_masking(m)
        new = LegalCategoricalDistribution(20).proba_distribution(logits)
        new.apply_masking(m)
        a = torch.zeros(8, dtype=torch.long)
        torch.testing.assert_close(new.log_prob(a), ref.log_prob(a))
        torch.testing.assert_close(new.entropy(), ref.entropy())


def test_a_policy_gets_it_and_keeps_its_layers():
    import gymnasium
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    obs_space = gymnasium.spaces.Box(0, 1, (6,), np.float32)
    policy = MaskableActorCriticPolicy(obs_space, gymnasium.spaces.Discrete(30), lambda _: 1e-3, net_arch=[16])
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    obs = torch.rand(5, 6)
    masks = np.zeros((5, 30), bool)
    masks[:, [2, 9, 17]] = True
    values, logp_ref, ent_ref = policy.evaluate_actions(obs, torch.tensor([2, 9, 17, 2, 9]), action_masks=masks)
    use_legal_distribution(policy)
    assert isinstance(policy.action_dist, LegalCategoricalDistribution)
    assert all(torch.equal(before[k], v) for k, v in policy.state_dict().items())
    values2, logp, ent = policy.evaluate_actions(obs, torch.tensor([2, 9, 17, 2, 9]), action_masks=masks)
    torch.testing.assert_close(logp, logp_ref)
    torch.testing.assert_close(ent, ent_ref)
    actions, _, _ = policy(obs, action_masks=masks)
    assert set(actions.tolist()) <= {2, 9, 17}
