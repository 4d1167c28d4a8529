"""Hosted tournaments through the HTTP API, on a private redis-server: a whole Swiss with an absent bot, the
records, standings and ratings it publishes, and every refusal with its code."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from card_referee_client.tournament.schedule import next_round, round_from_json
from card_referee_client.tournament.spec import load_hosted
from card_referee_client.tournament.standings import published_tables, standings
from flask import Flask

from service.app import create_app
from service.config import Config
from service.tournaments.ratings import fold
from tests.tournaments.hosting import Bot, run_until

SWISS = {"name": "test swiss", "format": "swiss", "rounds": 2, "seed": "5eed",
         "games": [{"game": "femkort", "players": 2, "boards": 1, "clock": {"move_ms": 60_000, "policy": "forfeit"}}],
         "absent": {"grace_s": 0, "then": "forfeit"}}


def organiser(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Any, bots: list[Bot], description: dict[str, Any] = SWISS) -> dict[str, Any]:
    made = client.post("/v1/tournaments", json={"description": description, "entries": [b.id for b in bots]})
    assert made.status_code == 201, made.json
    return dict(made.json)


def test_a_swiss_is_paired_played_recorded_ranked_and_rated(make_app: Callable[..., Flask]) -> None:
    client = make_app().test_client()
    bots = [Bot(client, name, seed) for seed, name in enumerate(["ann", "bob", "cat", "dan", "eve"])]
    made = create(client, bots)
    tid = made["id"]
    assert made["status"] == "ready" and made["page"] == f"/tournaments/{tid}"
    for bot in bots[:4]:
        bot.listen()  # connected before the start
    assert client.post(f"/v1/tournaments/{tid}/start", headers=organiser(made["organiser_token"])).status_code == 200
    view = run_until(client, tid, bots[:4])  # eve never connects
    archive = client.get(f"/v1/tournaments/{tid}/records").json

    # every match recorded exactly once, each announced to its seats' bots (at least once, deduplicated)
    scheduled = [m for r in archive["rounds"] for m in r["matches"]]
    assert sorted(r["match"] for r in archive["matches"]) == sorted(scheduled)
    assert len(scheduled) == len(set(scheduled)) == 2 * 2 * 2  # 2 rounds, 2 tables of 5 bots, 2 rotations
    # eve's matches were conceded for her by the referee at the grace's end
    eve = [r for r in archive["matches"] if "eve" in r["bots"]]
    assert eve and all(any(i["kind"] == "absent" and i["bot"] == "eve" for i in r["incidents"]) for r in eve)
    assert all(r["result"]["forfeited"] == r["bots"].index("eve") for r in eve)

    # the rounds are the library's pairing of the records so far, the standings its recomputation
    spec = load_hosted(archive["tournament"]["description"], [e["name"] for e in archive["tournament"]["entries"]])
    rounds = [round_from_json(spec, r) for r in archive["rounds"]]
    for i, stored in enumerate(archive["rounds"]):
        earlier = [rec for rec in archive["matches"] if rec["round"] <= i]
        assert next_round(spec, rounds[:i], earlier, field=stored["field"]) == rounds[i]
    byes = [(b, 2) for r in archive["rounds"] for b in r["byes"]]
    final = standings(spec_names(archive), archive["matches"], byes)
    assert archive["standings"]["json"] == [r.to_json() for r in final]
    tables = published_tables(spec.name, final, archive["matches"])
    assert (archive["standings"]["csv"], archive["standings"]["md"]) == (tables["results.csv"], tables["results.md"])
    assert client.get(f"/v1/tournaments/{tid}/standings", headers={"Accept": "text/csv"}).data.decode() \
        == tables["results.csv"]
    assert client.get(f"/v1/tournaments/{tid}/standings?format=md").data.decode() == tables["results.md"]

    # ratings: every match counted once, the same numbers as a fold of the records
    ratings = archive["ratings"]["femkort"]
    played = Counter(b for rec in archive["matches"] for b in rec["bots"])
    assert {name: r["matches"] for name, r in ratings.items()} == dict(played)
    assert ratings == fold(archive["matches"])["femkort"]
    ladder = client.get("/v1/games/femkort/ladder").json["ladder"]
    assert [row["name"] for row in ladder] == sorted(ratings, key=lambda n: (-ratings[n]["ordinal"], n))
    assert client.get(f"/v1/bots/{bots[0].id}").json["ratings"]["femkort"] == ratings["ann"]
    rows = {row["bot"]: row for row in view["standings"]}
    assert rows["ann"]["rating"] == ratings["ann"]["ordinal"]
    assert view["progress"] == {"done": 8, "total": 8, "eta_s": 0.0}

    # the bots heard of each of their matches, and of the end
    for bot in bots[:4]:
        bot.listen()
    heard = {(d["match"], d["seat"]) for bot in bots[:4] for e, d in bot.events if e == "match_started"}
    assert len(heard) == sum(1 for rec in archive["matches"] for b in rec["bots"] if b != "eve")
    assert all(any(e == "tournament_finished" for e, _ in bot.events) for bot in bots[:4])
    events = [e for e in sse_names(client.get(f"/v1/tournaments/{tid}/events").data)]
    for name in ("round_started", "preflight", "match_started", "match_ended", "standings_changed",
                 "tournament_finished"):
        assert name in events, name


def spec_names(archive: dict[str, Any]) -> list[str]:
    return [e["name"] for e in archive["tournament"]["entries"]]


def sse_names(raw: bytes) -> list[str]:
    return [line.split(": ", 1)[1] for line in raw.decode().splitlines() if line.startswith("event: ")]


def test_the_clock_is_held_until_the_match_is_announced(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    service = app.extensions["session_service"]
    with app.app_context():
        created = service.create({"game": "femkort", "players": 2, "options": {}, "seed": None,
                                  "clock": {"policy": "forfeit", "move_ms": 1000, "bank_ms": None, "increment_ms": 0}},
                                 held=True)
    sid = created["id"]
    client = app.test_client()
    held = client.get(f"/v1/sessions/{sid}").json["clock"]
    assert not any(seat["running"] for seat in held["seats"]) and held["seats"][0]["deadline_ms"] is None
    service.release_clock(sid)
    running = client.get(f"/v1/sessions/{sid}").json
    assert running["version"] == 0  # no move was made: the version stays
    assert [s["running"] for s in running["clock"]["seats"]] == [s in running["to_act"] for s in range(2)]
    service.release_clock(sid)  # again: nothing changes
    assert client.get(f"/v1/sessions/{sid}").json["clock"]["seats"] == running["clock"]["seats"]


def test_refusals_have_their_codes(make_app: Callable[..., Flask]) -> None:
    client = make_app().test_client()
    bots = [Bot(client, name) for name in ("amy", "ben", "cy")]
    assert client.post("/v1/bots", json={"name": "amy", "owner": "x"}).json["code"] == "bot_name_taken"
    assert client.post("/v1/bots", json={"name": "-bad", "owner": "x"}).status_code == 400
    assert client.get("/v1/bots/nobody").json["code"] == "bot_not_found"
    assert client.get("/v1/bots/me/events").status_code == 401
    assert client.get("/v1/bots/me/events", headers={"Authorization": "Bearer " + "x" * 40}).json["code"] \
        == "unauthorized"
    wrong = client.post("/v1/tournaments", json={"description": {**SWISS, "format": "knockout"},
                                                 "entries": [b.id for b in bots]})
    assert wrong.status_code == 422 and wrong.json["code"] == "invalid_description" and "format" in wrong.json["detail"]
    badgame = {**SWISS, "games": [{"game": "femkort", "players": 2, "options": {"no_such_option": 1}}]}
    assert client.post("/v1/tournaments", json={"description": badgame, "entries": [b.id for b in bots]}
                       ).json["code"] == "invalid_description"
    assert client.post("/v1/tournaments", json={"description": SWISS, "entries": ["nobody"]}).json["code"] \
        == "unknown_bot"
    assert client.post("/v1/tournaments", json={"description": SWISS}).json["code"] == "invalid_description"
    assert client.get("/v1/tournaments/nothing").json["code"] == "tournament_not_found"

    made = create(client, bots)
    tid, good = made["id"], organiser(made["organiser_token"])
    assert client.post(f"/v1/tournaments/{tid}/start").status_code == 401
    assert client.post(f"/v1/tournaments/{tid}/start", headers=organiser(bots[0].token)).json["code"] == "forbidden"
    assert client.post(f"/v1/tournaments/{tid}/pause", headers=good).json["code"] == "not_running"
    assert client.post(f"/v1/tournaments/{tid}/resume", headers=good).json["code"] == "not_paused"
    assert client.post(f"/v1/tournaments/{tid}/withdraw", headers=good, json={"bot": "nobody"}).json["code"] \
        == "not_an_entry"
    assert client.post(f"/v1/tournaments/{tid}/entries", headers=organiser(bots[0].token)).json["code"] \
        == "registration_closed"
    assert client.post(f"/v1/tournaments/{tid}/start", headers=good).json["status"] == "running"
    assert client.post(f"/v1/tournaments/{tid}/start", headers=good).json["code"] == "already_started"
    assert client.post(f"/v1/tournaments/{tid}/pause", headers=good).json["status"] == "paused"
    assert client.post(f"/v1/tournaments/{tid}/pause", headers=good).json["code"] == "not_running"
    assert client.post(f"/v1/tournaments/{tid}/resume", headers=good).json["status"] == "running"
    withdrawn = client.post(f"/v1/tournaments/{tid}/withdraw", headers=good, json={"bot": bots[2].id})
    assert withdrawn.status_code == 200
    entries = client.get(f"/v1/tournaments/{tid}").json["entries"]
    assert [e["status"] for e in entries] == ["active", "active", "withdrawn"]
    assert client.post(f"/v1/tournaments/{tid}/cancel", headers=good).json["status"] == "cancelled"
    for action in ("start", "pause", "resume", "cancel"):
        assert client.post(f"/v1/tournaments/{tid}/{action}", headers=good).json["code"] == "tournament_over"


def test_open_registration_then_start(make_app: Callable[..., Flask]) -> None:
    client = make_app().test_client()
    bots = [Bot(client, name) for name in ("kim", "lou", "max")]
    made = client.post("/v1/tournaments", json={"description": SWISS,
                                                "registration": {"until": "2999-01-01T00:00:00Z"}})
    assert made.status_code == 201 and made.json["status"] == "registering"
    tid, good = made.json["id"], organiser(made.json["organiser_token"])
    assert client.post(f"/v1/tournaments/{tid}/entries", headers=organiser(bots[0].token)).status_code == 201
    assert client.post(f"/v1/tournaments/{tid}/start", headers=good).json["code"] == "too_few_entries"
    for bot in bots[1:]:
        assert client.post(f"/v1/tournaments/{tid}/entries", headers=organiser(bot.token)).status_code == 201
    assert [e["name"] for e in client.get(f"/v1/tournaments/{tid}").json["entries"]] == ["kim", "lou", "max"]
    assert client.post(f"/v1/tournaments/{tid}/start", headers=good).json["status"] == "running"
    view = run_until(client, tid, bots)
    assert view["progress"]["done"] == 2 * 1 * 2


def test_without_redis_the_tournament_endpoints_say_so() -> None:
    client = create_app(Config(testing=True, log_level="WARNING")).test_client()
    answer = client.post("/v1/bots", json={"name": "solo", "owner": "x"})
    assert answer.status_code == 503 and answer.json["code"] == "tournaments_need_redis"
    assert client.get("/v1/tournaments/abc").json["code"] == "tournaments_need_redis"


@pytest.mark.parametrize("then", ["withdraw"])
def test_the_withdraw_policy_pairs_without_an_absent_bot(make_app: Callable[..., Flask], then: str) -> None:
    client = make_app().test_client()
    bots = [Bot(client, name) for name in ("pat", "quin", "rae")]
    made = create(client, bots, {**SWISS, "absent": {"grace_s": 0, "then": then}})
    for bot in bots[:2]:
        bot.listen()
    client.post(f"/v1/tournaments/{made['id']}/start", headers=organiser(made["organiser_token"]))
    view = run_until(client, made["id"], bots[:2])
    assert [e["status"] for e in view["entries"]] == ["active", "active", "withdrawn"]
    assert all(r["byes"] == [] and "rae" not in str(r["tables"]) for r in view["rounds"])


def test_a_move_before_the_release_starts_the_clocks_and_the_release_then_changes_nothing(
        make_app: Callable[..., Flask]) -> None:
    app = make_app()
    service = app.extensions["session_service"]
    with app.app_context():
        created = service.create({"game": "femkort", "players": 2, "options": {}, "seed": None,
                                  "clock": {"policy": "forfeit", "move_ms": 60_000, "bank_ms": None,
                                            "increment_ms": 0}}, held=True)
    sid, tokens = created["id"], [s["token"] for s in created["seats"]]
    client = app.test_client()
    first = client.get(f"/v1/sessions/{sid}").json["to_act"][0]
    seat = client.get(f"/v1/sessions/{sid}", headers=organiser(tokens[first])).json
    moved = client.post(f"/v1/sessions/{sid}/moves", headers=organiser(tokens[first]),
                        json={"move": seat["legal_moves"][0], "version": 0})
    assert moved.status_code == 200, moved.json
    after = client.get(f"/v1/sessions/{sid}").json
    assert after["version"] == 1 and any(s["running"] for s in after["clock"]["seats"])
    log = client.get(f"/v1/sessions/{sid}/log").json["entries"]
    assert log[0]["elapsed_ms"] == 0  # the held clock charged nothing for the move made before the release
    service.release_clock(sid)
    assert client.get(f"/v1/sessions/{sid}").json["clock"]["seats"] == after["clock"]["seats"]


def test_an_idle_bot_stream_beats_and_stays_connected_past_the_redis_timeout(
        make_app: Callable[..., Flask]) -> None:
    """A stream waits for events longer than REDIS_TIMEOUT (the store's socket timeout) without failing."""
    client = make_app(redis_timeout=0.3, bot_heartbeat=0.5, events_max=1.6).test_client()
    bot = Bot(client, "idle")
    body = client.get("/v1/bots/me/events", headers=organiser(bot.token)).data.decode()
    assert "event: error" not in body
    assert ": keep-alive" in body
    assert client.get(f"/v1/bots/{bot.id}").json["connected"] is True


def test_a_registration_that_closes_with_too_few_entries_cancels_the_tournament(
        make_app: Callable[..., Flask]) -> None:
    client = make_app().test_client()
    made = client.post("/v1/tournaments", json={"description": SWISS,
                                                "registration": {"until": "2000-01-01T00:00:00Z"}}).json
    assert made["status"] == "registering"
    view = run_until(client, made["id"], [], status="cancelled", seconds=30)
    assert view["rounds"] == [] and view["standings"] == []
    assert "cancelled" in sse_names(client.get(f"/v1/tournaments/{made['id']}/events").data)
