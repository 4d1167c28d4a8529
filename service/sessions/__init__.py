"""The session domain: sessions kept in a store, their moves refereed, clocks, reveals and timeouts.

It sits between the storage (below) and the tournaments and the HTTP API (above), and imports neither of
those: it takes checked values (a seat, a move, a reason), raises its own errors (errors.py, each with a
stable code the API answers with) and returns plain answers. ``service.SessionService`` wires its parts.
"""
