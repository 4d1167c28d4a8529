"""``card-referee tournament verify``: check a tournament's records without trusting whoever ran it.

What it checks: a local run's output directory (:func:`verify`), or a hosted tournament's archive, the JSON of
``GET /v1/tournaments/{id}/records`` (:func:`verify_archive`; each match recorded exactly once, and no record
of a match the rounds do not call for). In order, stopping at the first discrepancy (which it names):

1. the schedule: every match that the listed rounds call for has a record, with the bots in the seats the
   rotation gives, and on duplicate boards the seed the tournament's seed gives that round and board;
2. every record: its seed matches its commitment (``sha256(bytes.fromhex(seed))``, a ``0`` put in front of an
   odd-length seed), its explicit deals match ``deals_commitment``, and ``/replay`` of its recorded moves (with
   the ``end`` of a match that did not end by play) answers exactly the recorded result;
3. the pairings: each listed round is the one :func:`~.schedule.next_round` gives from the seed and the records
   of the rounds before it (a hosted round: paired among its listed field, the bots not withdrawn by then);
4. the standings: recomputed from the records, they equal ``standings.json`` (final and after each round), or
   the archive's published rows (their rating aside);
5. the published tables: ``results.csv`` and ``results.md`` (the archive's ``csv`` and ``md``), rendered again
   from the recomputed standings and the records' incidents (standings.py renders them for the runner and the
   service too), equal them byte for byte.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..client import Client
from ..errors import ProblemError
from .schedule import Round, matches_of, next_round, round_from_json, round_json
from .spec import TournamentSpec, load, load_hosted
from .standings import TABLES, by_round, published_tables, standings


REPLAYS_AT_ONCE = 4


@dataclass(frozen=True)
class Discrepancy:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed if len(seed) % 2 == 0 else "0" + seed)).hexdigest()


def deals_commitment(deals: list[dict[str, Any]]) -> str:
    compact = [{"hands": d["hands"], "rest": d["rest"]} for d in deals]
    return hashlib.sha256(json.dumps(compact, separators=(",", ":")).encode()).hexdigest()


ARCHIVE_FORMAT = "card-referee-tournament-archive/1"


def verify(directory: Path, client: Client) -> tuple[int, Discrepancy | None]:
    """(records checked, the first discrepancy or None) of a local run's output directory."""
    return _count(_directory_checks(directory, client))


def verify_archive(archive: Any, client: Client) -> tuple[int, Discrepancy | None]:
    """(records checked, the first discrepancy or None) of a hosted tournament's archive
    (``GET /v1/tournaments/{id}/records``)."""
    return _count(_archive_checks(archive, client))


def _count(checks: Iterator[int | Discrepancy]) -> tuple[int, Discrepancy | None]:
    checked = 0
    for found in checks:
        if isinstance(found, Discrepancy):
            return checked, found
        checked += found
    return checked, None


def _directory_checks(directory: Path, client: Client) -> Iterator[int | Discrepancy]:
    try:
        doc = json.loads((directory / "tournament.json").read_text())
        spec = load(doc["spec"])
        rounds: list[Listed] = [(round_from_json(spec, r), None) for r in doc["rounds"]]
    except (OSError, ValueError, KeyError, StopIteration) as exc:
        yield Discrepancy("tournament.json", f"cannot be read: {exc}")
        return

    def record_of(where: str) -> dict[str, Any] | str:
        try:
            return dict(json.loads((directory / where).read_text()))
        except (OSError, ValueError) as exc:
            return f"missing or unreadable ({exc})"
    records: list[dict[str, Any]] = []
    yield from _check_matches(spec, rounds, record_of, client, records)
    if len(records) < sum(len(matches_of(spec, r)) for r, _ in rounds):
        return
    yield from _check_pairings(spec, rounds, records, "tournament.json")
    yield from _check_standings(directory, spec.bots, records, [r for r, _ in rounds])
    tables: dict[str, str | None] = {}
    for name in TABLES:
        try:
            tables[name] = (directory / name).read_text()
        except OSError:
            tables[name] = None
    yield from _check_tables(tables, spec.name, spec.bots, records, [r for r, _ in rounds])


