"""Serving: turns between greenlets and what a handler tells the serving layer (``scheduling``), per-request
limits and work slices, request logs and metrics (with the kept URL matches of service/speedups/werkzeug.py)."""
