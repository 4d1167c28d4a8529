"""A session's history: its log entries, the log as anyone may read it (a move's hidden parameters left out
until the end, then everything, with a ready ``replay`` request), and the states the entries lead to."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import engine
from . import referee
from .matches import guarded, start_match
from .referee import REF
from .stored import StoredSessions
from .times import now_iso
from .views import session_result


def move_entry(version: int, move: engine.Move, hidden: list[str], elapsed: int, ref: referee.Record,
               **flags: bool) -> dict[str, Any]:
    """A move's log entry: ``hidden`` its parameters the public log leaves out for now, ``elapsed`` the time
    its seat took, ``flags`` how the service made it (``auto``, ``timeout``), and in a clocked session the
    record after it (``ref``: the event stream replays missed versions' clocks from it)."""
    entry = {"version": version, "time": now_iso(), "move": move, "hidden": hidden, **flags, "elapsed_ms": elapsed}
    if ref["clock"] is not None:
        entry["ref"] = ref
    return entry


def public_log(stored: StoredSessions, sid: str) -> dict[str, Any]:
    """The move log as anyone may read it: hidden parameters left out until the end, then everything
    (the seed, the explicit deals and a ready ``replay`` request)."""
    session, entries = stored.log(sid)
    meta, done = session.meta, session.finished
    out: dict[str, Any] = {
        "id": sid, "game": meta["game"], "players": meta["players"], "options": meta["options"],
        "version": session.version, "finished": done, "commitment": meta["commitment"],
        "deals_commitment": meta["deals_commitment"], "created": meta["created"],
        "clock": referee.record_of(session.state)["clock"],
        "entries": [public_entry(e, done) for e in entries],
        "seed": None, "deals": None, "replay": None, "result": session_result(session.state)}
    if done:
        seed = session.state["seed"]
        replay = {"players": meta["players"], "options": meta["options"], "seed": seed, "deals": meta["deals"],
                  "moves": [e["move"] for e in entries if "move" in e]}
        ending = [e for e in entries if e.get("ends")]
        if ending:
            replay["end"] = {"by": ending[-1]["type"], "seat": ending[-1]["seat"]}
        out.update(seed=seed, deals=meta["deals"], replay=replay)
    return out


def public_entry(e: dict[str, Any], done: bool) -> dict[str, Any]:
    """A log entry as anyone may read it: a move with its hidden parameters left out until the end (``at``
    its time, ``elapsed_ms`` how long its seat took, ``auto`` when the service made it), or a timeout, a
    concession or an abort with its seat and reason."""
    if "move" not in e:
        return {"version": e["version"], "time": e["time"], "at": e["time"], "type": e["type"], "seat": e["seat"],
                "reason": e.get("reason"), "ends": e.get("ends", True), "elapsed_ms": e.get("elapsed_ms", 0)}
    hidden = [] if done else e["hidden"]
    move = {k: v for k, v in e["move"].items() if k not in hidden}
    out = {"version": e["version"], "time": e["time"], "at": e["time"], "type": "move", "seat": e["move"]["seat"],
           "action": e["move"]["action"], "move": move, "hidden": hidden, "elapsed_ms": e.get("elapsed_ms", 0)}
    for flag in ("auto", "timeout", "penalty"):
        if e.get(flag):
            out[flag] = True
    return out


def replay_entry(state: engine.State, entry: dict[str, Any]) -> engine.State:
    """The stored state after a log entry, from the state before it (not changed): its move applied, or the
    match ended, and the referee record as it was after it."""
    return replay_entries(state, [entry])


def replay_entries(state: engine.State, entries: Iterable[dict[str, Any]]) -> engine.State:
    """The stored state after log entries, from the state before them (not changed): their moves applied (a
    run of moves with one copy of the state), a match ended where one ends it, and the referee record as it
    was after the last that has one."""
    moves: list[dict[str, Any]] = []
    ref: Any = None
    for entry in entries:
        if "move" in entry:
            moves.append(entry["move"])
        elif entry.get("ends"):
            state = guarded(engine.end_match, _played(state, moves), entry["type"], entry["seat"])
            moves = []
        if "ref" in entry:
            ref = entry["ref"]
    state = _played(state, moves)
    return state if ref is None else {**state, REF: ref}


def _played(state: engine.State, moves: list[dict[str, Any]]) -> engine.State:
    if not moves:
        return state
    played: engine.State = guarded(engine.apply_all, state, moves)[0]
    return played


def replayed(meta: dict[str, Any], seed: str, entries: Iterable[dict[str, Any]],
             pace: Callable[[], None] | None = None) -> engine.State:
    """The state after ``entries`` (a session's log from its first entry on), replayed from its match's start:
    its seed and explicit deals (``pace``: as ``start_match`` takes it)."""
    spec = {"players": meta["players"], "options": meta["options"], "seed": seed, "deals": meta["deals"]}
    return replay_entries(start_match(meta["game"], spec, pace=pace), entries)