def _archive_checks(archive: Any, client: Client) -> Iterator[int | Discrepancy]:
    if not isinstance(archive, dict) or archive.get("format") != ARCHIVE_FORMAT:
        yield Discrepancy("archive", f"is not a tournament archive (its format is not {ARCHIVE_FORMAT!r})")
        return
    try:
        about = archive["tournament"]
        names = [e["name"] for e in about["entries"]]
        spec = load_hosted(about["description"], names)
        rounds = [(round_from_json(spec, r), r.get("field")) for r in archive["rounds"]]
        listed = [dict(m) for m in archive["matches"]]
        published = archive["standings"]
    except (KeyError, TypeError, ValueError, StopIteration) as exc:
        yield Discrepancy("archive", f"cannot be read: {type(exc).__name__}: {exc}")
        return
    by_id: dict[str, dict[str, Any]] = {}
    for rec in listed:
        if rec.get("match") in by_id:
            yield Discrepancy(f"matches[{rec.get('match')}]", "is recorded twice")
            return
        by_id[str(rec.get("match"))] = rec
    scheduled = {m.id for r, _ in rounds for m in matches_of(spec, r)}
    extra = sorted(set(by_id) - scheduled)
    if extra:
        yield Discrepancy(f"matches[{extra[0]}]", "is a record of no match the rounds call for")
        return

    def record_of(where: str) -> dict[str, Any] | str:
        return by_id.get(where[len("matches["):-1]) or "has no record"
    records: list[dict[str, Any]] = []
    yield from _check_matches(spec, rounds, record_of, client, records, archived=True)
    if len(records) < len(scheduled):
        return
    yield from _check_pairings(spec, rounds, records, "rounds")
    yield from _check_rows(published.get("json"), names, records, [r for r, _ in rounds])
    yield from _check_tables({"results.csv": published.get("csv"), "results.md": published.get("md")}, spec.name,
                             spec.bots, records, [r for r, _ in rounds], archived=True)


Listed = tuple[Round, list[str] | None]  # a round as listed, and its field (hosted) or None


def _check_matches(spec: TournamentSpec, rounds: list[Listed], record_of: Callable[[str], dict[str, Any] | str],
                   client: Client, records: list[dict[str, Any]], archived: bool = False
                   ) -> Iterator[int | Discrepancy]:
    """Every match the rounds call for has a record with the seats and board seed the schedule gives, and each
    record replays to its result; the good records are appended to ``records`` in the schedule's order."""
    scheduled = []
    for rnd, _ in rounds:
        for match in matches_of(spec, rnd):
            where = f"matches[{match.id}]" if archived else f"matches/{match.id}.json"
            rec = record_of(where)
            if isinstance(rec, str):
                yield Discrepancy(where, rec)
                return
            if rec.get("bots") != list(match.seats) or rec.get("round") != rnd.index:
                yield Discrepancy(where, f"seats {rec.get('bots')} differ from the schedule's {list(match.seats)}")
                return
            if match.seed is not None and rec.get("seed") != match.seed:
                yield Discrepancy(where, "its seed is not the board's seed: the tables did not play the same deals")
                return
            scheduled.append((where, rec))
    with ThreadPoolExecutor(max_workers=REPLAYS_AT_ONCE) as pool:  # answers in order: the first one named
        for (where, rec), problem in zip(scheduled, pool.map(lambda wr: check_record(wr[1], client), scheduled),
                                         strict=True):
            if problem:
                yield Discrepancy(where, problem)
                return
            records.append(rec)
            yield 1


def _check_pairings(spec: TournamentSpec, rounds: list[Listed], records: list[dict[str, Any]], where: str
                    ) -> Iterator[Discrepancy]:
    """Each round is the one the seed and the records of the rounds before it give (its field: the bots not
    withdrawn by then), and no round the tournament calls for is missing."""
    names = {b.name for b in spec.bots}
    for i, (rnd, field) in enumerate(rounds):
        if field is not None and not set(field) <= names:
            yield Discrepancy(f"{where}: round {rnd.index}", f"its field names bots that are not entries: "
                                                             f"{sorted(set(field) - names)}")
            return
        earlier = [r for r, _ in rounds[:i]]
        before = [rec for rec in records if rec["round"] < rnd.index]
        want = next_round(spec, earlier, before, field)
        if want is None or round_json(spec, want) != round_json(spec, rnd):
            yield Discrepancy(f"{where}: round {rnd.index}",
                              f"its tables {[list(t) for t in rnd.tables]} (byes {list(rnd.byes)}) are not the "
                              f"pairing the seed and the records give: "
                              + ("no such round" if want is None else
                                 f"{[list(t) for t in want.tables]} (byes {list(want.byes)})"))
            return


