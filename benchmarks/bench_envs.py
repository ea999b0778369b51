"""Steps per second of the environments, on one core, with uniformly random legal actions.

* ``aec``: decisions per second of ``president_env.env()`` (the wrapped AEC env, default
  ``president`` preset, 4 players), through ``last()`` and ``step()`` as a user drives it;
* ``connect_four_v3``: the same loop over PettingZoo's own classic env, timed in slices
  alternating with ``aec``, as the reference (bar: ``aec`` at least as fast per decision);
* ``vecenv_1024``: learner steps per second of ``training.vec_env.PresidentVecEnv`` with
  B = 1024 games, random opponents played inside ``step``;
* ``dummyvecenv_1024``: learner steps per second of SB3's ``DummyVecEnv`` over 1024
  ``training.gym_env.PresidentGymEnv`` (bar: ``vecenv_1024`` at least 20 times this);
* ``gymvector_1024``: learner decisions per second of ``training.vector_env.PresidentVectorEnv``
  (the Gymnasium vector env over the same machinery as ``vecenv_1024``) with 1024 games; the
  autoreset steps (next-step autoreset: a step that only starts a new game) are not counted
  (bar: at least 0.8 times ``vecenv_1024``). The two are timed in alternating slices
  (``--seconds`` each in all), so that the ratio compares them under the same load.

    python benchmarks/bench_envs.py            # a table with the three ratios
    python benchmarks/bench_envs.py --json     # [{"name", "steps_per_s"}, ...]

``connect_four_v3`` imports pygame (for its renderer only); without pygame installed a
stand-in module is put in its place so that the env can be timed (it never renders here).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from _common import one_core  # noqa: E402


def _timed(run_once, seconds: float) -> float:
    """Repeat ``run_once() -> steps`` for about ``seconds``; steps per second."""
    run_once()  # warm up
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += run_once()
    return steps / elapsed


def _aec_stepper(env, seed: int = 0):
    """``run_once() -> decisions``: 200 random legal decisions of an AEC env (resets included, dead steps
    not counted)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def run_once(n: int = 200) -> int:
        done = 0
        while done < n:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset()
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            done += 1
        return done

    return run_once


def aec_loop(env, seconds: float, seed: int = 0) -> float:
    """Decisions per second driving an AEC env with random legal actions."""
    return _timed(_aec_stepper(env, seed), seconds)


def _connect_four_env():
    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")  # only its renderer needs pygame
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def _alternating(steppers: list, seconds: float, rounds: int) -> list[float]:
    """Steps per second of each ``run_once``, timed in alternating slices so that a change of the machine's
    load hits all alike."""
    steps, spent = [0] * len(steppers), [0.0] * len(steppers)
    for run_once in steppers:
        run_once()  # warm up
    for _ in range(rounds):
        for k, run_once in enumerate(steppers):
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds / rounds:
                steps[k] += run_once()
            spent[k] += elapsed
    return [n / t for n, t in zip(steps, spent, strict=True)]


def bench_aec_pair(seconds: float, rounds: int = 6) -> tuple[float, float]:
    """Decisions per second of ``president_env.env()`` and of PettingZoo's ``connect_four_v3``, in
    alternating slices."""
    import president_env

    aec, c4 = _alternating([_aec_stepper(president_env.env("president")), _aec_stepper(_connect_four_env())],
                           seconds, rounds)
    return aec, c4


def _vec_stepper(venv, masks, seed: int = 0):
    """``run_once() -> steps``: one SB3 VecEnv step of random legal actions."""
    rng = np.random.default_rng(seed)
    venv.seed(seed)
    venv.reset()
    B = venv.num_envs

    def run_once() -> int:
        m = masks()
        venv.step(np.argmax(m * rng.random(m.shape, dtype=np.float32), axis=1))
        return B

    return run_once


def _vec_loop(venv, masks, seconds: float, seed: int = 0) -> float:
    return _timed(_vec_stepper(venv, masks, seed), seconds)


def _gym_vector_stepper(envs, seed: int = 0):
    """``run_once() -> decisions``: one Gymnasium vector env step; an autoreset step is no decision."""
    rng = np.random.default_rng(seed)
    _, infos = envs.reset(seed=seed)
    last = {"infos": infos, "done": np.zeros(envs.num_envs, dtype=bool)}

    def run_once() -> int:
        m = last["infos"]["action_mask"]
        _, _, terminated, truncated, last["infos"] = envs.step(np.argmax(m * rng.random(m.shape, dtype=np.float32),
                                                                         axis=1))
        decisions = envs.num_envs - int(last["done"].sum())
        last["done"] = terminated | truncated
        return decisions

    return run_once


def bench_vec_pair(num_envs: int, seconds: float, rounds: int = 4) -> tuple[float, float]:
    """Steps per second of the SB3 VecEnv and of the Gymnasium vector env (both ``president``, random
    opponents), timed in alternating slices so that a change of the machine's load hits both alike."""
    from training.vec_env import PresidentVecEnv
    from training.vector_env import make_vec

    venv = PresidentVecEnv(num_envs, "president")
    vec, gym_vector = _alternating([_vec_stepper(venv, venv.action_masks),
                                    _gym_vector_stepper(make_vec("president", num_envs))], seconds, rounds)
    return vec, gym_vector


def bench_dummyvecenv(num_envs: int, seconds: float) -> float:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.gym_env import PresidentGymEnv

    venv = DummyVecEnv([lambda: PresidentGymEnv("president") for _ in range(num_envs)])
    return _vec_loop(venv, lambda: np.stack(venv.env_method("action_masks")), seconds)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="measuring time per row")
    ap.add_argument("--num-envs", type=int, default=1024, help="games in the VecEnv and envs in the DummyVecEnv")
    ap.add_argument("--json", action="store_true", help="print one JSON list of rows")
    args = ap.parse_args(argv)
    one_core()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    B = args.num_envs
    aec, c4 = bench_aec_pair(args.seconds)
    rows = [{"name": "aec", "steps_per_s": aec}, {"name": "connect_four_v3", "steps_per_s": c4}]
    vec, gym_vector = bench_vec_pair(B, args.seconds)
    rows += [
        {"name": f"vecenv_{B}", "steps_per_s": vec},
        {"name": f"dummyvecenv_{B}", "steps_per_s": bench_dummyvecenv(B, max(args.seconds, 3.0))},
        {"name": f"gymvector_{B}", "steps_per_s": gym_vector},
    ]
    if args.json:
        print(json.dumps(rows))
        return rows
    from rich.console import Console
    from rich.table import Table

    by = {r["name"]: r["steps_per_s"] for r in rows}
    table = Table(title="Environments: random legal actions, one core")
    table.add_column("env")
    table.add_column("steps/s", justify="right")
    for r in rows:
        table.add_row(r["name"], f"{r['steps_per_s']:,.0f}")
    console = Console()
    console.print(table)
    console.print(f"aec / connect_four_v3 = {by['aec'] / by['connect_four_v3']:.2f} (bar: >= 1)")
    console.print(f"vecenv_{B} / dummyvecenv_{B} = {by[f'vecenv_{B}'] / by[f'dummyvecenv_{B}']:.1f} (bar: >= 20)")
    console.print(f"gymvector_{B} / vecenv_{B} = {by[f'gymvector_{B}'] / by[f'vecenv_{B}']:.2f} (bar: >= 0.8)")
    return rows


if __name__ == "__main__":
    main()
