"""The HTTP layer: turns requests into engine and session calls and their results into answers.

    http/     the blueprints (stateless games, sessions, events, bots, tournaments), problem answers, JSON
    states/   states crossing the boundary: plain with tags, or sealed
    schemas/  the request and answer schemas (marshmallow)
    wsgi/     serving: turns between greenlets, limits and slices, costly helpers, logs and metrics
    openapi/  the OpenAPI document
"""