def check_record(rec: dict[str, Any], client: Client) -> str | None:
    """What is wrong with one match record (None: nothing)."""
    seed = rec.get("seed")
    if not isinstance(seed, str) or seed_commitment(seed) != rec.get("commitment"):
        return "the revealed seed does not match the commitment"
    deals = rec.get("deals")
    if deals and deals_commitment(deals) != rec.get("deals_commitment"):
        return "the explicit deals do not match deals_commitment"
    body: dict[str, Any] = {"players": rec["players"], "options": rec["options"], "seed": seed,
                            "moves": [m["move"] for m in rec["moves"]]}
    if deals:
        body["deals"] = deals
    if rec.get("end"):
        body["end"] = rec["end"]
    try:
        envelope = client.replay(rec["game"], body)
    except ProblemError as exc:
        index = exc.body.get("index")
        at = f"move {index} ({json.dumps(rec['moves'][index]['move'])})" if isinstance(index, int) and \
            0 <= index < len(rec["moves"]) else "the replay"
        return f"{at} is refused by /replay: {exc.reason or exc.code}: {exc.detail}"
    if not envelope["finished"]:
        return f"the recorded moves do not finish the match (replay stops with seats {envelope['to_act']} to act)"
    if _replayable(envelope["result"]) != _replayable(rec["result"]):
        return f"/replay's result {_short(envelope['result'])} differs from the recorded {_short(rec['result'])}"
    return None


def _replayable(result: Any) -> Any:
    """A result without what /replay cannot know (the penalty policy's counts depend on the times)."""
    if isinstance(result, dict) and "penalties" in result:
        return {k: v for k, v in result.items() if k != "penalties"}
    return result


def _check_standings(directory: Path, bots: Any, records: list[dict[str, Any]], rounds: list[Round]
                     ) -> Iterator[Discrepancy]:
    names = [b.name for b in bots]
    byes = [(b, r.game.players, r.index) for r in rounds for b in r.byes]
    try:
        doc = json.loads((directory / "standings.json").read_text())
    except (OSError, ValueError) as exc:
        yield Discrepancy("standings.json", f"cannot be read: {exc}")
        return
    final = [r.to_json() for r in standings(names, records, [(b, p) for b, p, _ in byes])]
    if doc.get("final") != final:
        yield Discrepancy("standings.json", f"the final standings differ from the records' ({_first_diff(doc.get('final'), final)})")
        return
    for i, rows in enumerate(by_round(names, records, byes, len(rounds))):
        want = [r.to_json() for r in rows]
        if i >= len(doc.get("by_round", [])) or doc["by_round"][i]["standings"] != want:
            yield Discrepancy("standings.json", f"the standings after round {i + 1} differ from the records'")
            return


def _check_rows(rows: Any, names: list[str], records: list[dict[str, Any]], rounds: list[Round]
               ) -> Iterator[Discrepancy]:
    """The archive's published standings rows (their extra columns, the rating, aside) equal the recomputed."""
    byes = [(b, r.game.players) for r in rounds for b in r.byes]
    final = [r.to_json() for r in standings(names, records, byes)]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        yield Discrepancy("standings.json", "is not a list of rows")
        return
    got = [{k: r.get(k) for k in want} for r, want in zip(rows, final, strict=False)]
    if len(rows) != len(final) or got != final:
        yield Discrepancy("standings.json", f"the published standings differ from the records' "
                                            f"({_first_diff(got if len(rows) == len(final) else rows, final)})")


def _check_tables(tables: dict[str, str | None], title: str, bots: Any, records: list[dict[str, Any]],
                  rounds: list[Round], archived: bool = False) -> Iterator[Discrepancy]:
    byes = [(b, r.game.players) for r in rounds for b in r.byes]
    final = standings([b.name for b in bots], records, byes)
    for name, want in published_tables(title, final, records).items():
        where = f"standings.{name.split('.')[-1]}" if archived else name
        got = tables.get(name)
        if got is None:
            yield Discrepancy(where, "is missing or cannot be read")
            return
        if got != want:
            yield Discrepancy(where, f"differs from the table the records give ({_first_line_diff(got, want)})")
            return


def _first_line_diff(got: str, want: str) -> str:
    mine, theirs = got.splitlines(), want.splitlines()
    for n, (a, b) in enumerate(zip(mine, theirs, strict=False), start=1):
        if a != b:
            return f"line {n} is {a!r}, the records give {b!r}"
    return f"it has {len(mine)} lines, the records give {len(theirs)}"


def _first_diff(got: Any, want: list[dict[str, Any]]) -> str:
    if not isinstance(got, list) or len(got) != len(want):
        return "a different number of rows"
    for a, b in zip(got, want, strict=True):
        if a != b:
            return f"recorded {a}, recomputed {b}"
    return "no row differs"


def _short(result: Any) -> str:
    if not isinstance(result, dict):
        return repr(result)
    return json.dumps({k: result.get(k) for k in ("payoffs", "ranking", "ended_by", "forfeited") if k in result})
