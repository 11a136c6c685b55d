"""Steps per second: the engine alone, one environment, and a batch.

    python -m arena_envs.bench [--game spring2021] [--league L] [--seconds 2] [--batch 1024]

The agent answers against the built-in ``random`` bot with entry 0 of the action table in Spring
2021 (WAIT, always legal) and in Lang Wars (``0 0 0 0 0``: on even turns the rules read its first
two targets), and with the first legal entry in Coup (``argmax`` of the mask, whose cost is then
in the figures): the figures are the environments' own cost. A step is one answer of
the agent (the opponent's answers in between are included); the engine's figure counts every
answer of its built-in bots, which is the same work per ask.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from . import _core
from ._envs import ArenaGym, BatchEnv


def single(game: str, league, seconds: float, text: bool, copy: bool):
    env = ArenaGym(game, opponents=("random",), league=league, text=text, copy=copy)
    obs, _ = env.reset(seed=1)
    constant = game != "coup"
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(256):
            action = 0 if constant else int(obs["action_mask"].argmax())
            obs, _, terminated, _, _ = env.step(action)
            steps += 1
            if terminated:
                # As a training loop does: the next game's seed drawn from the first one's (a
                # seed given to every reset makes Gymnasium build a new generator, ~30 µs).
                obs, _ = env.reset()
    elapsed = time.perf_counter() - started
    return steps, elapsed, env.core.asks


def core_only(game: str, league, seconds: float):
    """The Rust environment's own step (features and mask copied out), without the Gym layer."""
    names = [None] + ["random"] * (_core.describe(game, league, {})["players"] - 1)
    env = _core.Env(game, names, 1, league, {}, False)
    steps = 0
    seed = 1
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(256):
            env.features()
            mask = env.mask()
            env.step_index(mask.index(1) if game == "coup" else 0)
            steps += 1
            if env.current() is None:
                seed += 1
                env.reset(seed)
    return steps, time.perf_counter() - started, env.asks


def batch(game: str, league, seconds: float, n: int):
    env = BatchEnv(game, n, opponents=("random",), league=league)
    _, masks, _ = env.reset(seed=1)
    constant = game != "coup"
    actions = np.zeros(n, np.int64)
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(16):
            if not constant:
                actions = masks.argmax(axis=1)
            _, masks, _, _, _ = env.step(actions)
            steps += n
    return steps, time.perf_counter() - started, env._core.asks


def call_cost(seconds: float = 0.3) -> float:
    """Seconds per call of a Rust function that does nothing."""
    calls = 0
    noop = _core.noop
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(10_000):
            noop()
        calls += 10_000
    return (time.perf_counter() - started) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="spring2021")
    parser.add_argument("--league", default=None)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--batch", type=int, default=1024)
    args = parser.parse_args()
    game, league, seconds = args.game, args.league, args.seconds

    asks, games, elapsed = _core.engine_bench(game, "random", seconds, league)
    engine_rate = asks / elapsed
    print(f"{game}: engine in process (random bots): {engine_rate:,.0f} asks/s "
          f"({games / elapsed:,.0f} games/s, {1e9 / engine_rate:.0f} ns per ask)")
    call = call_cost()
    print(f"  a call from Python into Rust: {call * 1e9:.0f} ns")

    def line(label, steps, elapsed, asks):
        per_step = asks / steps
        engine = per_step / engine_rate
        cost = elapsed / steps
        print(f"  {label}: {steps / elapsed:,.0f} steps/s ({cost * 1e9:.0f} ns per step; "
              f"{per_step:.2f} asks per step, the engine's cost {engine * 1e9:.0f} ns; "
              f"{cost / (engine + call):.2f}x the engine's cost plus the call)")

    line("core env (features + mask + step, no Gym layer)", *core_only(game, league, seconds))
    for text, copy in ((False, False), (False, True), (True, True)):
        line(f"gym env, text={text}, copy={copy}", *single(game, league, seconds, text, copy))
    line(f"batch of {args.batch}", *batch(game, league, seconds, args.batch))


if __name__ == "__main__":
    main()
