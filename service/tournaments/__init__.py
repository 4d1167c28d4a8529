"""Hosted tournaments: the store (Redis), the director (the ticks that pair, start, record and publish), the
records and standings (made with the client package's tournament library) and the ratings (OpenSkill).
docs/tournaments.md, "Hosting", describes them as a user sees them; docs/architecture.md how they fit."""
