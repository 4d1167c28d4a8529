"""``card-referee tournament verify DIR``: check a tournament's records without trusting the runner.

In order, stopping at the first discrepancy (which it names):

1. the schedule: every match that ``tournament.json``'s rounds call for has a record, with the bots in the seats
   the rotation gives, and on duplicate boards the seed the tournament's seed gives that round and board;
2. every record: its seed matches its commitment (``sha256(bytes.fromhex(seed))``, a ``0`` put in front of an
   odd-length seed), its explicit deals match ``deals_commitment``, and ``/replay`` of its recorded moves (with
   the ``end`` of a match that did not end by play) answers exactly the recorded result;
3. the standings: recomputed from the records, they equal ``standings.json`` (final and after each round);
4. the published tables: ``results.csv`` and ``results.md``, rendered again from the recomputed standings and
   the records' incidents (standings.py renders them for the runner too), equal the files line for line.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..client import Client
from ..errors import ProblemError
from .schedule import Round, matches_of
from .spec import load
from .standings import by_round, published_tables, standings


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


def verify(directory: Path, client: Client) -> tuple[int, Discrepancy | None]:
    """(records checked, the first discrepancy or None)."""
    checked = 0
    for found in _checks(directory, client):
        if isinstance(found, Discrepancy):
            return checked, found
        checked += found
    return checked, None


def _checks(directory: Path, client: Client) -> Iterator[int | Discrepancy]:
    try:
        doc = json.loads((directory / "tournament.json").read_text())
        spec = load(doc["spec"])
    except (OSError, ValueError, KeyError) as exc:
        yield Discrepancy("tournament.json", f"cannot be read: {exc}")
        return
    rounds = [Round(r["index"], next(g for g in spec.games if g.label == r["game"]),
                    tuple(tuple(t) for t in r["tables"]), tuple(r["byes"])) for r in doc["rounds"]]
    scheduled = []
    for rnd in rounds:
        for match in matches_of(spec, rnd):
            where = f"matches/{match.id}.json"
            try:
                rec = json.loads((directory / where).read_text())
            except (OSError, ValueError) as exc:
                yield Discrepancy(where, f"missing or unreadable ({exc})")
                return
            if rec.get("bots") != list(match.seats) or rec.get("round") != rnd.index:
                yield Discrepancy(where, f"seats {rec.get('bots')} differ from the schedule's {list(match.seats)}")
                return
            if match.seed is not None and rec.get("seed") != match.seed:
                yield Discrepancy(where, "its seed is not the board's seed: the tables did not play the same deals")
                return
            scheduled.append((where, rec))
    records = []
    with ThreadPoolExecutor(max_workers=REPLAYS_AT_ONCE) as pool:  # answers in order: the first one named
        for (where, rec), problem in zip(scheduled, pool.map(lambda wr: check_record(wr[1], client), scheduled),
                                         strict=True):
            if problem:
                yield Discrepancy(where, problem)
                return
            records.append(rec)
            yield 1
    yield from _check_standings(directory, spec.bots, records, rounds)
    yield from _check_tables(directory, spec.name, spec.bots, records, rounds)


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


def _check_tables(directory: Path, title: str, bots: Any, records: list[dict[str, Any]], rounds: list[Round]
                  ) -> Iterator[Discrepancy]:
    byes = [(b, r.game.players) for r in rounds for b in r.byes]
    final = standings([b.name for b in bots], records, byes)
    for name, want in published_tables(title, final, records).items():
        try:
            got = (directory / name).read_text()
        except OSError as exc:
            yield Discrepancy(name, f"cannot be read: {exc}")
            return
        if got != want:
            yield Discrepancy(name, f"differs from the table the records give ({_first_line_diff(got, want)})")
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
