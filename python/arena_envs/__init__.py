"""arena's exact contest referees as PettingZoo and Gymnasium environments.

Every game of arena (``langwars``, ``langwars2``, ``negotiate``, ``spring2021`` with its leagues,
``coup``) is played by arena's own engine: the observation text is the exact input the referee
sends the seat, answers are judged by the official parser, and ``reset(seed=S)`` is the game of
``arena play GAME --seed S``.

- :func:`env` / :func:`parallel_env`: PettingZoo environments, every seat played from Python;
- :func:`gym_env`: a Gymnasium environment, one seat against built-in bots;
- :class:`BatchEnv`: N games stepped in one call from NumPy arrays;
- :func:`run_bot`: a Python policy as a bot process for ``arena play`` and ``arena tournament``.

Observations are dicts: ``observation`` (float32 features, see :func:`describe`),
``action_mask`` (int8, 1 for each legal entry of the game's action table), ``text`` (the exact
input text; for ``coup`` the history file's content) and, for ``coup``, ``args`` (the arguments
after the history file). An action is an index into the action table (an int), or the protocol's
text (a str: the line printed, or for ``coup`` the move appended; ``(appended, printed)`` for the
end of an Exchange).
"""

from __future__ import annotations

from typing import Any, Sequence

from ._bot import run_bot

__all__ = [
    "env",
    "parallel_env",
    "gym_env",
    "BatchEnv",
    "run_bot",
    "describe",
    "games",
    "ArenaAEC",
    "ArenaParallel",
    "ArenaGym",
]

# The environment classes need Gymnasium and PettingZoo; a bot that only calls `run_bot` needs
# NumPy alone (a bot's folder then holds just this package and NumPy), so they load on first use.
_LAZY = {"ArenaAEC", "ArenaParallel", "ArenaGym", "BatchEnv", "describe", "games"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import _envs

        return getattr(_envs, name)
    raise AttributeError(f"module 'arena_envs' has no attribute {name!r}")


def env(game: str, **kwargs: Any):
    """A PettingZoo AEC environment of ``game``; every seat is an agent (``player_0`` ...).

    Keywords: ``league`` (Spring 2021), ``record`` (keep the game for ``save_replay``),
    ``text`` (include the observation text, default True), ``render_mode`` (``"ansi"`` or
    ``"human"``), and the game's own options (``deck=...``, ``no_shuffle=True`` for Coup).
    """
    from ._envs import ArenaAEC

    return ArenaAEC(game, **kwargs)


def parallel_env(game: str, **kwargs: Any):
    """A PettingZoo parallel environment of ``game`` (see ``ArenaParallel``)."""
    from ._envs import ArenaParallel

    return ArenaParallel(game, **kwargs)


def gym_env(game: str, opponents: Sequence[str] = ("random",), **kwargs: Any):
    """A Gymnasium environment: seat ``seat`` (default 0) against built-in ``opponents`` (one
    name per other seat, or one name for all of them)."""
    from ._envs import ArenaGym

    return ArenaGym(game, opponents=opponents, **kwargs)
