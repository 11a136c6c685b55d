"""The environment classes over the Rust core (``_core``)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from . import _core

#: Characters the protocols' texts are made of: ASCII (Coup's history keeps a character of junk a
#: bot wrote before its move, any ASCII but a newline).
CHARSET = frozenset(chr(i) for i in range(128))
#: Longest observation text accepted by the spaces (the longest real one is a few kB).
MAX_TEXT = 1 << 16
SEED_MASK = (1 << 64) - 1

Action = Union[int, np.integer, str, tuple, dict]


def games() -> List[str]:
    """The game ids."""
    return list(_core.games())


def describe(game: str, league: Optional[str] = None, **options: Any) -> Dict[str, Any]:
    """What ``game`` offers: ``players``, ``action_count``, ``feature_count``, ``action_labels``
    (the text of each action table entry), ``bots`` (built-in bots: name -> about), ``leagues``,
    ``options`` (name -> help), ``calls`` (one process per move, as Coup) and ``about``."""
    return dict(_core.describe(game, league, options))


def _game_seed(seed: int) -> int:
    """A seed as arena takes it: negative seeds are their 64-bit pattern (Java longs)."""
    return int(seed) & SEED_MASK


class _Game:
    """What the three environment kinds share: the core, the spaces, observations, actions."""

    def __init__(
        self,
        game: str,
        seats: Sequence[Optional[str]],
        league: Optional[str],
        record: bool,
        text: bool,
        options: Dict[str, Any],
    ) -> None:
        self.game = game
        self.league = league
        self.description = describe(game, league, **options)
        self.core = _core.Env(game, list(seats), 0, league, options, record)
        self.with_text = text
        self.calls = bool(self.description["calls"])
        n_features = self.description["feature_count"]
        n_actions = self.description["action_count"]
        parts: Dict[str, spaces.Space] = {
            "observation": spaces.Box(-1e9, 1e9, (n_features,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        }
        if text:
            parts["text"] = spaces.Text(MAX_TEXT, min_length=0, charset=CHARSET)
            if self.calls:
                parts["args"] = spaces.Sequence(
                    spaces.Text(64, min_length=0, charset=CHARSET)
                )
        self.observation_space = spaces.Dict(parts)
        self.action_space = spaces.Discrete(n_actions)
        self.n_features = n_features
        self.n_actions = n_actions

    def blank(self) -> Dict[str, Any]:
        """The observation of a seat with no ask (before its first, after the end)."""
        obs: Dict[str, Any] = {
            "observation": np.zeros(self.n_features, np.float32),
            "action_mask": np.zeros(self.n_actions, np.int8),
        }
        if self.with_text:
            obs["text"] = ""
            if self.calls:
                obs["args"] = ()
        return obs

    def observe_now(self) -> Dict[str, Any]:
        """The current ask's observation."""
        core = self.core
        obs: Dict[str, Any] = {
            "observation": np.frombuffer(core.features(), np.float32).copy(),
            "action_mask": np.frombuffer(core.mask(), np.int8).copy(),
        }
        if self.with_text:
            obs["text"] = core.text()
            if self.calls:
                obs["args"] = tuple(core.args())
        return obs

    def round_observations(self) -> List[tuple]:
        """The players asked at once from now on, each with its observation: ``(seat, obs)``."""
        core = self.core
        if core.current() is None:
            return []
        asked = []
        for k, seat in enumerate(core.round()):
            text, args, features, mask = core.round_observation(k)
            obs: Dict[str, Any] = {
                "observation": np.frombuffer(features, np.float32).copy(),
                "action_mask": np.frombuffer(mask, np.int8).copy(),
            }
            if self.with_text:
                obs["text"] = text
                if self.calls:
                    obs["args"] = tuple(args)
            asked.append((seat, obs))
        return asked

    @staticmethod
    def round_answer(action: Action) -> Any:
        """An action as the round takes it: an int, or ``(written, printed)``."""
        if isinstance(action, (int, np.integer)) or (
            isinstance(action, np.ndarray) and action.shape == ()
        ):
            return int(action)
        if isinstance(action, str):
            return (action, "")
        if isinstance(action, dict):
            return (action.get("wrote", ""), action.get("stdout", ""))
        if isinstance(action, tuple) and len(action) == 2:
            return (str(action[0]), str(action[1]))
        raise TypeError(
            f"an action is an index (int) or the protocol's text (str), not {action!r}"
        )

    def act(self, action: Action) -> None:
        """Answers the current ask with an index or the protocol's text."""
        if isinstance(action, (int, np.integer)):
            self.core.step_index(int(action))
        elif isinstance(action, str):
            self.core.step_text(action)
        elif isinstance(action, dict):
            self.core.step_text(action.get("wrote", ""), action.get("stdout", ""))
        elif isinstance(action, tuple) and len(action) == 2:
            self.core.step_text(str(action[0]), str(action[1]))
        elif isinstance(action, np.ndarray) and action.shape == ():
            self.core.step_index(int(action))
        else:
            raise TypeError(
                f"an action is an index (int) or the protocol's text (str), not {action!r}"
            )

    def action_text(self, index: int) -> Optional[tuple]:
        """What table entry ``index`` is written as now: ``(line or appended, printed)``."""
        return self.core.index_text(int(index))

    def legal_actions(self) -> List[int]:
        """The entries of the action table that are legal at the current ask, in table order."""
        return [i for i, legal in enumerate(self.core.mask()) if legal]

    def outcome_info(self) -> Dict[str, Any]:
        outcome = self.core.outcome()
        if outcome is None:
            return {}
        scores, exact, ranks, winner = outcome
        return {
            "scores": list(scores),
            "exact_scores": list(exact),
            "ranks": list(ranks),
            "winner": winner,
            "faults": self.core.faults(),
        }

    def render_text(self, names: Sequence[str]) -> str:
        core = self.core
        head = f"{self.game}  seed {core.seed}\n"
        current = core.current()
        if current is None:
            info = self.outcome_info()
            lines = [head]
            for seat, name in enumerate(names):
                lines.append(
                    f"  {name}: score {info['exact_scores'][seat]}, rank {info['ranks'][seat]}\n"
                )
            winner = info["winner"]
            lines.append("winner: " + (names[winner] if winner is not None else "none (draw)") + "\n")
            return "".join(lines)
        text = core.text()
        if self.calls:
            text = f"history: {text!r}\nargs: {core.args()!r}\n"
        return f"{head}asked: {names[current]}\n{text}"

    def replay(self, names: Sequence[str]) -> str:
        return self.core.replay_json(list(names))

    def save_replay(self, path: str, names: Sequence[str]) -> str:
        """Writes the finished game as an arena replay (``arena view PATH`` shows it)."""
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.replay(names))
        return path


