"""The timeout applier: a background thread (a greenlet under gevent) in every service process that applies
the sessions' timeouts when they fall due, whether or not any client calls.

Every clocked session notes its next deadline in the store (``SessionStore.schedule``: in Redis one sorted
set shared by every instance). Every ``POLL`` seconds each applier claims the deadlines that have passed
(``claim_due``: a Lua script hands each one to exactly one caller, for ``LEASE_MS``) and settles those
sessions: ``SessionService.settle`` applies the timeout by the session's policy as a compare-and-set on the
version it judged, and publishes it like a move, so streams and long-polls wake. An instance that dies
holding a claim loses it when the lease runs out, and another applies it then. docs/sessions.md, "Time
controls", has the whole design.
"""
from __future__ import annotations

import logging
import os
import threading
import time
import weakref

from ..storage import StoreUnavailable
from .referee import now_ms
from .service import SessionService

log = logging.getLogger("service.sessions.timeouts")

POLL = 0.2          # seconds between two looks at the deadlines: a timeout is applied within about this
LEASE_MS = 5_000    # a claimed deadline not done with in this time is handed to another applier
BATCH = 64          # deadlines claimed at once
FAILING_POLL = 1.0  # while the store does not answer, look less often (each failure is logged by the store)


_APPLIERS: weakref.WeakSet[Applier] = weakref.WeakSet()  # every applier of this process, for stop_all


def stop_all() -> None:
    """Stop every applier of this process (a test run's end: the stores they poll are going away)."""
    for applier in list(_APPLIERS):
        applier.stop()


_PID = [os.getpid()]  # this process's id, kept current across forks without a system call per request
os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))


class Applier:
    """The applier of one service (one app). Its thread holds it only weakly: when the app goes, it stops."""

    def __init__(self, service: SessionService, poll: float = POLL) -> None:
        _APPLIERS.add(self)
        self.service = service
        self.poll = poll
        self.applied = 0          # timeouts and moves for conceded seats this applier applied
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._stopped = False
        self._wanted = False
        self.busy = False         # the last look claimed a full batch
        self._lock = threading.Lock()
        self._failing = False

    def start(self) -> None:
        """Run from now on (again in a forked child: see ``revive``)."""
        self._wanted = True
        self.ensure_running()

    def revive(self) -> None:
        """Start the thread again in a process forked from one where it ran (called before each request, so
        it is only an attribute read and a comparison; the thread never ends on its own but with ``stop``)."""
        if self._wanted and self._pid != _PID[0]:
            self.ensure_running()

    def ensure_running(self) -> None:
        """Start the thread unless it runs in this process (a forked child starts its own)."""
        if self._stopped:
            return
        if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
                self._pid = os.getpid()
                self._thread = threading.Thread(target=_run, args=(weakref.ref(self),), name="timeout-applier",
                                                daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stopped = True

    def run_once(self) -> int:
        """Claim the deadlines due now and settle their sessions; how many steps were applied."""
        store = self.service.store
        try:
            claimed = store.claim_due(now_ms(), LEASE_MS, BATCH)
        except StoreUnavailable:
            self._failed()
            return 0
        self.busy = len(claimed) == BATCH  # more may be due: look again at once
        applied, failed = 0, False
        for sid, version in claimed:
            try:
                settled = self.service.settle(sid)
                applied += settled.applied
                if settled.scheduled != version:  # else settle has just noted this version's deadline again
                    store.unschedule(sid, version)
            except StoreUnavailable:
                failed = True  # the claim's lease runs out and it is handed out again
            except Exception:  # noqa: BLE001 - one broken session must not stop every other session's clock
                log.exception("a session's timeout could not be applied")
                try:
                    store.unschedule(sid, version)
                except StoreUnavailable:
                    failed = True
        if failed:
            self._failed()
        else:
            self._failing = False
        self.applied += applied
        return applied

    def _failed(self) -> None:
        if not self._failing:
            log.warning("timeouts not applied: the session store is unavailable")
        self._failing = True


def _run(ref: weakref.ref[Applier]) -> None:
    while True:
        applier = ref()
        if applier is None or applier._stopped:
            return
        try:
            applier.run_once()
        except Exception:  # noqa: BLE001 - the thread must outlive anything one look can raise
            log.exception("the timeout applier's look at the deadlines failed")
            applier._failing = True
        poll = FAILING_POLL if applier._failing else 0.0 if applier.busy else applier.poll
        del applier
        time.sleep(poll)
