"""The store's one failure, apart from the store's protocol (base.py) so that the parts of a store that raise it
(notify.py) need not import the protocol that names them."""
from __future__ import annotations


class StoreUnavailable(Exception):
    """The store did not answer in time (down, restarting, overloaded). Callers answer 503."""
