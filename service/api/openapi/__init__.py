"""The OpenAPI document, generated from the routes and their declarations: ``python -m service.api.openapi``
writes openapi.yaml.

    operations.py  what a route declares (``@documented``), imported by the modules that declare routes
    shapes.py      the answers, problems and pages those declarations are made of
    stateless.py, sessions.py, tournaments.py   what the routes of each kind share
    paths.py       the document's paths, read from the application's routes
    games.py       each game's typed twins of the stateless operations, and their bodies
    spec.py        the document: components from the marshmallow schemas and the games, then the paths
"""
