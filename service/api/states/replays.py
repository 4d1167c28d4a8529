"""The states this process checked or answered, kept so that the check of a bare state goes on from them.

The engine checks a client's state by replaying its deal (``engine.check_state``), and a match's requests send
one deal again and again, a move or two longer each time. ``engine.resume`` carries the check on from a state
of the same deal this process checked or produced before, replaying only the moves that are new since then.
This cache is where those states are kept: by deal (``engine.deal_of``), the last state a check accepted and
the last state the service answered in a deal it checked, for the ``deals`` most recently used deals.

Two, because clients do two things: one playing along sends back the state it was answered (found as it is:
nothing replayed, nothing copied), and one trying several moves on a state sends that state again (found as
the state checked). Nothing changes a state once made, so a kept state is handed as it is to every request that
finds it; the engine copies it when it applies a move. Under threads two requests of one deal may keep their
states at once and one of them is lost: the next check of that deal then replays a little more.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ... import engine
from ...engine import State

DEALS_KEPT = 1024  # each deal up to two states of 2-6 KB: a few MB per process at most


@dataclass(frozen=True, slots=True)
class _Kept:
    checked: State | None = None
    answered: State | None = None


class ReplayCache:
    def __init__(self, deals: int = DEALS_KEPT) -> None:
        self._deals: dict[Hashable, _Kept] = {}  # in order of use, the latest last
        self._size = deals

    def check(self, game_id: str, raw: Any) -> State:
        """The state to adjudicate for the bare state ``raw`` sent for ``game_id``: resumed from a state kept
        for its deal when that one leads to it, else the engine's full check, which refuses it in its own words
        (InvalidState). The state is kept as its deal's latest checked state."""
        deal = engine.deal_of(raw)
        kept = self._deals.get(deal) if deal is not None and deal[0] == game_id else None
        state = None if kept is None else self._resumed(kept, raw)
        if state is None:
            state = engine.check_state(game_id, raw)
        self._keep(engine.deal_of(state), checked=state)
        return state

    def answered(self, state: State) -> None:
        """Keep ``state``, made by the engine for an answer, as its deal's latest answered state, if this
        process has checked a state of that deal: a client that sends its states back with their tags (the
        check skipped) fills the cache with nothing."""
        deal = engine.deal_of(state)
        if deal in self._deals:
            self._keep(deal, answered=state)

    @staticmethod
    def _resumed(kept: _Kept, raw: Any) -> State | None:
        for earlier in (kept.answered, kept.checked):
            if earlier is not None:
                state = engine.resume(earlier, raw)
                if state is not None:
                    return state
        return None

    def _keep(self, deal: Hashable | None, checked: State | None = None, answered: State | None = None) -> None:
        if deal is None:
            return
        before = self._deals.pop(deal, None) or _Kept()  # put back last: the dict's order is the order of use
        self._deals[deal] = _Kept(before.checked if checked is None else checked,
                                  before.answered if answered is None else answered)
        while len(self._deals) > self._size:
            try:
                del self._deals[next(iter(self._deals))]
            except (KeyError, RuntimeError, StopIteration):  # another thread trimmed it first
                break
