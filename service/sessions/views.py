"""What a session shows a seat (or a spectator): its view of the game, its legal moves, and the public
facts (the result, the clock, who is connected)."""
from __future__ import annotations

from typing import Any

from .. import engine
from . import referee
from .matches import guarded
from .referee import game_state
from .times import now_ms


def seat_answer(sid: str, state: engine.State, version: int, seat: int | None,
                presence: list[dict[str, Any]] | None = None, legal: list[engine.Move] | None = None
                ) -> dict[str, Any]:
    """What GET answers: that seat's view, its legal moves (none for a spectator; ``legal``: every seat's, when
    known already) and the public facts: the clock (null without a time control) and which seats are
    connected."""
    plain = game_state(state)
    if legal is None:
        legal = guarded(engine.legal_moves, plain)
    return {"id": sid, "game": state["game"], "version": version, "seat": seat,
            "view": guarded(engine.view, plain, seat),
            "legal_moves": [] if seat is None else [m for m in legal if m["seat"] == seat],
            "to_act": engine.seats_to_act(legal), "finished": engine.is_finished(state),
            "result": session_result(state),
            "clock": referee.public(referee.record_of(state), now_ms()),
            "presence": presence if presence is not None else absent(state["players"])}


def session_result(state: engine.State) -> dict[str, Any] | None:
    """The result as a session shows it: how the match ended, and under the penalty policy each seat's
    penalties (timeouts the service answered with a move)."""
    result: dict[str, Any] | None = guarded(engine.match_result, game_state(state))
    ref = referee.record_of(state)
    if result is not None and ref["clock"] is not None and ref["clock"]["policy"] == "penalty":
        result["penalties"] = list(ref["penalties"])
    return result


def absent(players: int) -> list[dict[str, Any]]:
    return [{"seat": s, "connected": False, "since": None} for s in range(players)]
