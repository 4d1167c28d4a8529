"""What a hosted tournament publishes, all made with the client package's tournament library (the local
runner's and ``verify``'s own code, so that a recomputation from the records gives the same bytes): the spec, the
rounds, the match records, the standings and their CSV and Markdown tables, and the archive of everything."""
from __future__ import annotations

from typing import Any

from card_referee_client.tournament.schedule import Match, Round, matches_of, round_from_json
from card_referee_client.tournament.spec import SpecError, TournamentSpec, load_hosted
from card_referee_client.tournament.standings import Row, published_tables, standings

from .store import Tournament

ARCHIVE_FORMAT = "card-referee-tournament-archive/1"


def spec_of(t: Tournament) -> TournamentSpec:
    """The tournament's spec, its entries (in entry order) as its bots; none while registration is open, nor
    when they never were enough to seat a table (a registration that closed so, and was cancelled)."""
    if t.status != "registering":
        try:
            return load_hosted(t.doc["description"], t.names)
        except SpecError:
            if t.status != "cancelled":
                raise
    return load_hosted(t.doc["description"], None)


def rounds_upto(spec: TournamentSpec, t: Tournament, last: int) -> list[Round]:
    return [round_from_json(spec, t.rounds[i]) for i in range(1, last + 1) if i in t.rounds]


def round_matches(spec: TournamentSpec, t: Tournament, index: int) -> list[Match]:
    return matches_of(spec, round_from_json(spec, t.rounds[index]))


def records_upto(spec: TournamentSpec, t: Tournament, last: int) -> list[dict[str, Any]]:
    """The records of rounds 1..last that exist, in match order (the rounds', then each round's schedule)."""
    out: list[dict[str, Any]] = []
    for index in sorted(i for i in t.rounds if i <= last):
        out.extend(t.records[m.id] for m in round_matches(spec, t, index) if m.id in t.records)
    return out


def byes_upto(t: Tournament, last: int) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for index in sorted(i for i in t.rounds if i <= last):
        players = int(t.rounds[index]["game"].rsplit("/", 1)[1])
        out.extend((b, players) for b in t.rounds[index]["byes"])
    return out


def table_rows(spec: TournamentSpec, t: Tournament, last: int) -> tuple[list[Row], list[dict[str, Any]]]:
    """The standings after round ``last`` (from the records there are) and those records."""
    records = records_upto(spec, t, last)
    return standings(t.names, records, byes_upto(t, last)), records


def published(spec: TournamentSpec, t: Tournament, last: int) -> dict[str, Any]:
    """The standings after round ``last`` as published: the rows, and the CSV and Markdown tables."""
    rows, records = table_rows(spec, t, last)
    tables = published_tables(spec.name, rows, records)
    return {"round": last, "json": [r.to_json() for r in rows], "csv": tables["results.csv"],
            "md": tables["results.md"]}


def archive(t: Tournament, ratings: dict[str, Any]) -> dict[str, Any]:
    """Everything anyone needs to check the tournament (``card-referee tournament verify`` reads it)."""
    spec = spec_of(t)
    last = max(t.rounds, default=0)
    doc = {"format": ARCHIVE_FORMAT,
           "tournament": {"id": t.id, "name": spec.name, "status": t.status, "description": t.doc["description"],
                          "entries": [{"bot": e["bot"], "name": e["name"], "status": e["status"]}
                                      for e in t.entries]},
           "rounds": [t.rounds[i] for i in sorted(t.rounds)],
           "matches": records_upto(spec, t, last) if t.status != "registering" else [],
           "standings": {k: v for k, v in published(spec, t, last).items() if k != "round"}
           if t.status != "registering" else {"json": [], "csv": "", "md": ""},
           "ratings": ratings}
    return doc
