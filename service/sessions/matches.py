"""Starting a match and calling the engine on a state, for the sessions and the stateless API alike.

The engine raises RulesError for what the rules refuse; any other exception it raises on a state means the
state was inconsistent, which ``guarded`` turns into InvalidState (and logs, since a checked state should
never get there).
"""
from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from .. import engine
from ..engine import RulesError, State
from .errors import LimitExceeded

log = logging.getLogger(__name__)
_ENGINE_FAULTS = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def guarded(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run an engine call on a state; a fault there means the state was inconsistent."""
    try:
        return fn(*args, **kwargs)
    except RulesError:
        raise
    except _ENGINE_FAULTS:
        log.exception("engine fault on a validated state")
        raise engine.InvalidState("The state is inconsistent and cannot be adjudicated.") from None


def new_seed() -> str:
    return secrets.token_hex(16)


def too_many_deals(max_deals: int) -> LimitExceeded:
    return LimitExceeded(f"At most {max_deals} explicit deals can be given (MAX_DEALS); the deals after them "
                         f"come from the seed.", limit="deals")


def start_match(game_id: str, spec: dict[str, Any], max_deals: int | None = None,
                pace: Callable[[], None] | None = None) -> State:
    """The match a deal spec (players, options, seed, deal, deals) asks for; at most ``max_deals`` explicit
    deals (MAX_DEALS) when a client asks (None: a match the service made before, such as a session's, dealt
    again from its own record). ``pace`` is called after each explicit deal is checked (``engine.new_match``)."""
    deals = engine.deals_from(spec.get("deal"), spec.get("deals"))
    if max_deals is not None and len(deals) > max_deals:
        raise too_many_deals(max_deals)
    usable = engine.max_dealings(game_id, spec.get("players"), spec.get("options")) if deals else None
    if usable is not None and len(deals) > usable:
        raise LimitExceeded(f"This match deals at most {usable} times, so {len(deals)} explicit deals cannot all "
                            f"be used.", limit="deals")
    seed = spec.get("seed") or new_seed()
    return engine.new_match(game_id, spec.get("players"), spec.get("options"), seed, deals, pace)
