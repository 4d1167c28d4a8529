"""A Python client generated from openapi.yaml by openapi-python-client, as an app developer would make one,
plays through the contract: a whole Femkort match and a Klaberjass deal on the games' own typed operations,
a typed 422 problem, a session with a spectator's plain (unauthenticated) client, an idempotent retry, a
long-poll, and the event stream read as it comes."""
from __future__ import annotations

import compileall
import importlib
import inspect
import json
import queue
import sys
import threading
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import ROOT, run

PROJECT = "card-referee-api-client"  # from the contract's title; the project's own client is card-referee-client
PACKAGE = "card_referee_api_client"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("generated")
    bin_dir = str(Path(sys.executable).parent)  # openapi-python-client formats with ruff, from the same venv
    done = run([str(Path(bin_dir) / "openapi-python-client"), "generate", "--path", str(ROOT / "openapi.yaml")],
               out, {"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    project = out / PROJECT
    assert f'name = "{PROJECT}"' in (project / "pyproject.toml").read_text()
    assert compileall.compile_dir(project / PACKAGE, quiet=1)
    sys.path.insert(0, str(project))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(project))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


class api:  # noqa: N801 - reads as the generated package's path: api("femkort").apply_femkort_move
    """A tag's operations in the generated package (one module each, imported when first used)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __getattr__(self, operation: str) -> Any:
        return importlib.import_module(f"{PACKAGE}.api.{self.tag}.{operation}")


def models() -> Any:
    return importlib.import_module(f"{PACKAGE}.models")


def plain(generated: ModuleType, url: str) -> Any:
    return generated.Client(base_url=url, raise_on_unexpected_status=True, timeout=generated_timeout())


def generated_timeout() -> Any:
    import httpx

    return httpx.Timeout(30.0)


def test_a_whole_femkort_match_and_a_typed_problem(generated: ModuleType, service_url: str) -> None:
    m, femkort = models(), api("femkort")
    client = plain(generated, service_url)
    dealt = femkort.new_femkort_match.sync_detailed(client=client, body=m.FemkortDealSpec(players=3, seed="c0ffee"))
    assert dealt.status_code == 201
    envelope = dealt.parsed
    assert isinstance(envelope, m.FemkortEnvelope) and envelope.to_act == [1]
    led = femkort.apply_femkort_move.sync(client=client, body=m.FemkortMoveRequest(
        state=envelope.state, state_tag=envelope.state_tag, move=m.FemkortMoveType0(seat=1, action="play", card="TH")))
    refused = femkort.apply_femkort_move.sync_detailed(client=client, body=m.FemkortMoveRequest(
        state=led.state, state_tag=led.state_tag, move=m.FemkortMoveType0(seat=2, action="play", card="5S")))
    assert refused.status_code == 422 and isinstance(refused.parsed, m.Problem)
    assert (refused.parsed.code, refused.parsed.reason) == (m.ProblemCode.ILLEGAL_MOVE, "must_follow_suit")
    envelope, moves = led, 0
    while not envelope.finished:
        envelope = femkort.apply_femkort_move.sync(client=client, body=m.FemkortMoveRequest(
            state=envelope.state, state_tag=envelope.state_tag, move=envelope.legal_moves[0]))
        assert isinstance(envelope, m.FemkortEnvelope)
        moves += 1
    assert moves > 0 and sum(envelope.result.payoffs) == 0


def test_a_klaberjass_deal(generated: ModuleType, service_url: str) -> None:
    m, klaberjass = models(), api("klaberjass")
    client = plain(generated, service_url)
    envelope = klaberjass.new_klaberjass_match.sync(client=client, body=m.KlaberjassDealSpec(players=2, seed="5eed"))
    settled = False
    while not settled:
        envelope = klaberjass.apply_klaberjass_move.sync(client=client, body=m.KlaberjassMoveRequest(
            state=envelope.state, state_tag=envelope.state_tag, move=envelope.legal_moves[0]))
        assert isinstance(envelope, m.KlaberjassEnvelope), envelope
        settled = any(event["type"] == "deal_settled" for event in (e.to_dict() for e in envelope.events))
    assert envelope.legal_moves  # the match goes on: the next deal is dealt


def test_the_spectator_calls_take_a_plain_client(generated: ModuleType) -> None:
    """The signatures say what the service does: a spectator's calls need no token, a move does."""
    def clients(operation: str) -> set[Any]:
        hint = inspect.signature(getattr(api("default"), operation).sync_detailed).parameters["client"].annotation
        return set(typing.get_args(hint)) or {hint}

    for operation in ("get_session", "session_events", "get_session_log"):
        assert generated.Client in clients(operation), operation
    assert clients("submit_move") == {generated.AuthenticatedClient}


def read_events(client: Any, sid: str, out: queue.Queue[tuple[str, str, str | None]]) -> None:
    """The event stream through the generated client's own httpx client, each event as it comes (the
    generated ``session_events`` call returns only once the stream has closed)."""
    with client.get_httpx_client().stream("GET", f"/v1/sessions/{sid}/events") as resp:
        assert resp.status_code == 200
        event: dict[str, str] = {}
        for line in resp.iter_lines():
            if line == "":
                if "data" in event:
                    out.put((event.get("event", "message"), event["data"], event.get("id")))
                event = {}
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                event[field] = value.removeprefix(" ")
    out.put(("closed", "{}", None))


def test_a_session_with_a_spectator_the_stream_an_idempotent_retry_and_a_long_poll(
        generated: ModuleType, service_url: str) -> None:
    m, default = models(), api("default")
    spectator = plain(generated, service_url)
    created = default.create_session.sync(client=spectator, body=m.SessionCreate(
        game=m.SessionCreateGame.FEMKORT, players=3))
    assert isinstance(created, m.SessionCreated)
    seats = [generated.AuthenticatedClient(base_url=service_url, token=s.token, timeout=generated_timeout())
             for s in created.seats]
    events: queue.Queue[tuple[str, str, str | None]] = queue.Queue()
    reader = threading.Thread(target=read_events, args=(spectator, created.id, events), daemon=True)
    reader.start()
    first = events.get(timeout=60)
    assert first[0] == "view" and first[2] == "0"

    view = default.get_session.sync(created.id, client=spectator)  # no token: the spectator's view
    assert isinstance(view, m.SessionView) and view.legal_moves == [] and view.seat is None
    version = 0
    while not view.finished:
        seat = view.to_act[0]
        mine = default.get_session.sync(created.id, client=seats[seat])
        key = f"move-{version + 1}"
        body = m.SessionMove(move=mine.legal_moves[0], version=mine.version)
        answer = default.submit_move.sync_detailed(created.id, client=seats[seat], body=body, idempotency_key=key)
        retried = default.submit_move.sync_detailed(created.id, client=seats[seat], body=body, idempotency_key=key)
        assert answer.status_code == retried.status_code == 200
        assert retried.headers.get("Idempotent-Replayed") == "true" and retried.parsed.version == answer.parsed.version
        version = answer.parsed.version
        name, data, event_id = events.get(timeout=60)  # this move's view arrives before the next move is made
        assert (name, event_id) == ("view", str(version))
        assert m.SessionView.from_dict(json.loads(data)).version == version
        view = default.get_session.sync(created.id, client=spectator, after=version - 1, wait=5)
        assert view.version == version
    name, data, _ = events.get(timeout=60)
    assert name == "end" and m.StreamEnd.from_dict(json.loads(data)).version == version
    assert events.get(timeout=60)[0] == "closed"
    reader.join(timeout=60)
