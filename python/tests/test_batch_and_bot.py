"""Batches are the same games as single environments; a policy served by `run_bot` plays
`arena play` as the environment would have played it."""

import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import arena_envs

GAMES = ["langwars", "langwars2", "negotiate", "spring2021", "coup"]
OPPONENTS = {"langwars": "greedy", "langwars2": "focus", "negotiate": "spread",
             "spring2021": "wood1", "coup": "challenger"}


def last_legal(mask):
    return int(np.flatnonzero(mask)[-1])


@pytest.mark.parametrize("game", GAMES)
def test_the_fast_gym_path_passes_check_env(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(arena_envs.gym_env(game, text=False))


@pytest.mark.parametrize("game", GAMES)
def test_a_batch_plays_the_games_of_single_environments(game):
    n, seed = 8, 100
    batch = arena_envs.BatchEnv(game, n, opponents=[OPPONENTS[game]])
    features, masks, acting = batch.reset(seed=seed)
    singles = [arena_envs.gym_env(game, opponents=[OPPONENTS[game]], text=False) for _ in range(n)]
    observations = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    live = [True] * n
    while any(live):
        for i in range(n):
            if live[i]:
                assert np.array_equal(features[i], observations[i]["observation"])
                assert np.array_equal(masks[i], observations[i]["action_mask"])
                assert acting[i] == 0
        actions = np.array([last_legal(m) for m in masks], np.int64)
        expected = {}
        for i in range(n):
            if live[i]:
                observations[i], reward, done, _, _ = singles[i].step(int(actions[i]))
                expected[i] = (reward, done)
        features, masks, rewards, dones, acting = batch.step(actions)
        for i, (reward, done) in expected.items():
            assert bool(dones[i]) == done
            assert rewards[i, 0] == reward
            if done:
                live[i] = False
    assert batch.finished >= n


def test_self_play_batches_ask_every_seat():
    batch = arena_envs.BatchEnv("spring2021", 16, self_play=True)
    features, masks, acting = batch.reset(seed=1)
    seen = set()
    finished = 0
    while finished < 32:
        seen.update(acting.tolist())
        _, masks, rewards, dones, acting = batch.step(np.argmax(masks, axis=1))
        finished += int(dones.sum())
        assert np.allclose(rewards.sum(axis=1), 0)
    assert seen == {0, 1}


BOT = """
import sys
import numpy as np
sys.path[:0] = {path!r}
import arena_envs

def policy(obs):
    return int(np.flatnonzero(obs["action_mask"])[-1])

arena_envs.run_bot({game!r}, policy)
"""


@pytest.mark.parametrize("game", GAMES)
def test_a_policy_plays_arena_play_as_a_bot(arena, tmp_path, game):
    script = tmp_path / "mybot.py"
    script.write_text(BOT.format(path=sys.path, game=game))
    players = arena_envs.describe(game)["players"]
    opponents = [OPPONENTS[game]] * (players - 1)
    replay = tmp_path / "game.json"
    seed = 2024
    argv = [arena, "play", game, "--seed", str(seed), "--replay", str(replay), "--sandbox", "none",
            "--bot", f"{sys.executable} {script}"]
    for name in opponents:
        argv += ["--bot", name]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    recorded = json.loads(replay.read_text())
    assert not recorded["players"][0].get("faults"), recorded["players"][0]

    # The same policy in the environment: the same game.
    env = arena_envs.gym_env(game, opponents=opponents)
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(last_legal(obs["action_mask"]))
    assert info["ranks"] == recorded["outcome"]["ranks"]
    assert info["exact_scores"] == [str(s) for s in recorded["outcome"]["scores"]]
