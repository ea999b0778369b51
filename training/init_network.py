"""Start a network from an agent file (``--init``): read the file, load its policy layers into SB3's policy.

An agent file holds the policy alone (:mod:`agents.agent_file`): its hidden layers and action layer. The
network it starts keeps them and gets a new value head; both ``president train --method expert-iteration``
and PPO (``--init``) start from it this way.
"""

from __future__ import annotations

from typing import Any

import torch

from agents.agent_file import FileAgent
from agents.registry import make_agent
from president_env.core import Rules

ACTIVATION_FNS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def read_init_agent(rules: Rules, spec: str) -> FileAgent:
    """The agent file ``spec`` names (``zoo:NAME``, ``ppo:FILE`` or a path), checked against ``rules``."""
    agent = make_agent(spec, rules) if ":" in spec else FileAgent(spec, rules)
    if not isinstance(agent, FileAgent):
        raise ValueError(f"--init {spec}: not an agent file (give zoo:NAME, ppo:FILE.agent.safetensors or a path)")
    return agent


def architecture(agent: FileAgent) -> tuple[list[int], str]:
    """The agent file's hidden layer sizes and activation (``tanh`` or ``relu``)."""
    arch = agent.metadata["architecture"]
    return list(arch["hidden"]), str(arch["activation"])


def load_policy_layers(policy: Any, agent: FileAgent) -> None:
    """Copy the agent file's layers into an SB3 maskable actor-critic ``policy`` of the same shape (the value
    head is left as it is)."""
    hidden, _ = architecture(agent)
    state = policy.state_dict()
    names = [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(hidden))] + ["action_net"]
    for name, (w, b) in zip(names, agent.layers, strict=True):
        if tuple(state[f"{name}.weight"].shape) != w.shape:
            raise ValueError(f"--init {agent.path}: its layer {name} is {w.shape[0]}x{w.shape[1]}, the network's "
                             f"{'x'.join(map(str, state[f'{name}.weight'].shape))}")
        state[f"{name}.weight"] = torch.as_tensor(w)
        state[f"{name}.bias"] = torch.as_tensor(b)
    policy.load_state_dict(state)
