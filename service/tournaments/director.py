"""The tournament director: a background thread in every service process (the timeout applier's machinery,
service/sessions/timeouts.py) that claims the tournaments whose tick is due from Redis, with a lease, and runs one
``tick`` for each.

A tick looks at the tournament as stored and does the next things there are to do, each written
first-writer-wins, so that any instance may run any tick, two may run the same one, and one killed mid-tick
loses nothing (its lease runs out and another does the tick again):

1. registration closes at its time; the tournament starts at its start time (or on the organiser's start);
2. the current round is paired once (the pre-flight first: which entries' bots are connected, and what the
   absent policy does) with the client library's ``next_round``, a function of the seed and the records so far;
3. each match gets its session (clocked as described, the clock held), bound to it once (a loser's session is
   never announced); then it is announced on each seat's bot stream and the clock released;
4. under the ``forfeit`` absent policy, at the grace's end the referee concedes for every seat whose bot is still
   not connected;
5. a finished session's record is written once; when every match of the round has one, the standings are
   published and the next round begins, or the tournament finishes.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from card_referee_client.tournament.play import all_incidents, record
from card_referee_client.tournament.schedule import Match, next_round, round_json

from ..api.schemas import requests as schemas
from ..sessions.referee import now_ms
from ..sessions.service import SessionService
from ..sessions.timeouts import Applier
from ..storage import StoreUnavailable
from . import records as pub
from .store import Tournament, TournamentStore

log = logging.getLogger("service.tournaments")

LEASE_MS = 10_000   # a claimed tick not done in this time is handed to another instance
BATCH = 16          # tournaments claimed at once
TERMINAL = ("finished", "cancelled")


def epoch_ms(rfc3339: str) -> int:
    return int(datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp() * 1000)


class Director(Applier):
    """The director of one service: the applier's thread (started, revived after a fork and stopped the same
    way), doing tournament ticks instead of timeouts every ``poll`` seconds."""

    def __init__(self, tournaments: TournamentStore, service: SessionService, poll: float) -> None:
        super().__init__(service, poll)
        self.tournaments = tournaments
        self.ticks = 0

    def run_once(self) -> int:
        now = now_ms()
        try:
            claimed = self.tournaments.claim_due(now, LEASE_MS, BATCH)
        except StoreUnavailable:
            self._failed()
            return 0
        self.busy = len(claimed) == BATCH
        for tid in claimed:
            self.run_tick(tid)
        return len(claimed)

    def run_tick(self, tid: str) -> None:
        """One tick, then the next one noted (none for a tournament that is over)."""
        try:
            keep = Tick(self.tournaments, self.service, tid).run()
        except StoreUnavailable:
            self._failed()
            return  # the lease runs out and the tick is claimed again
        except Exception:  # noqa: BLE001 - one broken tournament must not stop the others
            log.exception("a tournament's tick failed")
            keep = True
        self.ticks += 1
        self._failing = False
        try:
            if keep:
                self.tournaments.schedule(tid, now_ms() + int(self.poll * 1000))
            else:
                self.tournaments.unschedule(tid)
        except StoreUnavailable:
            self._failed()


class Tick:
    """One look at one tournament, and what it does."""

    def __init__(self, store: TournamentStore, sessions: SessionService, tid: str) -> None:
        self.store, self.sessions, self.tid = store, sessions, tid
        self.now = now_ms()

    def run(self) -> bool:
        """Do what is due; False when the tournament is over (or gone): no more ticks."""
        t = self.store.load(self.tid, records=False)
        if t is not None and t.status == "finished" and "finished" not in t.told:
            self.tell_finished(t)  # the tick that finished it died before it told
        if t is None or t.status in TERMINAL:
            return False
        if t.status == "registering":
            until = t.doc.get("registration_until")
            if until is not None and self.now >= epoch_ms(until):
                problem = too_few(t)  # registration closes: a field that cannot seat a table is cancelled
                if self.store.cas(self.tid, "status", "registering", "ready" if problem is None else "cancelled"):
                    if problem is not None:
                        self.store.tell(self.tid, "cancelled", {"reason": problem})
            return True
        if t.status == "ready":
            start = t.doc["description"].get("start")
            if start is not None and self.now >= epoch_ms(start):
                begin(self.store, t, self.now, "ready")
            return True
        self.play_round(t)
        return True

    # ----- a round ------------------------------------------------------------------
    def play_round(self, t: Tournament) -> None:
        spec = pub.spec_of(t)
        index = t.round
        if index not in t.rounds:
            if t.status != "running" or not self.pair(t, index):
                return
        matches = pub.round_matches(spec, t, index)
        if t.status == "running":
            for match in matches:
                self.start_match(t, match)
        self.absent_concessions(t, index, matches)
        for match in matches:
            if match.id in t.recorded and f"end:{match.id}" not in t.told:
                self.tell_ended(match, t.sessions[match.id], self.store.record(self.tid, match.id))
        waiting = [m for m in matches if m.id in t.sessions and m.id not in t.recorded]
        done = self.store.finished_sessions([t.sessions[m.id]["session"] for m in waiting])
        for match in waiting:
            if t.sessions[match.id]["session"] in done:
                self.collect(t, match)
        if all(m.id in t.recorded for m in matches):
            self.close_round(t, index)

    def pair(self, t: Tournament, index: int) -> bool:
        """Pair round ``index`` after the pre-flight; False while the absent policy waits for a bot."""
        spec = pub.spec_of(t)
        policy = spec.absent or {"grace_s": 30, "then": "forfeit"}
        active = [e for e in t.entries if e["status"] == "active"]
        live = self.store.live([e["bot"] for e in active])
        absent = [e for e in active if not live[e["bot"]]]
        if absent and policy["then"] == "withdraw":
            since_key = f"preflight:{index}"
            if self.store.set_field_once(self.tid, since_key, str(self.now)):
                self.store.tell(self.tid, "preflight", {"round": index, "absent": [e["name"] for e in absent],
                                                        "policy": policy, "action": "waiting"})
                return False
            since = int(t.fields.get(since_key, self.now))
            if self.now < since + policy["grace_s"] * 1000:
                return False
            for entry in absent:
                withdraw(self.store, t, entry, f"not connected at round {index}'s pairing (grace over)")
            active = [e for e in active if e not in absent]
        field = [e["name"] for e in active]
        t.records = self.store.records(self.tid)
        rounds = pub.rounds_upto(spec, t, index - 1)
        rnd = next_round(spec, rounds, pub.records_upto(spec, t, index - 1), field=field)
        if rnd is None:
            return False
        doc = round_json(spec, rnd, field)
        won, stored = self.store.first(self.tid, "rounds", index, doc)
        if won:
            self.store.set_field(self.tid, f"paired:{index}", str(self.now))
            t.fields[f"paired:{index}"] = str(self.now)
            self.store.tell(self.tid, "round_started", {"round": index, "game": doc["game"], "tables": doc["tables"],
                                                        "byes": doc["byes"]})
            action = "withdrawn" if policy["then"] == "withdraw" else "forfeit at the grace's end unless connected"
            self.store.tell(self.tid, "preflight", {"round": index, "policy": policy,
                                                    "absent": [e["name"] for e in absent],
                                                    "action": action if absent else "none"})
        elif stored != doc:
            log.error("tournament %s round %d: the stored pairing differs from its recomputation", self.tid, index)
        t.rounds[index] = stored
        return True

    # ----- a match ------------------------------------------------------------------
    def start_match(self, t: Tournament, match: Match) -> None:
        binding = t.sessions.get(match.id)
        if binding is None:
            binding = self.bind(t, match)
        if match.id in t.announced:
            return
        sid = binding["session"]
        for seat, bid in enumerate(binding["bots"]):
            self.store.tell_bot(bid, "match_started", {
                "tournament": self.tid, "match": match.id, "round": match.round, "game": match.game.game,
                "session": sid, "seat": seat, "token": binding["tokens"][seat], "clock": binding["clock"],
                "url": f"/v1/sessions/{sid}"})
        self.store.tell(self.tid, "match_started", {"round": match.round, "match": match.id, "session": sid,
                                                    "bots": list(match.seats), "table": f"/table/{sid}"})
        self.sessions.release_clock(sid)
        self.store.first(self.tid, "announced", match.id, self.now)
        t.announced.add(match.id)

    def bind(self, t: Tournament, match: Match) -> dict[str, Any]:
        """The match's session: a new one (clock held), unless another instance bound one first."""
        game = match.game
        body: dict[str, Any] = {"game": game.game, "players": game.players, "options": game.options}
        if match.seed is not None:
            body["seed"] = match.seed
        if game.clock is not None:
            body["clock"] = game.clock
        created = self.sessions.create(schemas.load(schemas.SESSION_CREATE, body), held=True)
        ids = {e["name"]: e["bot"] for e in t.entries}
        binding = {"session": created["id"], "tokens": [s["token"] for s in created["seats"]],
                   "bots": [ids[name] for name in match.seats], "clock": created["clock"], "created_ms": self.now}
        _, stored = self.store.first(self.tid, "sessions", match.id, binding)
        t.sessions[match.id] = stored
        return dict(stored)

    def absent_concessions(self, t: Tournament, index: int, matches: list[Match]) -> None:
        """The ``forfeit`` policy: at the grace's end the referee concedes for each seat whose bot is still not
        connected, once per round."""
        policy = pub.spec_of(t).absent or {}
        paired = t.fields.get(f"paired:{index}")
        if policy.get("then") != "forfeit" or paired is None or f"graced:{index}" in t.fields:
            return
        if self.now < int(paired) + policy["grace_s"] * 1000:
            return
        bots = sorted({b for m in matches if m.id in t.sessions for b in t.sessions[m.id]["bots"]})
        live = self.store.live(bots)
        names = {e["bot"]: e["name"] for e in t.entries}
        for match in matches:
            binding = t.sessions.get(match.id)
            if binding is None or match.id in t.recorded:
                continue
            noted = []
            for seat, bid in enumerate(binding["bots"]):
                if live[bid]:
                    continue
                reason = f"absent: {names[bid]} was not connected at the grace's end ({policy['grace_s']} s)"
                version = self.sessions.concede_for(binding["session"], seat, reason)
                if version is not None:
                    noted.append({"seat": seat, "bot": names[bid], "kind": "absent", "version": version,
                                  "detail": reason})
            if noted:
                self.store.first(self.tid, "incidents", match.id, noted)
                t.incidents.setdefault(match.id, noted)
        self.store.set_field(self.tid, f"graced:{index}", str(self.now))

    def collect(self, t: Tournament, match: Match) -> None:
        """The record of a finished match, written once; its end told to its bots and the tournament."""
        binding = t.sessions.get(match.id)
        if binding is None or match.id in t.recorded:
            return
        log_doc = self.sessions.public_log(binding["session"])
        if not log_doc["finished"]:
            return
        incidents = all_incidents(match, log_doc, t.incidents.get(match.id, []))
        rec = record(match, {"clock": binding["clock"]}, log_doc, incidents,
                     (self.now - binding["created_ms"]) / 1000)
        won, stored = self.store.first(self.tid, "records", match.id, rec)
        t.recorded.add(match.id)
        if won:
            self.tell_ended(match, binding, stored)

    def tell_ended(self, match: Match, binding: dict[str, Any], rec: dict[str, Any]) -> None:
        """Tell the match's bots and the tournament that it ended; noted once told (a tick that dies before is
        followed by one that tells: at least once)."""
        ended = {"tournament": self.tid, "match": match.id, "session": binding["session"], "result": rec["result"]}
        for bid in dict.fromkeys(binding["bots"]):
            self.store.tell_bot(bid, "match_ended", ended)
        self.store.tell(self.tid, "match_ended", {**ended, "round": match.round, "bots": list(match.seats)})
        self.store.first(self.tid, "told", f"end:{match.id}", self.now)

    # ----- the round's end ------------------------------------------------------------
    def close_round(self, t: Tournament, index: int) -> None:
        spec = pub.spec_of(t)
        t.records = self.store.records(self.tid)
        self.store.first(self.tid, "standings", index, pub.published(spec, t, index))
        if f"standings:{index}" not in t.told:
            self.store.tell(self.tid, "standings_changed", {"round": index})
            self.store.first(self.tid, "told", f"standings:{index}", self.now)
        rounds = pub.rounds_upto(spec, t, index)
        if next_round(spec, rounds, pub.records_upto(spec, t, index), field=t.active()) is not None:
            self.store.cas(self.tid, "round", str(index), str(index + 1))
        elif self.store.finish(self.tid, self.now):
            self.tell_finished(t)

    def tell_finished(self, t: Tournament) -> None:
        self.store.tell(self.tid, "tournament_finished", {"tournament": self.tid})
        for entry in t.entries:
            self.store.tell_bot(entry["bot"], "tournament_finished", {"tournament": self.tid})
        self.store.first(self.tid, "told", "finished", self.now)