class _GameView:
    """What every environment over one game shows of it: the action table's entries, the legal
    ones, the text rendering and the replay, with its seats named by ``_seat_labels()``."""

    def _seat_labels(self) -> Sequence[str]:
        raise NotImplementedError

    def action_text(self, index: int) -> Optional[tuple]:
        """What table entry ``index`` is written as for the current ask."""
        return self._game.action_text(index)

    def legal_actions(self) -> List[int]:
        """The legal entries of the action table at the current ask."""
        return self._game.legal_actions()

    def render(self) -> Optional[str]:
        text = self._game.render_text(self._seat_labels())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def replay(self) -> str:
        """The finished game as an arena replay (JSON text); needs ``record=True``."""
        return self._game.replay(self._seat_labels())

    def save_replay(self, path: str) -> str:
        """Writes the finished game as an arena replay; ``arena view PATH`` opens it."""
        return self._game.save_replay(path, self._seat_labels())


class ArenaAEC(_GameView, AECEnv):
    """PettingZoo AEC environment: every seat is an agent, asked in the referee's order."""

    metadata = {"render_modes": ["ansi", "human"], "name": "arena_v0", "is_parallelizable": True}

    def __init__(
        self,
        game: str,
        league: Optional[str] = None,
        record: bool = False,
        text: bool = True,
        render_mode: Optional[str] = None,
        **options: Any,
    ) -> None:
        super().__init__()
        players = describe(game, league, **options)["players"]
        self._game = _Game(game, [None] * players, league, record, text, options)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        self.render_mode = render_mode
        self._rng = np.random.default_rng()
        self._obs_space = self._game.observation_space
        self._act_space = self._game.action_space
        self._reset_books()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    @property
    def core(self):
        """The Rust game (seed, text, scores, ...)."""
        return self._game.core

    def _reset_books(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._last = {a: self._game.blank() for a in self.agents}
        self.agent_selection = self.agents[0]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is None:
            seed = int(self._rng.integers(0, 2**63))
        else:
            self._rng = np.random.default_rng(_game_seed(seed))
        self._game.core.reset(_game_seed(seed))
        self._reset_books()
        self._sync()

    def _sync(self) -> None:
        current = self._game.core.current()
        if current is not None:
            agent = self.possible_agents[current]
            self.agent_selection = agent
            self._last[agent] = self._game.observe_now()
            return
        rewards = self._game.core.rewards()
        info = self._game.outcome_info()
        for seat, agent in enumerate(self.possible_agents):
            if agent in self.agents:
                self.rewards[agent] = float(rewards[seat])
                self.terminations[agent] = True
                self.infos[agent] = dict(info)

    def observe(self, agent: str) -> Dict[str, Any]:
        return self._last[agent]

    def step(self, action: Action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._game.act(action)
        self._sync()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _seat_labels(self) -> Sequence[str]:
        return self.possible_agents

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return f"arena_{self._game.game}"


class ArenaParallel(ParallelEnv):
    """PettingZoo parallel environment: each step asks at once every agent the referee asks before
    any of their answers is played (a Lang Wars turn: every live player; a Spring 2021 frame: both
    players, or the one not waiting; Coup: one call, since every move changes the next player's
    input). ``infos[agent]["asked"]`` says who is asked; the others' actions are ignored and their
    masks have no legal entry. The inputs are the referee's, byte for byte, as in the AEC
    environment: the rules take the answers in their order. An answer that is a fault (text the
    official parser refuses) would change what the players after it are told, so a step of more
    than one agent refuses it."""

    metadata = {"render_modes": ["ansi", "human"], "name": "arena_parallel_v0"}

    def __init__(
        self,
        game: str,
        league: Optional[str] = None,
        record: bool = False,
        text: bool = True,
        render_mode: Optional[str] = None,
        **options: Any,
    ) -> None:
        players = describe(game, league, **options)["players"]
        self._game = _Game(game, [None] * players, league, record, text, options)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        self.render_mode = render_mode
        self._rng = np.random.default_rng()
        self._last: Dict[str, Dict[str, Any]] = {}
        self._asked: List[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self._game.observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._game.action_space

    def _observations(self):
        self._asked = []
        for seat, obs in self._game.round_observations():
            agent = self.possible_agents[seat]
            self._last[agent] = obs
            self._asked.append(agent)
        infos = {a: {"asked": a in self._asked} for a in self.agents}
        obs = {}
        for a in self.agents:
            seen = self._last.get(a) or self._game.blank()
            if not infos[a]["asked"] and seen["action_mask"].any():
                # Not asked now: its last ask, with no legal entry.
                seen = dict(seen, action_mask=np.zeros(self._game.n_actions, np.int8))
            obs[a] = seen
        return obs, infos

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is None:
            seed = int(self._rng.integers(0, 2**63))
        else:
            self._rng = np.random.default_rng(_game_seed(seed))
        self._game.core.reset(_game_seed(seed))
        self.agents = self.possible_agents[:]
        self._last = {}
        return self._observations()

    def step(self, actions: Dict[str, Action]):
        if self._asked:
            missing = [a for a in self._asked if a not in actions]
            if missing:
                raise KeyError(f"{', '.join(missing)} asked: give their actions")
            answers = [_Game.round_answer(actions[a]) for a in self._asked]
            self._game.core.step_round(answers)
        obs, infos = self._observations()
        over = self._game.core.current() is None
        rewards = {a: 0.0 for a in self.agents}
        if over:
            values = self._game.core.rewards()
            info = self._game.outcome_info()
            for seat, agent in enumerate(self.possible_agents):
                if agent in self.agents:
                    rewards[agent] = float(values[seat])
                    infos[agent] = dict(info, asked=False)
        terminations = {a: over for a in self.agents}
        truncations = {a: False for a in self.agents}
        if over:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self) -> Optional[str]:
        text = self._game.render_text(self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def replay(self) -> str:
        return self._game.replay(self.possible_agents)

    def save_replay(self, path: str) -> str:
        return self._game.save_replay(path, self.possible_agents)

    def close(self) -> None:
        pass


class ArenaGym(_GameView, gymnasium.Env):
    """Gymnasium environment: seat ``seat`` played by the agent, the others by built-in bots
    seeded as ``arena play`` seeds them. The reward comes at the end: 1 for a win, -1 for a loss,
    0 for a draw (in games of more players, the share of the others finished ahead of minus the
    share finished behind).

    With ``text=False`` an index action takes one call into the engine. ``copy=False`` then hands
    out the same two arrays at every step (overwritten by the next one: the fastest, but not
    Gymnasium's contract, which wants new arrays; keep a copy of what you store)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        game: str,
        opponents: Sequence[str] = ("random",),
        seat: int = 0,
        league: Optional[str] = None,
        record: bool = False,
        text: bool = True,
        copy: bool = True,
        render_mode: Optional[str] = None,
        **options: Any,
    ) -> None:
        players = describe(game, league, **options)["players"]
        if isinstance(opponents, str):
            opponents = [opponents]
        if not 0 <= seat < players:
            raise ValueError(f"{game} has seats 0 to {players - 1}, not {seat}")
        others = [i for i in range(players) if i != seat]
        if len(opponents) not in (1, len(others)):
            raise ValueError(f"{game}: give one opponent for all or {len(others)} opponents")
        names: List[Optional[str]] = [None] * players
        for k, other in enumerate(others):
            names[other] = opponents[k if len(opponents) > 1 else 0]
        self.seat = seat
        self.seat_names = [n if n is not None else "agent" for n in names]
        self._game = _Game(game, names, league, record, text, options)
        self.observation_space = self._game.observation_space
        self.action_space = self._game.action_space
        self.render_mode = render_mode
        # The fast path: one call per step writes the features and mask into these arrays.
        self._copy = copy
        self._features = np.zeros(self._game.n_features, np.float32)
        self._mask = np.zeros(self._game.n_actions, np.int8)
        self._game.core.bind(self._features.ctypes.data, self._mask.ctypes.data)
        self._shared = {"observation": self._features, "action_mask": self._mask}
        self._step_bound = self._game.core.step_bound
        self._fast = render_mode is None and not text

    @property
    def core(self):
        return self._game.core

    def _observation(self) -> Dict[str, Any]:
        """The observation after the bound arrays were written: those arrays themselves with
        ``copy=False`` (the next step overwrites them), else copies."""
        game = self._game
        if game.with_text:
            obs = game.blank() if game.core.current() is None else game.observe_now()
            return obs
        if not self._copy:
            return self._shared
        return {"observation": self._features.copy(), "action_mask": self._mask.copy()}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=None if seed is None else _game_seed(seed))
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self._game.core.reset_bound(_game_seed(game_seed))
        return self._observation(), {}

    def step(self, action: Action):
        if self._fast and (type(action) is int or isinstance(action, np.integer)):
            # One call: the answer, the next ask written to the bound arrays, the reward.
            reward, terminated = self._step_bound(int(action), self.seat)
            if terminated:
                return self._observation(), reward, True, False, self._game.outcome_info()
            if self._copy:
                obs = {"observation": self._features.copy(), "action_mask": self._mask.copy()}
                return obs, reward, False, False, {}
            return self._shared, reward, False, False, {}
        core = self._game.core
        if core.current() is None:
            raise RuntimeError("the game is over: call reset()")
        self._game.act(action)
        terminated = core.current() is None
        reward = float(core.rewards()[self.seat]) if terminated else 0.0
        info = self._game.outcome_info() if terminated else {}
        if not self._game.with_text:
            self._write()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, info

    def _write(self) -> None:
        self._features[:] = np.frombuffer(self._game.core.features(), np.float32)
        self._mask[:] = np.frombuffer(self._game.core.mask(), np.int8)

    def _seat_labels(self) -> Sequence[str]:
        return self.seat_names


class BatchEnv:
    """N games of ``game`` stepped in one call, for training.

    Each game has seat ``seat`` played by the agent and the others by built-in ``opponents``, or
    every seat played by the agent with ``self_play=True``. :meth:`reset` and :meth:`step` return
    arrays that the next call overwrites: ``features`` (N, F) float32, ``masks`` (N, A) int8,
    ``acting`` (N,) the seat asked next in each game; :meth:`step` also ``rewards`` (N, players)
    and ``dones`` (N,) bool. A game that ends restarts at once with the next seed (game i of
    ``reset(seed)`` has seed ``seed + i``; later games take ``seed + N``, ``seed + N + 1``, ...),
    and its row then holds the new game's first ask.
    """

    def __init__(
        self,
        game: str,
        n: int,
        opponents: Sequence[str] = ("random",),
        seat: int = 0,
        self_play: bool = False,
        league: Optional[str] = None,
        **options: Any,
    ) -> None:
        d = describe(game, league, **options)
        players = d["players"]
        if isinstance(opponents, str):
            opponents = [opponents]
        names: List[Optional[str]] = [None] * players
        if not self_play:
            others = [i for i in range(players) if i != seat]
            for k, other in enumerate(others):
                names[other] = opponents[k if len(opponents) > 1 else 0]
        self.n = int(n)
        self.players = players
        self.action_count = d["action_count"]
        self.feature_count = d["feature_count"]
        self._core = _core.BatchCore(game, names, self.n, league, options)
        self.features = np.zeros((self.n, self.feature_count), np.float32)
        self.masks = np.zeros((self.n, self.action_count), np.int8)
        self.acting = np.zeros(self.n, np.int64)
        self.rewards = np.zeros((self.n, players), np.float32)
        self._dones = np.zeros(self.n, np.uint8)
        self._addresses = (
            self.features.ctypes.data,
            self.masks.ctypes.data,
            self.acting.ctypes.data,
            self.rewards.ctypes.data,
            self._dones.ctypes.data,
        )
        self._actions = np.zeros(self.n, np.int64)

    @property
    def dones(self) -> np.ndarray:
        return self._dones.view(np.bool_)

    def reset(self, seed: int = 0):
        self._core.reset_into(_game_seed(seed), self._addresses)
        return self.features, self.masks, self.acting

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions)
        if actions.shape != (self.n,):
            raise ValueError(f"give {self.n} actions, not an array of shape {actions.shape}")
        if actions.dtype != np.int64 or not actions.flags["C_CONTIGUOUS"]:
            np.copyto(self._actions, actions, casting="unsafe")
            actions = self._actions
        self._core.step_into(actions.ctypes.data, self._addresses)
        return self.features, self.masks, self.rewards, self.dones, self.acting

    @property
    def finished(self) -> int:
        """Games finished since the last reset."""
        return self._core.finished()
