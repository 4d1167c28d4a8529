"""A helper process for costly requests (offload.py): ``python -m service.api.wsgi.helper <fd>``.

Its CPU priority is lowered before anything else is imported, so that even its start (a second of imports)
takes only CPU time no serving process wants.
"""
from __future__ import annotations

import os
import signal
import sys


def lower_priority() -> None:
    """Run from now on only when no other process of this group wants the core (SCHED_IDLE: a waking process
    of another policy preempts it at once), or at nice 19 where that policy is refused."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19 - os.nice(0))


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C stops gunicorn, whose workers stop their helpers
    lower_priority()
    from service.api.wsgi.offload import serve
    from service.app import helper_app
    serve(int(sys.argv[1]), helper_app)