# ----- transitions shared with the organiser's actions -------------------------------------
def too_few(t: Tournament) -> str | None:
    """Why the entries cannot start the tournament (too few to seat a table of some game), or None."""
    need = max(int(g["players"]) for g in t.doc["description"]["games"])
    if len(t.active()) < need:
        return f"{len(t.active())} active entries cannot seat a table of {need}"
    return None


def begin(store: TournamentStore, t: Tournament, now: int, expected: str) -> bool:
    """The tournament starts: round 1 is paired at the next tick. False when its status was not ``expected``
    (another instance or action got there first); one that cannot seat a table is cancelled."""
    problem = too_few(t)
    if problem is not None:
        if store.cas(t.id, "status", expected, "cancelled"):
            store.tell(t.id, "cancelled", {"reason": problem})
        return False
    return store.cas(t.id, "status", expected, "running", round="1", started_ms=str(now))


def withdraw(store: TournamentStore, t: Tournament, entry: dict[str, Any], reason: str) -> None:
    """Withdraw an entry: it is paired no more (its matches in flight are the caller's to concede)."""
    if entry["status"] == "withdrawn":
        return
    entry["status"] = "withdrawn"
    store.set_entry(t.id, entry)
    store.tell(t.id, "entry_withdrawn", {"bot": entry["bot"], "name": entry["name"], "reason": reason})
