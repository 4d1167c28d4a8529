"""Every example description under clients/python/examples/ is played through ``card-referee tournament run`` and
passes ``verify``; the hosted ones (``hosted-*.json``, without bots) are descriptions the service takes.

Each is run as docs/tournaments.md runs it, from the repository's root, with one change: its HTTP bots, which
the docs start on ports 9001 (``card-referee bot random``) and 9002 (``card-referee bot greedy``), are the same
bots served on free ports, so that the test never depends on a fixed port being free. Everything else (seed,
games, options, clocks, the program bots with ``{python}``) is the file's.
"""
from __future__ import annotations

import json
import urllib.parse
from contextlib import ExitStack
from pathlib import Path

import pytest

from card_referee_client import BotServer, Client, greedy_bot, random_bot
from card_referee_client.cli import main
from card_referee_client.tournament.spec import load_hosted
from card_referee_client.tournament.verify import verify

ROOT = Path(__file__).resolve().parents[3]
ALL_EXAMPLES = sorted((ROOT / "clients" / "python" / "examples").glob("*.json"))
EXAMPLES = [p for p in ALL_EXAMPLES if not p.name.startswith("hosted-")]
HOSTED = [p for p in ALL_EXAMPLES if p.name.startswith("hosted-")]
DOCUMENTED_BOTS = {9001: random_bot, 9002: greedy_bot}  # the ports docs/tournaments.md starts them on


def test_the_examples_are_the_ones_the_docs_use() -> None:
    docs = (ROOT / "docs" / "tournaments.md").read_text()
    assert {p.name for p in ALL_EXAMPLES} == {"round-robin.json", "swiss.json", "hosted-swiss.json"}
    for path in ALL_EXAMPLES:
        assert f"clients/python/examples/{path.name}" in docs, path.name


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_an_example_description_runs_and_verifies(path: Path, service_url: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    raw = json.loads(path.read_text())
    monkeypatch.chdir(ROOT)  # the docs' commands, and the example's program bots, run from the repository's root
    with ExitStack() as stack:
        for bot in raw["bots"]:
            if "url" in bot:
                port = urllib.parse.urlsplit(bot["url"]).port
                bot["url"] = stack.enter_context(BotServer(DOCUMENTED_BOTS[port]())).url
        (tmp_path / path.name).write_text(json.dumps(raw))
        out = tmp_path / "out"
        assert main(["tournament", "run", str(tmp_path / path.name), "--url", service_url, "--out", str(out),
                     "--quiet"]) == 0
    records = list((out / "matches").glob("*.json"))
    assert records and (out / "results.csv").exists()
    assert verify(out, Client(service_url)) == (len(records), None)


@pytest.mark.parametrize("path", HOSTED, ids=lambda p: p.name)
def test_a_hosted_example_is_a_hosted_description(path: Path) -> None:
    raw = json.loads(path.read_text())
    assert "bots" not in raw  # the entries are the bots
    spec = load_hosted(raw, [f"bot{i}" for i in range(12)])
    assert spec.absent == raw["absent"] and len(spec.bots) == 12
    assert spec.seed == raw["seed"]  # a fixed seed: the same pairings and deals on every run
