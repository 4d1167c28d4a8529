"""Serving: turns between greenlets, per-request limits and work slices, routing, request logs and metrics."""
