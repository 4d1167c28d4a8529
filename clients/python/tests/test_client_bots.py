"""The example bots, serve_bot's HTTP protocol, and play_seat playing whole matches."""
from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from card_referee_client import BotServer, Client, greedy_bot, play_seat, random_bot

SEED = "5eed" * 8


def plays(*cards: str, seat: int = 0) -> list[dict[str, Any]]:
    return [{"seat": seat, "action": "play", "card": c} for c in cards]


def test_greedy_plays_its_lowest_winning_card() -> None:
    choose = greedy_bot()
    view = {"trick": {"plays": [[1, "9H"], [2, "JH"]]}}
    assert choose(view, plays("2H", "QH", "AH", "KH"))["card"] == "QH"


def test_greedy_plays_its_lowest_card_when_it_cannot_win_or_leads() -> None:
    choose = greedy_bot()
    assert choose({"trick": {"plays": [[1, "AH"]]}}, plays("2H", "KH"))["card"] == "2H"
    assert choose({"trick": {"plays": [[1, "AH"]]}}, plays("KS", "3D"))["card"] == "3D"  # cannot follow: lowest
    assert choose({"trick": {"plays": []}}, plays("TS", "4C", "9D"))["card"] == "4C"


def test_greedy_counts_aces_low_in_the_davoserjazz_hands_that_do() -> None:
    choose = greedy_bot()
    view = {"hand_name": "few", "trick": {"plays": [[1, "3C"]]}}
    assert choose(view, plays("AC", "5C", "KC"))["card"] == "5C"
    assert choose({"hand_name": "few", "trick": {"plays": []}}, plays("AC", "2D"))["card"] == "AC"


def test_greedy_takes_the_first_move_that_is_not_a_card_play() -> None:
    moves = [{"seat": 0, "action": "bid", "ranges": {"amount": {"min": 2, "max": 9}}}]
    assert greedy_bot()({}, moves)["amount"] == 2


def test_random_bot_is_repeatable_and_resolves_ranges() -> None:
    moves = [{"seat": 0, "action": "stake", "ranges": {"chips": {"min": 1, "max": 50}}}] + plays("2C", "3C")
    picks = [random_bot(7)({}, moves) for _ in range(3)]
    assert picks[0] == picks[1] == picks[2]
    many = [random_bot(s)({}, moves) for s in range(40)]
    assert {m["action"] for m in many} == {"stake", "play"}
    assert all(1 <= m["chips"] <= 50 for m in many if m["action"] == "stake")


def test_serve_bot_answers_the_protocol() -> None:
    with BotServer(greedy_bot()) as bot:
        ask = {"protocol": "card-referee-bot/1", "view": {"trick": {"plays": [[1, "9H"]]}},
               "legal_moves": plays("TH", "AH"), "clock": None, "time_ms": 1000}
        req = urllib.request.Request(bot.url, json.dumps(ask).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert json.loads(resp.read()) == {"move": plays("TH")[0]}
        bad = urllib.request.Request(bot.url, b"{}", {"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(bad, timeout=5)
            raise AssertionError("a request without a view must fail")
        except urllib.error.HTTPError as exc:
            assert exc.code == 500


def test_play_seat_plays_a_whole_session_for_each_seat(client: Client) -> None:
    created = client.create_session("davoserjazz", players=3, seed=SEED)
    finals: dict[int, Any] = {}

    def play(seat: int, token: str) -> None:
        strategy = greedy_bot() if seat == 0 else random_bot(seat)
        finals[seat] = play_seat(client.seat(created["id"], token), strategy)
    threads = [threading.Thread(target=play, args=(s["seat"], s["token"])) for s in created["seats"]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(finals) == [0, 1, 2]
    assert all(f["finished"] for f in finals.values())
    log = client.session_log(created["id"])
    replayed = client.replay("davoserjazz", log["replay"] or {})
    assert replayed["result"] == log["result"]
