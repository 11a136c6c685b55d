"""`reset(seed=S)` is the game of `arena play GAME --seed S`: an environment driven with the answers
of an `arena play` replay (and of the official conformance transcripts kept in the repository) is
sent the same inputs and ends with the same result."""

import json
import subprocess

import pytest

import arena_envs
from conftest import REPO

# (game, league, bots of the seats): process bots (`arena bot ...`) record every input and output.
PLAYS = [
    ("langwars", None, ["random", "spread", "focus", "greedy"]),
    ("langwars2", None, ["random", "greedy", "random", "focus"]),
    ("negotiate", None, ["greedy", "random", "spread", "random"]),
    ("spring2021", None, ["random", "wood1"]),
    ("spring2021", "wood2", ["random", "wood2"]),
    ("spring2021", "wood1", ["wood1", "random"]),
    ("coup", None, ["random", "challenger"]),
]
SEEDS = [1, 42, 987654321]

# Fields of a step that a replay keeps from the game itself (timing and stderr are the machine's).
STEP_FIELDS = ("player", "input", "output", "action", "fault")


def play(arena, tmp_path, game, league, bots, seed, process_seats):
    """`arena play` with the seats in `process_seats` as `arena bot` processes; its replay."""
    replay = tmp_path / f"{game}-{seed}.json"
    argv = [arena, "play", game, "--seed", str(seed), "--replay", str(replay), "--sandbox", "none"]
    if league:
        argv += ["--league", league]
    for seat, bot in enumerate(bots):
        if seat in process_seats:
            command = f"{arena} bot {game} {bot}"
            if game != "coup":
                command += f" --seed {seat + 7}"
            argv += ["--bot", command]
        else:
            argv += ["--bot", bot]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(replay.read_text())


def answer_of(game, step):
    """The recorded answer as the environment takes it: the line, or what a call appended and printed."""
    if game == "coup":
        return json.loads(step["output"])
    return step["output"]


def drive_all_seats(game, league, recorded):
    """Every seat from Python, answering what the replay's processes answered."""
    env = arena_envs.env(game, league=league, record=True)
    env.reset(seed=int(recorded["seed"]))
    for index, step in enumerate(recorded["steps"]):
        agent = env.agent_selection
        assert agent == f"player_{step['player']}", f"step {index}"
        obs = env.observe(agent)
        if game == "coup":
            assert json.dumps(list(obs["args"])) == step["input"], f"step {index}"
        else:
            assert obs["text"] == step["input"], f"step {index}"
        env.step(answer_of(game, step))
    assert all(env.terminations.values()), "the replay ended but the environment goes on"
    return env


def same_game(mine, theirs):
    assert mine["game"] == theirs["game"]
    assert mine["seed"] == theirs["seed"]
    assert mine["config"] == theirs["config"]
    assert mine["outcome"] == theirs["outcome"]
    assert len(mine["steps"]) == len(theirs["steps"])
    for index, (a, b) in enumerate(zip(mine["steps"], theirs["steps"])):
        for field in STEP_FIELDS:
            assert a.get(field) == b.get(field), f"step {index}: {field}"
    assert mine.get("frames") == theirs.get("frames")
    for a, b in zip(mine["players"], theirs["players"]):
        assert [f["fault"] for f in a.get("faults", [])] == [f["fault"] for f in b.get("faults", [])]


@pytest.mark.parametrize("game,league,bots", PLAYS, ids=[f"{g}-{l or 'default'}" for g, l, _ in PLAYS])
@pytest.mark.parametrize("seed", SEEDS)
def test_an_arena_play_replay_is_the_same_game(arena, tmp_path, game, league, bots, seed):
    recorded = play(arena, tmp_path, game, league, bots, seed, set(range(len(bots))))
    env = drive_all_seats(game, league, recorded)
    mine = json.loads(env.replay())
    same_game(mine, recorded)


