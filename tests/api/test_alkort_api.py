"""Alkort over the stateless API: a bot posting listed entries unchanged plays matches whose deals force the
stock phase (the generic post-back test uses the default options, where that phase is rare), and the game's
refusals are problems with their reasons, never a 5xx."""
from __future__ import annotations

import random

from service.app import create_app
from service.config import Config
from service.engine.games.alkort import PACK
from tests.engine.games.test_alkort import S8_HAND, exchange_deal, weak_deal

C = create_app(Config()).test_client()
NEW = "/v1/games/alkort/new"
MOVE = "/v1/games/alkort/move"


def test_listed_entries_post_back_unchanged_through_stock_phases() -> None:
    for seed in range(3):
        rng = random.Random(seed)
        deals = [weak_deal(rng) for _ in range(6)]
        resp = C.post(NEW, json={"players": 4, "seed": "a1", "deals": deals,
                                 "options": {"stock_exchange": True, "target_points": 4}})
        assert resp.status_code == 201, resp.get_json()
        env = resp.get_json()
        assert env["state"]["phase"] == "stock"
        moves = 0
        while not env["finished"]:
            entry = rng.choice(env["legal_moves"])
            resp = C.post(MOVE, json={"state": env["state"], "state_tag": env["state_tag"], "move": entry})
            assert resp.status_code == 200, (entry, resp.get_json())
            env = resp.get_json()
            moves += 1
            assert moves < 2000
        assert len(env["result"]["deals"]) >= 1 and env["legal_moves"] == []


def test_refusals_are_problems_with_their_reasons() -> None:
    env = C.post(NEW, json={"players": 4, "seed": "a1", "deal": exchange_deal({3: S8_HAND}),
                            "options": {"stock_exchange": True}}).get_json()
    for move, reason in [({"seat": 3, "action": "take_stock", "keep": 5}, "invalid_parameters"),
                         ({"seat": 3, "action": "take_stock", "keep": "TC"}, "invalid_parameters"),  # R15: no Tens
                         ({"seat": 3, "action": "take_stock", "keep": next(c for c in PACK if c not in S8_HAND)},
                          "card_not_in_hand"),
                         ({"seat": 1, "action": "take_stock", "keep": "AD"}, "not_your_turn"),
                         ({"seat": 3, "action": "play", "card": "8C"}, "wrong_phase")]:
        resp = C.post(MOVE, json={"state": env["state"], "move": move})
        assert resp.status_code == 422 and resp.get_json()["reason"] == reason, (move, resp.get_json())
    resp = C.post(NEW, json={"players": 3})
    assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_request"
    resp = C.post(NEW, json={"players": 4, "options": {"target_points": 0}})
    assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_options"
