"""The RLlib policy of one seat: a masked MLP whose policy half is exactly an agent file's network.

RLlib's current API stack puts the network in an ``RLModule``. This one reads the
AEC env's observation dict as it comes (``{"observation": (D,), "action_mask": (A,)}``)
and has two MLPs:

* the policy: ``hidden.0 .. hidden.n-1`` (tanh or relu) then ``action``, the layout of
  :mod:`agents.agent_file`, so :meth:`MaskedMLPModule.policy_layers` exports it as is;
* the value function: its own MLP of the same sizes (PPO's critic, not exported).

Illegal actions get the logit ``FLOAT_MIN`` inside the module, in every forward pass
(inference, exploration and training), so RLlib never samples one and PPO's ratio and
entropy are computed over the legal actions only. Rows with no legal action (the
observations of players not to act, terminal observations) keep finite logits.

``model_config``: ``hidden`` (list of layer sizes, default ``[256, 256]``) and
``activation`` (``"tanh"``, the default, or ``"relu"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
DEFAULT_HIDDEN = (256, 256)


def _mlp(sizes: list[int], activation: str) -> nn.Sequential:
    """Linear layers between ``sizes``, each followed by the activation."""
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every illegal entry (``mask == 0``) set to ``FLOAT_MIN`` (finite: no NaN on empty rows)."""
    return torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """Masked policy MLP + value MLP over the AEC env's dict observation (see the module docstring)."""

    def setup(self) -> None:
        hidden = [int(h) for h in self.model_config.get("hidden", DEFAULT_HIDDEN)]
        activation = str(self.model_config.get("activation", "tanh"))
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} is not one of {sorted(ACTIVATIONS)}")
        self.activation = activation
        obs_size = int(self.observation_space["observation"].shape[0])
        n_actions = int(self.action_space.n)
        sizes = [obs_size, *hidden]
        self.pi = _mlp(sizes, activation)
        self.action = nn.Linear(sizes[-1], n_actions)
        self.vf = _mlp(sizes, activation)
        self.value = nn.Linear(sizes[-1], 1)
        nn.init.orthogonal_(self.action.weight, gain=0.01)   # near-uniform over the legal actions at first
        nn.init.zeros_(self.action.bias)

    def _logits(self, batch: dict[str, Any]) -> torch.Tensor:
        obs = batch[Columns.OBS]
        return mask_logits(self.action(self.pi(obs["observation"].float())), obs["action_mask"])

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The critic's value of each observation (PPO's baseline and GAE)."""
        return self.value(self.vf(batch[Columns.OBS]["observation"].float())).squeeze(-1)

    def policy_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(weight, bias) of every policy layer, the action layer last: what an agent file stores."""
        linears = [m for m in self.pi if isinstance(m, nn.Linear)] + [self.action]
        return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]


def layers_from_state(state: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy layers of a :class:`MaskedMLPModule` state dict (``pi.{i}.*`` then ``action.*``).

    The learner's weights come as such a dict (``LearnerGroup.get_weights``), so an export
    needs no module object."""
    idx = sorted({int(k.split(".")[1]) for k in state if k.startswith("pi.") and k.endswith(".weight")})
    out = [(np.asarray(state[f"pi.{i}.weight"], np.float32), np.asarray(state[f"pi.{i}.bias"], np.float32))
           for i in idx]
    out.append((np.asarray(state["action.weight"], np.float32), np.asarray(state["action.bias"], np.float32)))
    return out
