"""The blueprints: each endpoint reads its request, calls the engine or the session domain, and answers."""
