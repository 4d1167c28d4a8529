"""A session's referee record: its time control, each seat's clock, the seats the service plays for, and
whether the match may still be aborted (docs/sessions.md, "Time controls").

The record travels inside the stored state under ``REF``, so that the compare-and-set that stores a move
stores the clocks with it, and every instance reads the same clocks. The engine never sees it: ``game_state``
hands the engine the state without it. Times are epoch milliseconds of the instance's clock.

    {"clock": {"policy", "move_ms", "bank_ms", "increment_ms"} | None,
     "remaining": [bank left per seat] | None,    "started": [when each seat's turn began, or None],
     "auto": [seats the service plays for],       "penalties": [timeouts per seat, penalty policy],
     "open": whether the match may still be aborted,
     "held": true while no clock may run yet (a hosted tournament's match not yet announced to its bots)}
"""
from __future__ import annotations

import time
from typing import Any

from .. import engine

REF = "referee"
Record = dict[str, Any]


def now_ms() -> int:
    return int(time.time() * 1000)


def game_state(state: engine.State) -> engine.State:
    """The engine's part of a stored state (a shallow copy without the record, when it has one)."""
    return {k: v for k, v in state.items() if k != REF} if REF in state else state


def record_of(state: engine.State) -> Record:
    """The state's record; a session stored before records existed gets an empty one (no clock)."""
    ref: Record | None = state.get(REF)
    return ref if ref is not None else {"clock": None, "auto": [], "open": True}


def new_record(clock: dict[str, Any] | None, state: engine.State, now: int, held: bool = False) -> Record:
    """The record of a new session: the clocks of the seats to act start now, or, ``held``, only at ``release``."""
    ref: Record = {"clock": clock, "auto": [], "open": True}
    if clock is not None:
        n = state["players"]
        ref.update(remaining=None if clock["bank_ms"] is None else [clock["bank_ms"]] * n,
                   started=[None] * n, penalties=[0] * n)
        if held:
            ref["held"] = True
        else:
            turn_begins(ref, engine.to_act(game_state(state)), now, None)
    return ref


def release(ref: Record, state: engine.State, now: int) -> None:
    """A held record's clocks start now: those of the seats to act."""
    ref.pop("held", None)
    turn_begins(ref, engine.to_act(game_state(state)), now, None)


def clone_record(ref: Record) -> Record:
    return dict(engine.clone(ref))


def stop(ref: Record) -> None:
    """No clock runs any more (the match is over)."""
    if ref["clock"] is not None:
        ref["started"] = [None] * len(ref["started"])


def turn_begins(ref: Record, acting: list[int], now: int, mover: int | None) -> None:
    """After a move by ``mover`` (None: none), the clocks that run: every seat to act now (``acting``), from
    now for the mover and for a seat newly to act, from when it began for a seat that was already to act (a
    simultaneous decision)."""
    if ref["clock"] is None:
        return
    started = ref["started"]
    for seat in range(len(started)):
        if seat not in acting:
            started[seat] = None
        elif seat == mover or started[seat] is None:
            started[seat] = now


def charge(ref: Record, seat: int, now: int, in_time: bool) -> int:
    """The time ``seat`` used on the turn that ends now (ms), taken from its bank; the increment is added
    back for a move made in time (never for one the service made after a timeout)."""
    if ref["clock"] is None or ref["started"][seat] is None:
        return 0
    elapsed = max(0, now - ref["started"][seat])
    remaining = ref["remaining"]
    if remaining is not None:
        remaining[seat] = max(0, remaining[seat] - elapsed) + (ref["clock"]["increment_ms"] if in_time else 0)
    return elapsed


def deadline(ref: Record, seat: int) -> int | None:
    """When ``seat`` times out (epoch ms), or None when its clock is not running. A seat the service plays
    for is due at once."""
    clock = ref["clock"]
    if clock is None or ref["started"][seat] is None:
        return None
    if seat in ref["auto"]:
        return int(ref["started"][seat])
    allowances = [a for a in (clock["move_ms"], None if ref["remaining"] is None else ref["remaining"][seat])
                  if a is not None]
    return int(ref["started"][seat]) + min(allowances)


def next_deadline(ref: Record) -> int | None:
    """The earliest deadline of any seat (None: no clock runs)."""
    if ref["clock"] is None:
        return None
    times = [d for d in (deadline(ref, s) for s in range(len(ref["started"]))) if d is not None]
    return min(times) if times else None


def due(ref: Record, now: int) -> int | None:
    """The seat whose deadline has passed first (the lower seat on a tie), or None."""
    if ref["clock"] is None:
        return None
    late = [(d, s) for s in range(len(ref["started"])) if (d := deadline(ref, s)) is not None and d <= now]
    return min(late)[1] if late else None


def timed_out(ref: Record, seat: int) -> bool:
    """Whether a move the service makes for ``seat`` now answers a timeout (else the seat conceded to it)."""
    return seat not in ref["auto"]


def public(ref: Record, now: int) -> dict[str, Any] | None:
    """The clock as every answer shows it (null without a time control)."""
    clock = ref["clock"]
    if clock is None:
        return None
    seats = []
    for seat, started in enumerate(ref["started"]):
        bank = None if ref["remaining"] is None else ref["remaining"][seat]
        if bank is not None and started is not None:
            bank = max(0, bank - max(0, now - started))  # what is left of it now, while it runs
        seats.append({"seat": seat, "remaining_ms": bank, "deadline_ms": deadline(ref, seat),
                      "running": started is not None})
    return {**clock, "server_time_ms": now, "seats": seats}
