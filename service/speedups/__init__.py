"""Every reach of the service into a library's private parts, one module per library.

A private attribute, an internal class or an undocumented method can change in any release without notice. So
each reach lives in the module named after its library here, and nowhere else; its docstring says what it
relies on, why the public API was not enough (with the measured cost), and which guard test fails, naming what
changed, when an upgrade breaks it (tests/speedups/test_<library>.py). Reaches whose public replacement cost
little are gone (docs/architecture.md, "Speed-ups and the libraries' private parts").

This package is below every other part of the service: storage, the API and the app may use it, and it imports
nothing of theirs. It imports none of its modules itself, so that loading one library's module (gunicorn's, in
the master before gevent patches a worker) loads no other library.
"""
