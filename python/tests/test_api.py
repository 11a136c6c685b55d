"""PettingZoo's and Gymnasium's own API checks, for every game id (and Spring 2021's leagues)."""

import json
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import arena_envs

CASES = [
    ("langwars", {}),
    ("langwars2", {}),
    ("negotiate", {}),
    ("spring2021", {}),
    ("spring2021", {"league": "wood2"}),
    ("spring2021", {"league": "wood1"}),
    ("spring2021", {"league": "bronze"}),
    ("coup", {}),
]
IDS = [g + ("-" + o["league"] if o else "") for g, o in CASES]


def test_every_game_is_offered():
    assert arena_envs.games() == ["langwars", "langwars2", "negotiate", "spring2021", "coup"]


@pytest.mark.parametrize("game,options", CASES, ids=IDS)
def test_pettingzoo_aec_api(game, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(arena_envs.env(game, **options), num_cycles=300)


@pytest.mark.parametrize("game,options", CASES, ids=IDS)
def test_pettingzoo_parallel_api(game, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(arena_envs.parallel_env(game, **options), num_cycles=300)


@pytest.mark.parametrize("game,options", CASES, ids=IDS)
def test_gymnasium_check_env(game, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(arena_envs.gym_env(game, **options), skip_render_check=False)


@pytest.mark.parametrize("game,options", CASES, ids=IDS)
def test_random_legal_games_end_with_rewards(game, options):
    """Legal actions from the mask always play a game to its end, with rewards that sum to 0."""
    env = arena_envs.env(game, **options)
    rng = np.random.default_rng(7)
    for seed in range(3):
        env.reset(seed=seed)
        total = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter(10_000):
            obs, reward, term, trunc, info = env.last()
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) > 0
            env.step(int(rng.choice(legal)))
        assert not env.agents
        assert abs(sum(total.values())) < 1e-6
        assert "faults" in info and not any(info["faults"]), info["faults"]


@pytest.mark.parametrize("game", ["langwars", "spring2021", "coup"])
def test_text_and_index_actions_agree(game):
    """Answering with an index and with the text that index is written as give the same game."""
    by_index = arena_envs.env(game)
    by_text = arena_envs.env(game)
    rng = np.random.default_rng(3)
    by_index.reset(seed=11)
    by_text.reset(seed=11)
    while by_index.agents:
        obs = by_index.observe(by_index.agent_selection)
        assert obs["text"] == by_text.observe(by_text.agent_selection)["text"]
        if by_index.terminations[by_index.agent_selection]:
            by_index.step(None)
            by_text.step(None)
            continue
        index = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        wrote, printed = by_index.action_text(index)
        by_index.step(index)
        by_text.step((wrote, printed))
    assert by_index.core.outcome() == by_text.core.outcome()


@pytest.mark.parametrize("league", ["wood2", "wood1", "bronze"])
def test_spring2021_mask_is_the_referees_list(league):
    """The legal entries are exactly the possible actions the referee lists in the input."""
    env = arena_envs.env("spring2021", league=league)
    labels = arena_envs.describe("spring2021")["action_labels"]
    rng = np.random.default_rng(1)
    env.reset(seed=9)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        lines = obs["text"].splitlines()
        count_at = max(i for i, line in enumerate(lines) if line.isdigit() and i + 1 + int(line) == len(lines))
        listed = set(lines[count_at + 1 :])
        legal = np.flatnonzero(obs["action_mask"])
        assert {labels[i] for i in legal} == listed
        env.step(int(rng.choice(legal)))


def test_coup_mask_is_the_arbiters_legal_moves():
    env = arena_envs.env("coup")
    rng = np.random.default_rng(2)
    for seed in range(20):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            written = {env.action_text(i)[0] for i in legal}
            assert written == set(obs["args"][3:])
            env.step(int(rng.choice(legal)))


@pytest.mark.parametrize("game", ["langwars", "langwars2", "negotiate", "spring2021", "coup"])
def test_every_built_in_bot_is_an_opponent(game):
    """`gym_env(game, opponents=[NAME])` for each built-in bot (and a handicap, `NAME@P`); `search`,
    which searches for as long as the time limit allows, is left out for time."""
    names = [b for b in arena_envs.describe(game)["bots"] if b != "search"] + ["random@50"]
    rng = np.random.default_rng(4)
    for name in names:
        env = arena_envs.gym_env(game, opponents=[name], text=False)
        obs, _ = env.reset(seed=8)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert reward in (-1.0, 1.0, 0.0) or game.startswith(("langwars", "negotiate"))
        assert not info["faults"][0], (name, info["faults"])


def test_unknown_names_are_errors_that_say_what_exists():
    with pytest.raises(ValueError, match="the games"):
        arena_envs.env("chess")
    with pytest.raises(ValueError, match="built-in bots"):
        arena_envs.gym_env("spring2021", opponents=["nobody"])
    with pytest.raises(ValueError, match="league"):
        arena_envs.env("spring2021", league="diamond")
    with pytest.raises(ValueError):
        arena_envs.env("coup", deck="xyz")


def test_legal_actions_are_the_masked_entries_with_their_texts():
    env = arena_envs.gym_env("spring2021", opponents=["wood1"])
    obs, _ = env.reset(seed=12)
    legal = env.legal_actions()
    assert legal == np.flatnonzero(obs["action_mask"]).tolist()
    listed = set(obs["text"].splitlines()[-len(legal):])
    assert {env.action_text(i)[0] for i in legal} == listed


@pytest.mark.parametrize("game,options", CASES, ids=IDS)
def test_a_parallel_game_is_the_aec_game(game, options):
    """Agents asked at once are sent what the referee sends one at a time: the same actions give
    the same replay as the AEC environment, byte for byte."""
    par = arena_envs.parallel_env(game, record=True, **options)
    rng = np.random.default_rng(5)
    chosen = []
    obs, infos = par.reset(seed=21)
    rounds = 0
    while par.agents:
        asked = [a for a in par.agents if infos[a]["asked"]]
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in asked}
        chosen.extend((a, actions[a]) for a in asked)
        obs, rewards, terms, truncs, infos = par.step(actions)
        rounds += 1
    aec = arena_envs.env(game, record=True, **options)
    aec.reset(seed=21)
    for agent, action in chosen:
        assert aec.agent_selection == agent
        aec.step(action)
    assert json.loads(par.replay()) == json.loads(aec.replay())
    players = arena_envs.describe(game)["players"]
    if game != "coup":
        assert rounds < len(chosen), "several agents are asked at once"
