"""What the stateless routes (service/api/http/games.py) share in openapi.yaml: their refusals and the examples
of their bodies, played by the engine when the document is built."""
from __future__ import annotations

from typing import Any

from ... import engine
from ..wsgi.limits import body_limit
from .shapes import problem_response

UNKNOWN_GAME = problem_response("Unknown game.")


def too_large(endpoint: str) -> dict[str, Any]:
    """413: the endpoint's body limit (service/api/wsgi/limits.py)."""
    return problem_response(f"payload_too_large: the body is larger than this endpoint's "
                            f"{body_limit(endpoint) // 1024} KiB.")


def refusals(endpoint: str) -> dict[str, Any]:
    """What a stateless POST may answer instead of its result."""
    return {"400": problem_response("The body is not JSON or not of the documented shape."),
            "404": UNKNOWN_GAME,
            "422": problem_response("Illegal move, invalid state, options, deal, player count or seat; "
                                    "state_tampered: a sealed state that does not authenticate, a plain one when "
                                    "states are sealed, or (REQUIRE_STATE_TAG) a plain state without its valid "
                                    "state_tag; limit_exceeded: more explicit deals than MAX_DEALS, or than the "
                                    "match can ever deal, or (replay) more moves than MAX_MOVES, counted before "
                                    "any entry is checked."),
            "413": too_large(endpoint)}


def exchange() -> dict[str, Any]:
    """A move request: a new three-player Femkort match and its first legal move."""
    state = engine.new_match("femkort", 3, {}, "c0ffee")
    return {"state": state, "move": engine.legal_moves(state)[0]}


def legal_moves_request() -> dict[str, Any]:
    ex = exchange()
    return {"state": ex["state"], "seat": ex["move"]["seat"]}


def view_request() -> dict[str, Any]:
    return {"state": exchange()["state"], "seat": 0}


def replay_request() -> dict[str, Any]:
    return {"players": 3, "seed": "c0ffee", "moves": [exchange()["move"]]}
