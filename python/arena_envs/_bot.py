"""A Python policy as a bot process (see :func:`run_bot`)."""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from . import _core


def run_bot(
    game: str,
    policy: Callable[[Dict[str, Any]], Any],
    args: Optional[Sequence[str]] = None,
    league: Optional[str] = None,
    **options: Any,
) -> None:
    """Plays as a bot process: reads the referee's input on stdin (a call game: the history file
    and the arguments in ``args``, default ``sys.argv[1:]``), calls ``policy`` with the same
    observation dict the environments give (``observation``, ``action_mask``, ``text`` and, for
    call games, ``args``) and writes its answer: an index into the action table, or the
    protocol's text. A script whose main calls it enters ``arena play`` and ``arena tournament``
    as ``--bot "python3 mybot.py"``.
    """
    if args is None:
        args = sys.argv[1:]

    def ask(raw: Dict[str, Any]) -> Any:
        obs = {
            "observation": np.frombuffer(raw["features"], np.float32).copy(),
            "action_mask": np.frombuffer(raw["mask"], np.int8).copy(),
            "text": raw["text"],
        }
        if raw["args"]:
            obs["args"] = tuple(raw["args"])
        answer = policy(obs)
        if isinstance(answer, np.integer):
            answer = int(answer)
        return answer

    _core.serve(game, ask, list(args), league, options)