@pytest.mark.parametrize("game,league,bots", PLAYS, ids=[f"{g}-{l or 'default'}" for g, l, _ in PLAYS])
def test_built_in_opponents_are_seeded_as_arena_play_seeds_them(arena, tmp_path, game, league, bots):
    """Seat 0 a process, the others built-in: the gym environment with those opponents, driven with
    seat 0's answers, is the same game, the opponents' moves included."""
    seed = 31337
    recorded = play(arena, tmp_path, game, league, bots, seed, {0})
    env = arena_envs.gym_env(game, opponents=bots[1:], league=league, record=True)
    obs, _ = env.reset(seed=seed)
    mine_steps = [s for s in recorded["steps"] if s["player"] == 0]
    for index, step in enumerate(mine_steps):
        if game == "coup":
            assert json.dumps(list(obs["args"])) == step["input"], f"ask {index}"
        else:
            assert obs["text"] == step["input"], f"ask {index}"
        obs, reward, terminated, truncated, info = env.step(answer_of(game, step))
    assert terminated
    same_game(json.loads(env.replay()), recorded)
    ranks = recorded["outcome"]["ranks"]
    assert info["ranks"] == ranks


def test_a_saved_replay_opens_in_arena(arena, tmp_path):
    """The viewer takes the environment's replay: `arena export` (the page `arena view` serves) reads it."""
    env = arena_envs.env("spring2021", record=True)
    env.reset(seed=5)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else 0)
    path = env.save_replay(str(tmp_path / "mine.replay.json"))
    data = json.loads(open(path).read())
    assert data["game"] == "spring2021" and data["frames"]
    page = tmp_path / "mine.html"
    done = subprocess.run([arena, "export", path, "-o", str(page)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert page.stat().st_size > 0


def read_jsonl(path):
    with open(path) as lines:
        return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("edition,game", [("lw1", "langwars"), ("lw2", "langwars2"), ("nc", "negotiate")])
def test_langwars_conformance_transcripts(edition, game):
    for t in read_jsonl(REPO / f"crates/arena-langwars/tests/data/langwars-{edition}.jsonl"):
        env = arena_envs.env(game)
        env.reset(seed=t["seed"])
        for turn in t["turns"]:
            for player, lines in enumerate(turn["inputs"]):
                agent = env.agent_selection
                assert agent == f"player_{player}"
                expected = (t["settings"] if turn["turn"] == 1 else []) + lines
                assert env.observe(agent)["text"] == "".join(l + "\n" for l in expected)
                env.step(turn["outputs"][player])
        assert all(env.terminations.values())
        info = env.infos["player_0"]
        assert info["scores"] == [s / 24 for s in t["scores_24ths"]]
        assert info["winner"] == t["winner"]


@pytest.mark.parametrize("league", [1, 2, 3])
def test_spring2021_conformance_transcripts(league):
    names = {1: "wood2", 2: "wood1", 3: "bronze"}
    for t in read_jsonl(REPO / f"crates/arena-spring2021/tests/data/spring2021-league{league}.jsonl"):
        env = arena_envs.env("spring2021", league=names[league])
        env.reset(seed=t["seed"])
        first = [True, True]
        for ex in t["execs"]:
            agent = env.agent_selection
            assert agent == f"player_{ex['p']}"
            expected = list(ex["in"])
            if first[ex["p"]]:
                expected = (t["init"] if ex["p"] == 0 else t["init_p1"]) + expected
                first[ex["p"]] = False
            assert env.observe(agent)["text"] == "".join(l + "\n" for l in expected)
            env.step(ex["out"])
        assert all(env.terminations.values())
        assert [int(s) for s in env.infos["player_0"]["exact_scores"]] == t["scores"]


def test_coup_conformance_transcripts():
    for t in read_jsonl(REPO / "crates/arena-coup/tests/data/coup.jsonl"):
        env = arena_envs.env("coup", deck=t["deck"], no_shuffle=True)
        env.reset(seed=0)
        for call in t["calls"]:
            agent = env.agent_selection
            assert agent == f"player_{call['player']}"
            obs = env.observe(agent)
            assert list(obs["args"]) == call["args"]
            assert t["history"].startswith(obs["text"])
            env.step({"wrote": call["wrote"], "stdout": call["stdout"]})
        assert all(env.terminations.values())
        assert env.infos["player_0"]["winner"] == t["winner"]
