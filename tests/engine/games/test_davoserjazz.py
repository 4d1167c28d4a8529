"""Davoserjazz: every scenario of the spec behind docs/games/davoserjazz.md, section 9, plus options, deals and forged states.

Positions are reached by real engine play: explicit deals plus legal moves through ``engine.apply``. Two small
builders write those deals and moves: ``block_plan`` (trick hands in which everybody follows suit, so the
winner of each trick is simply whoever holds its top card) and ``random_history`` / ``qabbalah_line`` (seeded
searches for a legal line of play with the wanted outcome).
"""
from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidState
from service.engine.cards import STANDARD_PACK
from service.engine.games import davoserjazz as dj
from service.engine.rng import shuffled

from ..playout import expect_illegal, leaks, play_to_end

GAME = "davoserjazz"
Plan = list[tuple[int, dict[int, str]]]  # (expected winner, {seat: card}) per trick


# ----- builders ------------------------------------------------------------------------------------
def mv(seat: int, card: str | None = None, action: str = "play") -> dict[str, Any]:
    return {"seat": seat, "action": action} if card is None else {"seat": seat, "action": action, "card": card}


def run(state: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    for m in moves:
        state, _ = engine.apply(state, m)
    return state


def deal_with(n: int, fixed: dict[int, list[str]]) -> dict[str, Any]:
    """A default-options deal in which the seats in ``fixed`` hold those cards (first), the rest in pack order."""
    out = list(dj.REMOVAL[:52 % n])
    used = {c for h in fixed.values() for c in h}
    spare = [c for c in STANDARD_PACK if c not in used and c not in out]
    hands = []
    for s in range(n):
        need = 52 // n - len(fixed.get(s, []))
        hands.append(list(fixed.get(s, [])) + spare[:need])
        spare = spare[need:]
    return {"hands": hands, "rest": out}


def filler(n: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    opts = engine.get_game(GAME).read_options(options or {}, n)
    cards = dj.in_use(tuple(dj.left_out(n, opts)))
    return {"hands": [list(cards[s::n]) for s in range(n)], "rest": dj.left_out(n, opts)}


def reach(n: int, hand: int, deal: dict[str, Any], **options: Any) -> dict[str, Any]:
    """A match at the start of hand ``hand`` of round 1 with ``deal`` dealt; earlier hands really played."""
    state = engine.new_match(GAME, n, options, "5eed", deals=[*[filler(n, options)] * (hand - 1), deal])
    while state["hand"] < hand:
        state, _ = engine.apply(state, engine.legal_moves(state)[0])
    assert state["hand"] == hand and state["hands"] == deal["hands"]
    return state


def script(leader: int, plan: Plan, n: int = 4, played: int | None = None,
           extra: dict[int, list[str]] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The deal (every card of the plan, plus ``extra`` cards never played) and the moves of the first
    ``played`` tricks, each led by the expected winner of the trick before."""
    hands: list[list[str]] = [[] for _ in range(n)]
    for _, trick in plan:
        for seat, card in trick.items():
            hands[seat].append(card)
    for seat, cards in (extra or {}).items():
        hands[seat] += cards
    moves = []
    for winner, trick in plan[:played]:
        moves += [mv((leader + i) % n, trick[(leader + i) % n]) for i in range(n)]
        leader = winner
    return {"hands": hands, "rest": []}, moves


def block_plan(winners: list[int], aces_high: bool) -> Plan:
    """4 players, 13 tricks: twelve one-suit tricks (C D H S C D H S ...) in which everybody follows and the
    wanted winner holds the top card, then the four lowest cards, one suit per seat, led by the winner of
    trick 12 (so winners[12] must equal winners[11])."""
    assert len(winners) == 13 and winners[12] == winners[11]
    order = "23456789TJQKA" if aces_high else "A23456789TJQK"
    left = {s: [r + s for r in reversed(order)] for s in "CDHS"}  # high to low
    plan: Plan = []
    for k in range(12):
        suit = "CDHS"[k % 4]
        cards, left[suit] = left[suit][:4], left[suit][4:]
        others = [s for s in range(4) if s != winners[k]]
        plan.append((winners[k], {winners[k]: cards[0], **dict(zip(others, cards[1:]))}))
    plan.append((winners[12], {s: left["CDHS"[s]][0] for s in range(4)}))
    return plan


def random_history(n: int, hand_no: int, leader: int, finals: dict[int, list[str]], tricks: int,
                   want: Callable[[list[tuple[list[list[Any]], int]]], bool], seed: int = 1,
                   tries: int = 50000) -> list[tuple[list[list[Any]], int]]:
    """A seeded search for ``tricks`` legal tricks, from the cards not in ``finals``, after which the seats
    hold ``finals``. A seat may discard only a suit it never holds again (so it really was void)."""
    table = dj.ACES_LOW if hand_no % 2 else dj.ACES_HIGH
    used = {c for h in finals.values() for c in h} | set(dj.REMOVAL[:52 % n])
    prior = [c for c in STANDARD_PACK if c not in used]
    assert len(prior) == n * tricks
    final_suits = {s: {c[1] for c in finals[s]} for s in range(n)}
    rng = random.Random(seed)
    for _ in range(tries):
        pool, closed = list(prior), [set() for _ in range(n)]
        history: list[tuple[list[list[Any]], int]] = []
        lead = leader
        for _k in range(tricks):
            plays: list[list[Any]] = []
            for i in range(n):
                s = (lead + i) % n
                mine = [c for c in pool if c[1] not in closed[s]]
                if i:
                    led = plays[0][1][1]
                    follow = [c for c in mine if c[1] == led]
                    if led in final_suits[s] or (follow and rng.random() < 0.5):
                        mine = follow
                if not mine:
                    break
                card = rng.choice(mine)
                if i and card[1] != plays[0][1][1]:
                    closed[s].add(plays[0][1][1])
                pool.remove(card)
                plays.append([s, card])
            if len(plays) < n:
                break
            lead = table.winner(plays)
            history.append((plays, lead))
        else:
            if want(history):
                return history
    raise AssertionError("no line of play found")


def history_deal(n: int, finals: dict[int, list[str]], history: list[Any]) -> tuple[dict[str, Any], list[Any]]:
    hands = [list(finals[s]) for s in range(n)]
    for plays, _ in history:
        for seat, card in plays:
            hands[seat].append(card)
    return {"hands": hands, "rest": list(dj.REMOVAL[:52 % n])}, [mv(s, c) for plays, _ in history for s, c in plays]


def won_by(history: list[Any], card: str) -> int:
    return next(w for plays, w in history if any(p[1] == card for p in plays))


def qabbalah_line(first: int, plays: list[int], passes: list[int], order: list[int]
                  ) -> tuple[list[list[str]], list[tuple[int, str | None]]]:
    """4 players, no pool: a deal and a line of play in which seat s plays plays[s] cards and passes passes[s]
    times, going out in ``order`` (its last seat keeps the one card left). A depth-first search over the
    turns; a pass is allowed when every card playable then goes to someone else."""
    n = 4
    layout: dict[str, Any] = {s: None for s in "CDHS"}
    unplayed = set(STANDARD_PACK)
    barred: dict[str, set[int]] = {c: set() for c in STANDARD_PACK}
    owner: dict[str, int] = {}
    line: list[tuple[int, str | None]] = []
    left_p, left_x, out = list(plays), list(passes), []
    last = order[-1]

    def open_cards() -> list[str]:  # suit by suit, the rising end first
        cards = []
        for suit in "CDHS":
            row = layout[suit]
            ends = [7] if row is None else [r for r in (row[1] + 1, row[0] - 1) if 1 <= r <= 13]
            cards += [dj.code(r, suit) for r in ends]
        return cards

    def after(seat: int) -> int:
        return next((seat + i) % n for i in range(1, n + 1) if (seat + i) % n not in out)

    def turn(seat: int) -> bool:
        now = open_cards()
        choices: list[str | None] = [None] if left_x[seat] else []
        choices += [c for c in now if left_p[seat] and seat not in barred[c]]
        for card in choices:
            if card is None:
                added = [c for c in now if seat not in barred[c]]
                for c in added:
                    barred[c].add(seat)
                left_x[seat] -= 1
                line.append((seat, None))
                if turn(after(seat)):
                    return True
                line.pop()
                left_x[seat] += 1
                for c in added:
                    barred[c].discard(seat)
                continue
            row = layout[card[1]]
            dj.place(layout, card)
            unplayed.discard(card)
            owner[card] = seat
            left_p[seat] -= 1
            line.append((seat, card))
            if left_p[seat] == 0 and seat != last:
                if left_x[seat] == 0:
                    out.append(seat)
                    if len(out) == n - 1:
                        rest = sorted(unplayed)
                        if (out == order[:-1] and not left_p[last] and not left_x[last]
                                and all(last not in barred[c] for c in rest)):
                            for c in rest:
                                owner[c] = last
                            return True
                    elif turn(after(seat)):
                        return True
                    out.pop()
            elif turn(after(seat)):
                return True
            line.pop()
            left_p[seat] += 1
            del owner[card]
            unplayed.add(card)
            layout[card[1]] = row
        return False

    assert turn(first), "no qabbalah line found"
    hands = [sorted(c for c, s in owner.items() if s == seat) for seat in range(n)]
    return hands, line


# ----- S1: the source's worked example --------------------------------------------------------------
def worked_example() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Seven deals and every move of the worked example's round (first_dealer 1, see the docs' rulings)."""
    deals, moves = [], []

    def add(deal: dict[str, Any], more: list[dict[str, Any]]) -> None:
        deals.append(deal)
        moves.extend(more)

    # hand h is dealt by seat h mod 4, so it is led by seat (h + 1) mod 4
    add(*script(2, block_plan([0, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1], aces_high=False)))   # few: 1 8 1 3
    add(*script(3, block_plan([1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3], aces_high=True)))    # many: 0 5 3 5
    clubs: Plan = [  # aces low; seat 0 takes 4 + 4 + 2 clubs, seat 2 the last 3; stops after trick 9
        (0, {0: "KC", 1: "TC", 2: "9C", 3: "8C"}),
        (0, {0: "QC", 1: "7C", 2: "6C", 3: "5C"}),
        (0, {0: "KH", 1: "4H", 2: "TH", 3: "2H"}),
        (0, {0: "QH", 1: "3H", 2: "9H", 3: "AH"}),
        (0, {0: "JH", 1: "4C", 2: "8H", 3: "3C"}),   # seats 1 and 3 have no hearts left
        (0, {0: "KD", 1: "7D", 2: "TD", 3: "4D"}),
        (0, {0: "QD", 1: "6D", 2: "9D", 3: "3D"}),
        (2, {0: "2D", 1: "5D", 2: "JD", 3: "AD"}),
        (2, {0: "JC", 1: "AC", 2: "8D", 3: "2C"}),   # only seat 2 has diamonds left
    ]
    add(*script(0, clubs, extra={0: ["AS", "2S", "3S", "4S"], 1: ["5S", "6S", "7S", "8S"],
                                 2: ["KS", "7H", "6H", "5H"], 3: ["9S", "TS", "JS", "QS"]}))
    queens = block_plan([1, 1, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3], aces_high=True)         # QC QD QH to 1, QS to 2
    add(*script(1, queens, played=4))
    add(*script(2, block_plan([0] * 11 + [1, 1], aces_high=False)))                        # first 0, last 1
    add(*script(3, block_plan([1, 1, 1, 1] + [2] * 9, aces_high=True), played=4))         # AS takes KS: seat 1
    hands, line = qabbalah_line(0, [13, 13, 13, 12], [1, 2, 4, 4], [0, 1, 2, 3])
    add({"hands": hands, "rest": []}, [mv(s, None, "pass") if c is None else mv(s, c) for s, c in line])
    return deals, moves


S1_HANDS = {"few": [0, 70, 0, 20], "many": [50, 0, 20, 0], "clubs": [100, 0, 30, 0], "queens": [0, 75, 25, 0],
            "first_last": [50, 50, 0, 0], "king_of_spades": [0, 100, 0, 0], "qabbalah": [10, 20, 40, 40]}


def test_S1_worked_example_through_the_engine() -> None:
    deals, moves = worked_example()
    state = engine.new_match(GAME, 4, {"first_dealer": 1}, "5eed", deals=deals)
    hands_seen, events = [], []
    for m in moves:
        engine.check_state(GAME, state)
        hands_seen.append(state["hand"])
        state, evs = engine.apply(state, m)
        events += evs
    engine.check_state(GAME, state)
    assert engine.is_finished(state) and engine.legal_moves(state) == [] and engine.to_act(state) == []
    assert sorted(set(hands_seen)) == [1, 2, 3, 4, 5, 6, 7]
    # the per-hand scores, as the events of the moves report them
    scored = [e for e in events if e["type"] == "deal_settled"]
    assert [(e["deal"], e["round"], e["hand"], e["name"], e["unit"]) for e in scored] == [
        (k + 1, 1, k + 1, h, "points") for k, h in enumerate(dj.HANDS)]
    assert {e["name"]: e["changes"] for e in scored} == S1_HANDS
    settled = [e for e in events if e["type"] == "round_settled"]
    assert len(settled) == 1 and settled[0] == {
        "type": "round_settled", "round": 1, "changes": [140, -140, -27, 27], "unit": "points", "hands": S1_HANDS,
        "totals": [210, 315, 115, 60], "pot": 700, "order": [0, 1, 2, 3], "shares": [350, 175, 88, 87]}
    assert events[-1] == {"type": "match_over"}
    res = engine.result(state)
    rnd = res["last_round"]
    assert rnd == record(settled[0])
    assert rnd["hands"] == S1_HANDS
    assert state["passes"] == [1, 2, 4, 4]
    assert rnd["order"] == [0, 1, 2, 3]
    assert rnd["totals"] == res["scores"] == [210, 315, 115, 60]
    assert rnd["pot"] == 700
    assert rnd["shares"] == [350, 175, 88, 87]
    assert rnd["payoffs"] == res["payoffs"] == [140, -140, -27, 27]
    assert res["ranking"] == [0, 3, 2, 1]
    assert state["hands"][3] and not any(state["hands"][:3])  # the last player keeps a card, unscored


def test_S1_early_stops_leave_cards_unplayed() -> None:
    """Clubs stops after 9 tricks, Queens and King of spades after 4 (stop_when_decided)."""
    deals, moves = worked_example()
    state = engine.new_match(GAME, 4, {"first_dealer": 1}, "5eed", deals=deals)
    tricks_per_hand: dict[int, int] = {}
    for m in moves:
        hand = state["hand"]
        state, _ = engine.apply(state, m)
        if hand < 7:
            tricks_per_hand[hand] = tricks_per_hand.get(hand, 0) + 1
    assert {h: k // 4 for h, k in tricks_per_hand.items()} == {1: 13, 2: 13, 3: 9, 4: 4, 5: 13, 6: 4}


# ----- S2: the ace changes with the hand -------------------------------------------------------------
@pytest.mark.parametrize(("hand", "first_dealer", "winner"), [(1, 0, 3), (2, 3, 2)])
def test_S2_ace_low_in_few_high_in_many(hand: int, first_dealer: int, winner: int) -> None:
    deal = deal_with(4, {1: ["5H"], 2: ["AH"], 3: ["KH"], 0: ["2H"]})
    state = reach(4, hand, deal, first_dealer=first_dealer)
    assert engine.to_act(state) == [1]
    state = run(state, [mv(1, "5H"), mv(2, "AH"), mv(3, "KH"), mv(0, "2H")])
    assert state["tricks"][0]["winner"] == winner
    assert engine.to_act(state) == [winner]


# ----- S3: following suit ---------------------------------------------------------------------------
@pytest.mark.parametrize(("finals", "lead", "legal"), [
    ({2: ["AC", "4D", "KD", "7S", "QH"], 1: ["9D", "2S", "3S", "4S", "5S"], 0: ["5C", "6C", "7C", "8C", "9C"],
      3: ["TC", "JC", "QC", "KC", "2H"]}, "9D", ["4D", "KD"]),
    ({2: ["AC", "4D", "KD", "7S"], 1: ["3H", "2S", "3S", "4S"], 0: ["5C", "6C", "7C", "8C"],
      3: ["TC", "JC", "QC", "2H"]}, "3H", ["AC", "4D", "KD", "7S"]),
])
def test_S3_following_suit(finals: dict[int, list[str]], lead: str, legal: list[str]) -> None:
    tricks = 13 - len(finals[2])
    history = random_history(4, 3, 3, finals, tricks, lambda h: h[-1][1] == 1)
    deal, moves = history_deal(4, finals, history)
    state = run(reach(4, 3, deal), moves)
    state = run(state, [mv(1, lead)])
    assert sorted(m["card"] for m in engine.legal_moves(state)) == sorted(legal)
    assert {m["seat"] for m in engine.legal_moves(state)} == {2}
    for card in finals[2]:
        if card not in legal:
            expect_illegal(state, mv(2, card), "must_follow_suit")


# ----- S4: Few and Many arithmetic -------------------------------------------------------------------
@pytest.mark.parametrize(("kind", "tricks", "points"), [
    ("few", [4, 4, 9], [0, 0, 50]), ("few", [5, 6, 6], [0, 10, 10]), ("many", [7, 7, 3], [0, 0, 40]),
])
def test_S4_few_and_many_arithmetic(kind: str, tricks: list[int], points: list[int]) -> None:
    counts = {"tricks": tricks, "clubs": [0, 0, 0], "queens": [0, 0, 0]}
    assert dj.trick_points(kind, counts, [], 13, 3) == points


def test_S4_few_and_many_through_the_engine() -> None:
    """3 players, real play of Few and Many: the points follow the tricks won."""
    state = engine.new_match(GAME, 3, {}, "abc")
    rng = random.Random(4)
    tricks = [0, 0, 0]
    scored = 0
    while state["hand"] < 3:
        state, events = engine.apply(state, rng.choice(engine.legal_moves(state)))
        for e in events:
            if e["type"] == "trick_won":
                tricks[e["winner"]] += 1
            if e["type"] == "deal_settled":
                assert sum(tricks) == 17
                assert e["changes"] == ([10 * (t - min(tricks)) for t in tricks] if e["hand"] == 1
                                       else [10 * (max(tricks) - t) for t in tricks])
                tricks = [0, 0, 0]
                scored += 1
    assert scored == 2


# ----- S5: Clubs, all to one player, and the automatic stop -------------------------------------------
S5_FINALS = {1: ["4C", "9S", "TS", "JS", "3H"], 2: ["KD", "QD", "5H", "6H", "7H"], 0: ["2S", "3S", "8D", "9D", "TD"]}


def s5_state(**options: Any) -> dict[str, Any]:
    clubs = [c for c in STANDARD_PACK if c[1] == "C" and c != "4C"]
    others = [c for c in STANDARD_PACK if c[1] != "C" and c != "2D" and all(c not in h for h in S5_FINALS.values())]
    deal = {"hands": [others[12:] + S5_FINALS[0], clubs + S5_FINALS[1], others[:12] + S5_FINALS[2]], "rest": ["2D"]}
    state = reach(3, 3, deal, first_dealer=1, **options)  # hand 3 is dealt by seat 0, so seat 1 leads
    for k in range(12):
        state = run(state, [mv(1, clubs[k]), mv(2, others[k]), mv(0, others[12 + k])])
    assert state["counts"]["clubs"] == [0, 12, 0] and len(state["tricks"]) == 12
    return state


@pytest.mark.parametrize("stop", [True, False])
def test_S5_all_clubs_to_one_player(stop: bool) -> None:
    state = s5_state(stop_when_decided=stop)
    assert engine.to_act(state) == [1]
    state = run(state, [mv(1, "4C")])
    assert sorted(m["card"] for m in engine.legal_moves(state)) == sorted(S5_FINALS[2])
    state = run(state, [mv(2, "5H")])
    assert sorted(m["card"] for m in engine.legal_moves(state)) == sorted(S5_FINALS[0])
    state, events = engine.apply(state, mv(0, "8D"))
    if stop:
        assert state["hand"] == 4 and state["dealer"] == 1  # Queens, dealt by the next dealer
        assert [e for e in events if e["type"] == "deal_settled"][0]["stopped_early"] is True
    else:
        assert state["hand"] == 3 and len(state["tricks"]) == 13 and engine.to_act(state) == [1]
        played = 0
        while state["hand"] == 3:
            state = run(state, [engine.legal_moves(state)[0]])
            played += 1
        assert played == 12  # tricks 14 to 17
    assert state["points"][2] == [100, 0, 100]


# ----- S6: Queens, ace high, a discarded queen, the automatic stop -------------------------------------
def test_S6_queens_ace_high_and_stop() -> None:
    finals = {3: ["JC", "4S", "8H", "2D"], 0: ["QC", "5C", "9S", "TD"], 1: ["AC", "3C", "KH", "6D"],
              2: ["QS", "7S", "5H", "3H"]}
    history = random_history(4, 4, 0, finals, 9,
                             lambda h: h[-1][1] == 3 and won_by(h, "QH") == 2 and won_by(h, "QD") == 1)
    deal, moves = history_deal(4, finals, history)
    state = run(reach(4, 4, deal), moves)
    assert state["counts"]["queens"] == [0, 1, 1, 0] and engine.to_act(state) == [3]
    state = run(state, [mv(3, "JC")])
    assert sorted(m["card"] for m in engine.legal_moves(state)) == ["5C", "QC"]
    state = run(state, [mv(0, "QC")])
    assert sorted(m["card"] for m in engine.legal_moves(state)) == ["3C", "AC"]
    state = run(state, [mv(1, "AC")])
    assert sorted(m["card"] for m in engine.legal_moves(state)) == ["3H", "5H", "7S", "QS"]
    state, events = engine.apply(state, mv(2, "QS"))
    assert [e["winner"] for e in events if e["type"] == "trick_won"] == [1]
    assert state["hand"] == 5 and state["points"][3] == [0, 75, 25, 0]


# ----- S7: First/last, the last trick with ace low ----------------------------------------------------
def test_S7_last_trick_ace_low() -> None:
    finals = {0: ["AH"], 1: ["2H"], 2: ["5C"], 3: ["3H"]}
    history = random_history(4, 5, 1, finals, 12, lambda h: h[0][1] == 3 and h[-1][1] == 0)
    deal, moves = history_deal(4, finals, history)
    state = run(reach(4, 5, deal), moves)
    assert engine.to_act(state) == [0]
    state = run(state, [mv(0, "AH"), mv(1, "2H"), mv(2, "5C"), mv(3, "3H")])
    assert state["hand"] == 6 and state["points"][4] == [0, 0, 0, 100]


# ----- qabbalah positions -------------------------------------------------------------------------------
def layout_line(n: int, opts: dict[str, Any], finals: list[list[str]], layout: dict[str, Any], pool: list[str],
                turn: int, order: list[int], seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Hand 7's deal and a legal line of qabbalah moves after which the seats hold ``finals``, the layout and
    pool are as given, the seats of ``order`` went out in that order and ``turn`` is on turn.

    A seeded depth-first search over the turns: the seat on turn brings in every pool card the target layout
    holds once it fits, then plays a layout card it may own or passes. A card is dealt to whoever plays it;
    a seat that passes may not own a card reachable then, nor hold one among its final cards. When nobody goes
    out the turns go round evenly, so each seat's number of passes is known and passes are tried first."""
    out = dj.left_out(n, opts)
    target = dj.row_cards(layout)
    to_play = [c for c in target if c not in out]
    to_bring = [c for c in out if c in target]
    assert pool == [c for c in out if c not in target]
    first = (opts["first_dealer"] + 7) % n  # hand 7 is dealt by first_dealer + 6
    need0 = [52 // n - len(finals[s]) for s in range(n)]
    assert sum(need0) == len(to_play) and min(need0) >= 0
    ahead = [(first + i) % n for i in range((turn - first) % n)]  # seats with one turn more than the rest
    circuits = max(need0[s] - (s in ahead) for s in range(n))
    rng = random.Random(seed)
    for _ in range(200):
        nodes = [0]
        owner: dict[str, int] = {}
        barred: dict[str, set[int]] = {c: set() for c in to_play}
        need = list(need0)
        quota = [circuits + (s in ahead) - need0[s] for s in range(n)] if not order else None
        gone: list[int] = []
        line: list[dict[str, Any]] = []

        def holds(s: int) -> bool:
            return need[s] > 0 or bool(finals[s])

        def after(s: int) -> int:
            return next((s + i) % n for i in range(1, n + 1) if holds((s + i) % n))

        def go(seat: int, lay: dict[str, Any], pl: list[str], spare: int) -> bool:
            nodes[0] += 1
            if nodes[0] > 3000:
                return False
            done = len(owner) == len(to_play) and pl == pool
            if done and seat == turn and gone == order:
                return True
            mark = len(line)
            lay, pl = {k: (list(v) if v else v) for k, v in lay.items()}, list(pl)
            for c in to_bring:  # in the left-out order, which is the order they can come in
                if c in pl and dj.playable(lay, c):
                    dj.place(lay, c)
                    pl.remove(c)
                    line.append(mv(seat, c, "bring_in"))
            plays: list[str | None] = [c for c in to_play if c not in owner and need[seat] and seat not in barred[c]
                                       and dj.playable(lay, c)]
            rng.shuffle(plays)
            prefer_pass = quota[seat] > 0 if quota is not None else need[seat] < max(need)
            for c in ([None, *plays] if prefer_pass else [*plays, None]):
                if c is None:
                    if pass_turn(seat, lay, pl, spare, done):
                        return True
                    continue
                row = lay[c[1]]
                dj.place(lay, c)
                owner[c] = seat
                need[seat] -= 1
                line.append(mv(seat, c))
                if not holds(seat):
                    gone.append(seat)
                if sum(holds(s) for s in range(n)) > 1 and go(after(seat), lay, pl, spare):
                    return True
                if not holds(seat):
                    gone.pop()
                line.pop()
                need[seat] += 1
                del owner[c]
                lay[c[1]] = row
            del line[mark:]
            return False

        def pass_turn(seat: int, lay: dict[str, Any], pl: list[str], spare: int, done: bool) -> bool:
            if (quota is not None and quota[seat] == 0) or (done and not spare):
                return False
            if any(dj.reachable(lay, pl, c) for c in finals[seat]):
                return False
            bar = [c for c in to_play if c not in owner and seat not in barred[c] and dj.reachable(lay, pl, c)]
            for c in bar:
                barred[c].add(seat)
            line.append(mv(seat, None, "pass"))
            if quota is not None:
                quota[seat] -= 1
            if go(after(seat), lay, pl, spare - 1 if done else spare):
                return True
            if quota is not None:
                quota[seat] += 1
            line.pop()
            for c in bar:
                barred[c].discard(seat)
            return False

        if go(first, {s: None for s in "CDHS"}, list(out), n):
            hands = [list(finals[s]) for s in range(n)]
            for c, s in owner.items():
                hands[s].append(c)
            return {"hands": hands, "rest": out}, line
    raise AssertionError("no qabbalah line found")


@functools.cache
def _layout_position(n: int, finals: str, layout: str, pool: str, turn: int, order: str, options: str
                     ) -> dict[str, Any]:
    opts = engine.get_game(GAME).read_options(json.loads(options), n)
    deal, line = layout_line(n, opts, json.loads(finals), json.loads(layout), json.loads(pool), turn,
                             json.loads(order))
    state = run(reach(n, 7, deal, **json.loads(options)), line)
    engine.check_state(GAME, state)
    return state


def layout_state(n: int, hands: list[list[str]], layout: dict[str, Any], pool: list[str], turn: int,
                 order: list[int] | None = None, totals: list[int] | None = None, **options: Any) -> dict[str, Any]:
    """A qabbalah position reached by real play (hands 1-6 played out, then ``layout_line``'s moves).

    With ``totals`` the points of hands 1-6 are set so that the round's totals, qabbalah's passes included,
    come to ``totals``: earlier hands' points are carried values, which a state's check takes as they are
    (range-checked only), so they are set in the state and in its record alike."""
    state = engine.clone(_layout_position(n, json.dumps(hands), json.dumps(layout), json.dumps(pool), turn,
                                          json.dumps(order or []), json.dumps(options, sort_keys=True)))
    if totals is not None:
        rest = [t - 10 * p for t, p in zip(totals, state["passes"])]
        state["points"] = [[0] * n] * 5 + [rest]
        state["before"]["points"] = engine.clone(state["points"])
    engine.check_state(GAME, state)
    return state


S8_HANDS = [["AC", "3S", "AS", "JD", "QD", "KD", "4H", "TH", "KH"], ["AD", "2C", "JH", "2S"],
            ["3C", "4S", "TD", "AH", "2H", "3H", "9H", "QH"]]


def s8_state(turn: int) -> dict[str, Any]:
    layout = {"C": [4, 13], "D": [3, 9], "H": [5, 8], "S": [5, 13]}
    return layout_state(3, S8_HANDS, layout, ["2D"], turn)


def test_S8_forced_bring_in() -> None:
    state = s8_state(1)
    assert engine.legal_moves(state) == [mv(1, "2D", "bring_in")]
    expect_illegal(state, mv(1, None, "pass"), "must_play")
    expect_illegal(state, mv(1, "AD"), "not_playable")
    state = run(state, [mv(1, "2D", "bring_in")])
    assert engine.to_act(state) == [1] and state["layout"]["D"] == [2, 9] and state["pool"] == []
    assert engine.legal_moves(state) == [mv(1, "AD")]
    state = run(state, [mv(1, "AD")])
    assert state["layout"]["D"] == [1, 9] and engine.to_act(state) == [2]
    assert sorted(m["card"] for m in engine.legal_moves(state)) == ["3C", "4S", "9H", "TD"]
    assert all(m["action"] == "play" for m in engine.legal_moves(state))
    expect_illegal(state, mv(2, "2D", "bring_in"), "not_in_pool")


def test_S8_variant_bring_in_that_only_helps_others() -> None:
    state = s8_state(2)
    moves = engine.legal_moves(state)
    assert sorted((m["action"], m["card"]) for m in moves) == [
        ("bring_in", "2D"), ("play", "3C"), ("play", "4S"), ("play", "9H"), ("play", "TD")]
    state = run(state, [mv(2, "2D", "bring_in")])
    assert engine.to_act(state) == [2] and mv(2, "2D", "bring_in") not in engine.legal_moves(state)


def s9_state(totals: tuple[int, ...] = (200, 250, 250), **options: Any) -> dict[str, Any]:
    """Seat 0 is out, seat 2 holds only KS and is on turn, seat 1 holds three kings; the round's totals
    (passes included) come to ``totals``."""
    hands: list[list[str]] = [[], ["KC", "KD", "KH"], ["KS"]]
    layout = {s: [1, 12] for s in "CDHS"}
    return layout_state(3, hands, layout, [], 2, order=[0], totals=list(totals), **options)


def record(event: dict[str, Any]) -> dict[str, Any]:
    """A ``round_settled`` event as the result's ``last_round`` record (its ``changes`` are the payoffs)."""
    assert event["type"] == "round_settled" and event["unit"] == "points"
    return {**{k: v for k, v in event.items() if k not in ("type", "changes", "unit")}, "payoffs": event["changes"]}


def test_S9_end_of_qabbalah_and_thirds() -> None:
    state = s9_state()
    passes = state["passes"]
    state, events = engine.apply(state, mv(2, "KS"))
    assert engine.is_finished(state) and engine.to_act(state) == [] and engine.legal_moves(state) == []
    res = engine.result(state)
    rnd = res["last_round"]
    assert rnd["round"] == 1 and rnd["order"] == [0, 2, 1] and rnd["hands"]["qabbalah"] == [10 * p for p in passes]
    assert rnd["totals"] == res["scores"] == [200, 250, 250] and rnd["pot"] == 700
    assert rnd["shares"] == [350, 116, 234]
    assert res["payoffs"] == [150, -134, -16]
    assert res["ranking"] == [0, 2, 1]
    assert state["hands"][1] == ["KC", "KD", "KH"]  # kept, and not charged
    assert [e["type"] for e in events] == ["play", "went_out", "deal_settled", "round_settled", "match_over"]
    assert events[2]["changes"] == [10 * p for p in passes] and events[2]["unit"] == "points"
    assert record(events[3]) == rnd and events[3]["changes"] == [150, -134, -16]
    assert state["scores"] == res["scores"] and state["payoffs"] == res["payoffs"]


# ----- S10: halving for 5 players ---------------------------------------------------------------------
def test_S10_halving_five_players() -> None:
    w = dj.weights(5, "auto")
    assert w == dj.weights(5, "halving") == [6, 3, 1, 1, 1]
    shares = dj.shares_by_seat(930, [4, 0, 1, 2, 3], w)
    assert shares == [233, 78, 77, 77, 465]
    assert sum(shares) == 930


# ----- S11: dealers and left-out cards --------------------------------------------------------------
def test_S11_dealers_and_first_turns_over_two_rounds() -> None:
    state = engine.new_match(GAME, 3, {"rounds": 2}, "abc")
    seen: list[tuple[int, int, int, int]] = []
    rng = random.Random(3)
    settled: list[dict[str, Any]] = []
    while not engine.is_finished(state):
        key = (state["round"], state["hand"])
        if not seen or seen[-1][:2] != key:
            assert sorted(len(h) for h in state["hands"]) == [17, 17, 17]
            assert dj.left_out(3, state["options"]) == ["2D"]
            assert all("2D" not in h for h in state["hands"])
            seen.append((*key, state["dealer"], engine.to_act(state)[0]))
        state, events = engine.apply(state, rng.choice(engine.legal_moves(state)))
        settled += [e for e in events if e["type"] == "round_settled"]
    assert [s[2] for s in seen[:7]] == [0, 1, 2, 0, 1, 2, 0]
    assert [s[3] for s in seen[:7]] == [1, 2, 0, 1, 2, 0, 1]
    assert seen[7] == (2, 1, 1, 2)
    assert len(seen) == 14 and [e["round"] for e in settled] == [1, 2]
    assert engine.result(state)["last_round"]["round"] == 2


@pytest.mark.parametrize(("n", "out", "size"), [
    (3, ["2D"], 17), (4, [], 13), (5, ["2D", "2H"], 10), (6, ["2D", "2H", "3D", "3H"], 8),
    (7, ["2D", "2H", "3D"], 7), (8, ["2D", "2H", "3D", "3H"], 6),
])
def test_S11_left_out_cards_and_hand_sizes(n: int, out: list[str], size: int) -> None:
    state = engine.new_match(GAME, n, {}, "abc")
    assert [len(h) for h in state["hands"]] == [size] * n
    assert sorted(c for h in state["hands"] for c in h) == sorted(set(STANDARD_PACK) - set(out))
    assert engine.view(state, 0)["left_out"] == out
    filler(n)  # an explicit deal with exactly these cards out is accepted
    engine.new_match(GAME, n, {}, "abc", deals=[filler(n)])


# ----- more rules ------------------------------------------------------------------------------------
def test_bring_in_in_order_and_pass_only_when_nothing_reachable() -> None:
    """6 players, pool 2D 2H 3D 3H: with diamonds down to 4, 3D must come in before 2D."""
    layout = {"C": [1, 13], "D": [4, 7], "H": [5, 13], "S": [3, 11]}
    hands = [["AD", "KS"], ["8D", "9D"], ["TD", "JD"], ["QD", "KD"], ["AS", "2S"], ["QS", "AH", "4H"]]
    state = layout_state(6, hands, layout, ["2D", "2H", "3D", "3H"], 0)
    moves = engine.legal_moves(state)
    assert moves == [mv(0, "3D", "bring_in")]  # AD is reachable through 3D and 2D: no pass
    expect_illegal(state, mv(0, "2D", "bring_in"), "not_playable_yet")
    expect_illegal(state, mv(0, None, "pass"), "must_play")
    expect_illegal(state, mv(1, "3D", "bring_in"), "not_your_turn")
    state = run(state, [mv(0, "3D", "bring_in"), mv(0, "2D", "bring_in"), mv(0, "AD")])
    assert state["layout"]["D"] == [1, 7] and state["pool"] == ["2H", "3H"]
    assert engine.to_act(state) == [1]


def test_pass_when_no_card_is_reachable() -> None:
    hands = [["AC", "3S", "AS", "JD", "QD", "KD", "4H", "TH", "KH"], ["2C", "JH", "2S"],
             ["3C", "4S", "TD", "AH", "2H", "3H", "9H", "QH", "AD"]]
    layout = {"C": [4, 13], "D": [2, 9], "H": [5, 8], "S": [5, 13]}  # 2D already brought in
    state = layout_state(3, hands, layout, [], 1)
    passes = state["passes"]
    assert engine.legal_moves(state) == [mv(1, None, "pass")]
    state, events = engine.apply(state, mv(1, None, "pass"))
    assert state["passes"] == [passes[0], passes[1] + 1, passes[2]] and engine.to_act(state) == [2] and events == [{"type": "pass", "seat": 1}]


@pytest.mark.parametrize(("move", "reason"), [
    (mv(1, "2D", "bring_in"), "wrong_phase"), (mv(1, None, "pass"), "wrong_phase"),
    ({"seat": 1, "action": "claim"}, "unknown_action"), (mv(2, "AS"), "not_your_turn"),
    ({"seat": 1, "action": "pass", "card": "2C"}, "wrong_phase"),  # the phase is refused before the parameters
    ({"seat": 9, "action": "claim"}, "unknown_action"), ({"seat": 2, "action": "play", "card": "XX"}, "not_your_turn"),
    ({"seat": 1, "action": "play", "card": "XX"}, "invalid_parameters"),
])
def test_reason_codes_in_trick_hands(move: dict[str, Any], reason: str) -> None:
    state = engine.new_match(GAME, 4, {}, "abc")
    expect_illegal(state, move, reason)


def test_card_not_in_hand_and_must_follow() -> None:
    state = engine.new_match(GAME, 4, {}, "abc")
    not_mine = state["hands"][2][0]
    expect_illegal(state, mv(1, not_mine), "card_not_in_hand")
    lead = state["hands"][1][0]
    state = run(state, [mv(1, lead)])
    hand = state["hands"][2]
    if any(c[1] == lead[1] for c in hand) and any(c[1] != lead[1] for c in hand):
        expect_illegal(state, mv(2, next(c for c in hand if c[1] != lead[1])), "must_follow_suit")


def test_match_over() -> None:
    state, _ = engine.apply(s9_state(), mv(2, "KS"))
    expect_illegal(state, mv(1, "KC"), "match_over")


def test_all_clubs_counts_only_clubs_in_play() -> None:
    """With AC left out (3 players) the twelve clubs in play are all of them."""
    counts = {"tricks": [9, 8, 0], "clubs": [12, 0, 0], "queens": [0, 0, 0]}
    assert dj.trick_points("clubs", counts, [], 12, 3) == [0, 100, 100]
    counts["clubs"] = [11, 1, 0]
    assert dj.trick_points("clubs", counts, [], 12, 3) == [110, 10, 0]
    opts = engine.get_game(GAME).read_options({"left_out": ["AC"]}, 3)
    assert dj.clubs_in_play(3, opts) == 12


def test_king_of_spades_without_early_stop_plays_every_trick() -> None:
    deal, moves = script(3, block_plan([1, 1, 1, 1] + [2] * 9, aces_high=True))
    state = reach(4, 6, deal, first_dealer=1)
    state = run(state, moves[:16])
    assert state["hand"] == 7 and state["points"][5] == [0, 100, 0, 0]
    state = reach(4, 6, deal, first_dealer=1, stop_when_decided=False)
    state = run(state, moves[:16])
    assert state["hand"] == 6 and len(state["tricks"]) == 4
    state = run(state, moves[16:])
    assert state["hand"] == 7 and state["points"][5] == [0, 100, 0, 0]


@pytest.mark.parametrize(("pot_split", "order", "totals", "ranking"), [
    ("thirds", [0, 2, 1], [180, 160, 260], [0, 1, 2]),  # payoffs 120 -60 -60: fewer points first
    ([1, 1, 1], [0, 2, 1], [250, 250, 250], [0, 2, 1]),  # all 0 and equal points: better place first
])
def test_ranking_ties(pot_split: Any, order: list[int], totals: list[int], ranking: list[int]) -> None:
    state = s9_state(tuple(totals), pot_split=pot_split)
    state, _ = engine.apply(state, mv(2, "KS"))
    res = engine.result(state)
    assert res["scores"] == totals and sum(res["payoffs"]) == 0
    assert res["ranking"] == ranking


@pytest.mark.parametrize(("n", "pot_split", "weights"), [
    (3, "auto", [3, 2, 1]), (3, "halving", [2, 1, 1]), (3, "thirds", [3, 2, 1]), (4, "auto", [4, 2, 1, 1]),
    (8, "auto", [12, 6, 1, 1, 1, 1, 1, 1]), (4, [5, 0, 3, 0], [5, 0, 3, 0]),
])
def test_pot_split_weights(n: int, pot_split: Any, weights: list[int]) -> None:
    assert dj.weights(n, pot_split) == weights


def test_custom_split_sequential_round_up() -> None:
    assert dj.shares_by_seat(700, [0, 1, 2, 3], [4, 2, 1, 1]) == [350, 175, 88, 87]
    assert dj.shares_by_seat(100, [3, 2, 1, 0], [0, 0, 1, 0]) == [0, 100, 0, 0]
    assert dj.shares_by_seat(70, [1, 0, 2], [1, 1, 1]) == [23, 24, 23]


# ----- options, deals, seeds, views -------------------------------------------------------------------
@pytest.mark.parametrize(("n", "options"), [
    (4, {"rounds": 0}), (4, {"rounds": 101}), (4, {"rounds": "2"}), (4, {"rounds": True}),
    (4, {"pot_split": "thirds"}), (4, {"pot_split": "quarters"}), (4, {"pot_split": [1, 1, 1]}),
    (4, {"pot_split": [1, -1, 1, 1]}), (4, {"pot_split": [0, 0, 0, 0]}), (4, {"pot_split": [1, 1, True, 1]}),
    (4, {"pot_split": None}), (4, {"pot_split": 3}),
    (4, {"stop_when_decided": "yes"}), (4, {"stop_when_decided": None}),
    (4, {"left_out": ["2D"]}), (3, {"left_out": []}), (3, {"left_out": ["QC"]}), (3, {"left_out": ["KS"]}),
    (5, {"left_out": ["2C", "2C"]}), (3, {"left_out": ["XX"]}), (3, {"left_out": ["JK"]}), (3, {"left_out": "2D"}),
    (4, {"first_dealer": 4}), (4, {"first_dealer": -1}), (4, {"trumps": "H"}), (4, []),
])
def test_bad_options(n: int, options: Any) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(GAME, n, options, "abc")


@pytest.mark.parametrize(("n", "options"), [
    (3, {"pot_split": "thirds"}), (3, {"pot_split": "halving"}), (4, {"pot_split": [1, 0, 0, 0]}),
    (4, {"left_out": []}), (3, {"left_out": ["AC"]}), (6, {"left_out": ["2C", "2S", "3C", "3S"]}),
    (4, {"rounds": 100, "stop_when_decided": False, "first_dealer": 3}),
])
def test_good_options(n: int, options: dict[str, Any]) -> None:
    state = engine.new_match(GAME, n, options, "abc")
    assert all(state["options"][k] == v for k, v in options.items())
    assert state["options"]["left_out"] == options.get("left_out")
    engine.check_state(GAME, state)


@pytest.mark.parametrize("n", [2, 9])
def test_player_counts(n: int) -> None:
    with pytest.raises(engine.InvalidRequest):
        engine.new_match(GAME, n, {}, "abc")


def _bad_deals() -> list[tuple[int, dict[str, Any], Any]]:
    good3 = filler(3)
    short = {"hands": [h[:] for h in good3["hands"]], "rest": ["2D"]}
    short["hands"][0] = short["hands"][0][1:] + []
    short["rest"] = ["2D", good3["hands"][0][0]]
    dup = {"hands": [h[:] for h in filler(4)["hands"]], "rest": []}
    dup["hands"][0][0] = dup["hands"][1][0]
    five = filler(5)
    return [
        (3, {"hands": good3["hands"], "rest": []}, {}),                   # 2D missing
        (3, {"hands": good3["hands"], "rest": ["2H"]}, {}),               # wrong card out
        (3, short, {}),                                                    # 16 cards for seat 0
        (4, dup, {}),                                                      # a duplicated card
        (5, {"hands": five["hands"], "rest": ["2H", "2D"]}, {}),          # out of order
        (3, good3, {"left_out": ["AC"]}),                                  # the option's card is not out
        (4, {"hands": filler(4)["hands"][:3], "rest": []}, {}),           # three hands for four players
        (4, {"hands": filler(4)["hands"], "rest": [], "dealer": 0}, {}),  # unknown key
        (4, [], {}),
    ]


@pytest.mark.parametrize(("n", "deal", "options"), _bad_deals())
def test_bad_deals(n: int, deal: Any, options: dict[str, Any]) -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, n, options, "abc", deals=[deal])


def test_explicit_deal_with_left_out_option() -> None:
    opts = {"left_out": ["AC"]}
    deal = filler(3, opts)
    assert deal["rest"] == ["AC"]
    state = engine.new_match(GAME, 3, opts, "abc", deals=[deal])
    assert state["hands"] == deal["hands"]


@pytest.mark.parametrize("n", [3, 4, 8])
def test_seeded_deal_is_reproducible_and_dealt_from_dealers_left(n: int) -> None:
    a = engine.new_match(GAME, n, {"first_dealer": 1}, "c0ffee")
    b = engine.new_match(GAME, n, {"first_dealer": 1}, "c0ffee")
    assert a == b
    assert engine.new_match(GAME, n, {"first_dealer": 1}, "c0ffef")["hands"] != a["hands"]
    cards = shuffled(dj.in_use(tuple(dj.REMOVAL[:52 % n])), "c0ffee", f"{GAME}/0")
    assert a["hands"][2 % n][0] == cards[0] and a["hands"][3 % n][0] == cards[1]
    assert a["hands"][(2 + 1) % n][:2] == cards[1::n][:2]


def test_later_hands_come_from_the_seed_after_the_explicit_deals() -> None:
    second = []
    for first in (filler(4), deal_with(4, {0: ["AS", "KS"]})):
        state = engine.new_match(GAME, 4, {}, "5eed", deals=[first])
        assert state["hands"] == first["hands"] and state["dealings"] == 1
        while state["hand"] < 2:
            state, _ = engine.apply(state, engine.legal_moves(state)[0])
        second.append(state["hands"])
    seeded = engine.new_match(GAME, 4, {}, "5eed")
    assert second[0] == second[1] != seeded["hands"]


@pytest.mark.parametrize("phase", ["trick", "qabbalah"])
def test_views_hide_other_hands_but_show_left_out_and_layout(phase: str) -> None:
    state = engine.new_match(GAME, 3, {}, "abc") if phase == "trick" else s8_state(1)
    for seat in [None, 0, 1, 2]:
        view = engine.view(state, seat)
        others = {c for s, h in enumerate(state["hands"]) if s != seat for c in h}
        assert not leaks(view, others)
        assert "seed" not in view and "deals" not in view
        assert view["left_out"] == ["2D"] and view["hand_sizes"] == [len(h) for h in state["hands"]]
        if seat is not None:
            assert view["hands"][seat] == state["hands"][seat]
        if phase == "qabbalah":
            assert view["layout"] == state["layout"] and view["pool"] == ["2D"] and view["passes"] == state["passes"]
    state = run(state, [engine.legal_moves(state)[0]])
    _, events = engine.apply(state, engine.legal_moves(state)[0])
    hidden = {c for h in state["hands"] for c in h}
    played = {m.get("card") for m in engine.legal_moves(state)}
    assert not leaks(events, hidden - played)


# ----- forged states --------------------------------------------------------------------------------
def _mid_trick() -> dict[str, Any]:
    state = engine.new_match(GAME, 4, {}, "abc")
    for _ in range(9):
        state = run(state, [engine.legal_moves(state)[0]])
    assert len(state["tricks"]) == 2 and len(state["trick"]["plays"]) == 1
    return state


def _revoke(s: dict[str, Any]) -> None:
    """A follower who followed suit in trick 1 is made to have discarded instead, keeping the suit led."""
    plays = s["tricks"][0]["plays"]
    led = plays[0][1][1]
    i, seat, card, other = next((i, p[0], p[1], c) for i, p in enumerate(plays[1:], 1) if p[1][1] == led
                                for c in s["hands"][p[0]] if c[1] != led)
    s["hands"][seat][s["hands"][seat].index(other)] = card
    plays[i][1] = other


def _corruptions_trick() -> list[tuple[str, Callable[[dict[str, Any]], None]]]:
    return [
        ("duplicate card", lambda s: s["hands"][0].__setitem__(0, s["hands"][1][0])),
        ("hand sizes", lambda s: s["hands"][0].append(s["hands"][1].pop())),
        ("wrong winner", lambda s: s["tricks"][0].__setitem__("winner", (s["tricks"][0]["winner"] + 1) % 4)),
        ("counts", lambda s: s["counts"]["tricks"].__setitem__(0, 5)),
        ("dealer", lambda s: s.__setitem__("dealer", 3)),
        ("dealings", lambda s: s.__setitem__("dealings", 2)),
        ("hand number", lambda s: s.__setitem__("hand", 7)),
        ("phase", lambda s: s.__setitem__("phase", "bidding")),
        ("over too soon", lambda s: s.__setitem__("phase", "over")),
        ("unknown key", lambda s: s.__setitem__("pot", 0)),
        ("missing key", lambda s: s.pop("counts")),
        ("qabbalah key in trick hand", lambda s: s.__setitem__("pool", [])),
        ("points of a hand not yet played", lambda s: s["points"].append([0, 0, 0, 0])),
        ("scores before any round is settled", lambda s: s["scores"].__setitem__(0, 100)),
        ("payoffs before any round is settled", lambda s: s.__setitem__("payoffs", [10, -10, 0, 0])),
        ("old per-round history", lambda s: s.__setitem__("settlements", [])),
        ("scores of the wrong length", lambda s: s["scores"].pop()),
        ("played out of turn", lambda s: s["trick"]["plays"][0].__setitem__(0, (s["trick"]["plays"][0][0] + 1) % 4)),
        ("joker", lambda s: s["hands"][0].__setitem__(0, "JK")),
        ("not a card list", lambda s: s["hands"].__setitem__(0, "AS")),
        ("trick plays malformed", lambda s: s["trick"].__setitem__("plays", [[0]])),
        ("round beyond the match", lambda s: s.__setitem__("round", 2)),
        ("options", lambda s: s["options"].__setitem__("rounds", 0)),
        ("revoke", _revoke),
        ("dealer as text", lambda s: s.__setitem__("dealer", "0")),
        ("winner as text", lambda s: s["tricks"][0].__setitem__("winner", str(s["tricks"][0]["winner"]))),
        ("a logged card changed", lambda s: s["log"].__setitem__(0, s["log"][1])),
        ("a logged move dropped", lambda s: s["log"].pop()),
        ("a move logged twice", lambda s: s["log"].append(s["log"][-1])),
        ("a logged move malformed", lambda s: s["log"].__setitem__(0, [0, "play"])),
        ("a logged move of another action", lambda s: s["log"].__setitem__(0, [1, "pass"])),
        ("record missing", lambda s: s.pop("before")),
        ("record without a carried key", lambda s: s["before"].pop("points")),
        ("record's deal number", lambda s: s["before"].__setitem__("deal_no", 1)),
        ("record's dealings", lambda s: s["before"].__setitem__("dealings", 2**62)),
    ]


def _carried_both(key: str, value: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    """A forged carried value, set alike in the state and in its record of the values before the deal."""
    def corrupt(s: dict[str, Any]) -> None:
        s[key] = value(s[key])
        s["before"][key] = engine.clone(s[key])
    return corrupt


@pytest.mark.parametrize(("label", "corrupt"), [
    ("a deal number beyond the match", _carried_both("deal_no", lambda v: 7)),
    ("a negative deal number", _carried_both("deal_no", lambda v: -1)),
    ("a huge deal number", _carried_both("deal_no", lambda v: 2**62)),
    ("points of a hand not yet played", _carried_both("points", lambda v: [*v, [0, 0, 0, 0]])),
    ("negative points", _carried_both("points", lambda v: [[-10, 10, 0, 0]])),
    ("points past the safe integers", _carried_both("points", lambda v: [[2**53, 0, 0, 0]])),
    ("points as booleans", _carried_both("points", lambda v: [[True, False, False, False]])),
    ("scores before any round is settled", _carried_both("scores", lambda v: [100, 0, 0, 0])),
    ("payoffs before any round is settled", _carried_both("payoffs", lambda v: [10, -10, 0, 0])),
    ("payoffs as booleans", _carried_both("payoffs", lambda v: [False] * 4)),
    ("scores of the wrong length", _carried_both("scores", lambda v: v[:3])),
])
def test_forged_carried_values(label: str, corrupt: Callable[[dict[str, Any]], None]) -> None:
    """Values carried from hand to hand are not replayed: the check of the carried values refuses them."""
    state = engine.new_match(GAME, 4, {}, "abc")
    while state["hand"] < 2 or len(state["log"]) < 3:
        state = run(state, [engine.legal_moves(state)[0]])
    engine.check_state(GAME, state)
    bad = engine.clone(state)
    corrupt(bad)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, bad)


def _booleans(value: Any) -> Any:
    """Every 0 and 1 in ``value`` as false and true (which Python counts equal to them)."""
    if isinstance(value, list):
        return [_booleans(v) for v in value]
    if isinstance(value, dict):
        return {k: _booleans(v) for k, v in value.items()}
    return bool(value) if type(value) is int and value in (0, 1) else value


def test_booleans_for_numbers_are_never_adjudicated() -> None:
    """Python counts true equal to 1, so a state whose small numbers are booleans compares equal to its
    rebuild; the state adjudicated is the rebuild, so the client's booleans are never used."""
    state = _mid_trick()
    bad = engine.clone(state)
    for key in ("payoffs", "scores", "counts", "tricks", "dealer"):
        bad[key] = _booleans(bad[key])
    checked = engine.check_state(GAME, bad)
    assert json.dumps(checked, sort_keys=True) == json.dumps(state, sort_keys=True) != json.dumps(bad, sort_keys=True)


@pytest.mark.parametrize(("label", "corrupt"), _corruptions_trick())
def test_forged_trick_states(label: str, corrupt: Callable[[dict[str, Any]], None]) -> None:
    state = _mid_trick()
    engine.check_state(GAME, state)
    bad = engine.clone(state)
    try:
        corrupt(bad)
    except (StopIteration, ValueError):
        pytest.skip("this random position does not allow the corruption")
    with pytest.raises(InvalidState):
        engine.check_state(GAME, bad)


def test_forged_hand_that_should_have_stopped() -> None:
    deal, moves = script(3, block_plan([1, 1, 1, 1] + [2] * 9, aces_high=True))
    state = reach(4, 6, deal, first_dealer=1, stop_when_decided=False)
    state = run(state, moves[:16])
    engine.check_state(GAME, state)
    state["options"]["stop_when_decided"] = True  # KS has fallen: the hand would be over
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def _corruptions_layout() -> list[tuple[str, Callable[[dict[str, Any]], None]]]:
    return [
        ("row without its 7", lambda s: s["layout"].__setitem__("H", [8, 8])),
        ("row reversed", lambda s: s["layout"].__setitem__("H", [8, 5])),
        ("row of text", lambda s: s["layout"].__setitem__("H", "5-8")),
        ("suit missing", lambda s: s["layout"].pop("H")),
        ("pool card on layout", lambda s: s.__setitem__("pool", ["2D", "2D"])),
        ("pool lost", lambda s: s.__setitem__("pool", [])),
        ("negative passes", lambda s: s["passes"].__setitem__(0, -1)),
        ("turn to nobody", lambda s: s.__setitem__("turn", 5)),
        ("out seat with cards", lambda s: s.__setitem__("order", [0])),
        ("impossible Few points", lambda s: s["points"].__setitem__(0, [10, 10, 10])),
        ("impossible Clubs points", lambda s: s["points"].__setitem__(2, [0, 100, 90])),
        ("impossible KS points", lambda s: s["points"].__setitem__(5, [50, 50, 0])),
        ("a hand's points missing", lambda s: s["points"].pop()),
        ("a qabbalah row before qabbalah ends", lambda s: s["points"].append([0, 0, 0])),
        ("trick keys in qabbalah", lambda s: s.__setitem__("tricks", [])),
        ("cards vanish", lambda s: s["hands"][0].pop()),
        ("card moved onto the layout", lambda s: (s["hands"][1].remove("JH"), s["hands"][2].remove("9H"),
                                                   s["layout"].__setitem__("H", [5, 11]))),
    ]


@pytest.mark.parametrize(("label", "corrupt"), _corruptions_layout())
def test_forged_qabbalah_states(label: str, corrupt: Callable[[dict[str, Any]], None]) -> None:
    state = s8_state(1)
    bad = engine.clone(state)
    corrupt(bad)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, bad)


def test_forged_qabbalah_that_should_have_ended() -> None:
    state = s9_state()
    state["hands"][2] = []
    state["layout"]["S"] = [1, 13]
    state.update(order=[0, 2], turn=1)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def test_forged_settlement() -> None:
    """Once over, the totals hold the last round, whose settlement is recomputed from its points and order."""
    state, _ = engine.apply(s9_state(), mv(2, "KS"))
    engine.check_state(GAME, state)
    for corrupt in (lambda s: s["scores"].__setitem__(0, 210),
                    lambda s: s["payoffs"].reverse(),
                    lambda s: s.__setitem__("payoffs", [0, 0, 0]),
                    lambda s: s.__setitem__("order", [0, 1, 2]),
                    lambda s: s["points"][6].__setitem__(0, 40),
                    lambda s: s.__setitem__("turn", 1),
                    lambda s: s.__setitem__("passes", [5, 9, 1])):
        bad = engine.clone(state)
        corrupt(bad)
        with pytest.raises(InvalidState):
            engine.check_state(GAME, bad)


# ----- whole matches ------------------------------------------------------------------------------------
OPTION_SETS = {
    3: [{"left_out": ["AC"], "pot_split": [2, 1, 0]}, {"pot_split": "halving", "rounds": 2}],
    4: [{"left_out": [], "pot_split": [1, 1, 1, 1], "stop_when_decided": False}],
    5: [{"left_out": ["2C", "2S"], "pot_split": [5, 4, 3, 2, 1]}],
    6: [{"left_out": ["2C", "2S", "3C", "3S"], "first_dealer": 5}],
    7: [{"left_out": ["AD", "AH", "AS"], "stop_when_decided": False}],
    8: [{"left_out": ["KC", "KD", "KH", "AC"], "pot_split": [1, 0, 0, 0, 0, 0, 0, 1]}],
}


@pytest.mark.parametrize(("n", "options"), [(n, o) for n, sets in OPTION_SETS.items() for o in sets])
def test_playouts_with_count_specific_options(n: int, options: dict[str, Any]) -> None:
    for k in range(2):
        state, _ = play_to_end(GAME, n, options, f"{n}{k}ab", random.Random(k), check_every=7)
        res = engine.result(state)
        rnd = res["last_round"]  # the pot is exactly what was paid in, and exactly what is paid out
        assert rnd["round"] == options.get("rounds", 1)
        assert rnd["pot"] == sum(rnd["totals"]) == sum(rnd["shares"])
        assert rnd["payoffs"] == [sh - t for sh, t in zip(rnd["shares"], rnd["totals"])]
        assert sorted(rnd["order"]) == list(range(n)) and list(rnd["hands"]) == list(dj.HANDS)
        assert sum(res["payoffs"]) == 0


def test_round_records_are_events_and_the_totals_add_them_up() -> None:
    """Every round's record comes in its ``round_settled`` event; the state keeps only the running totals and
    the current round's table, so it does not grow from round to round."""
    state = engine.new_match(GAME, 5, {"rounds": 3}, "feed")
    rng = random.Random(5)
    settled: list[dict[str, Any]] = []
    hand_rows: list[list[int]] = []
    sizes: dict[int, int] = {}
    while not engine.is_finished(state):
        state, events = engine.apply(state, rng.choice(engine.legal_moves(state)))
        for e in events:
            if e["type"] == "deal_settled":
                hand_rows.append(e["changes"])
            if e["type"] == "round_settled":
                rnd = record(e)
                assert list(rnd["hands"].values()) == hand_rows[-7:]
                assert rnd["totals"] == [sum(r[s] for r in hand_rows[-7:]) for s in range(5)]
                assert rnd["pot"] == sum(rnd["totals"]) == sum(rnd["shares"])
                settled.append(rnd)
            if e["type"] == "deal_started" and e["hand"] == 1:
                engine.check_state(GAME, state)
                assert state["points"] == [] and len(state) == len(engine.new_match(GAME, 5, {"rounds": 3}, "feed"))
                sizes[e["round"]] = len(repr({k: v for k, v in state.items() if k != "hands"}))
                assert state["scores"] == [sum(r["totals"][s] for r in settled) for s in range(5)]
                assert state["payoffs"] == [sum(r["payoffs"][s] for r in settled) for s in range(5)]
    assert [r["round"] for r in settled] == [1, 2, 3] and len(hand_rows) == 21
    assert max(sizes.values()) - min(sizes.values()) < 40  # only the digits of the totals grow
    res = engine.result(state)
    assert res["last_round"] == settled[-1]
    assert res["scores"] == [sum(r["totals"][s] for r in settled) for s in range(5)]
    assert res["payoffs"] == [sum(r["payoffs"][s] for r in settled) for s in range(5)]
    assert sum(res["payoffs"]) == 0
    assert set(res) == {"scores", "payoffs", "ranking", "last_round"}


def _round_two(n: int = 4) -> dict[str, Any]:
    state = engine.new_match(GAME, n, {"rounds": 2}, "beef")
    rng = random.Random(2)
    while state["round"] == 1 or state["hand"] < 2:
        state, _ = engine.apply(state, rng.choice(engine.legal_moves(state)))
    engine.check_state(GAME, state)
    assert any(state["scores"])
    return state


@pytest.mark.parametrize(("label", "corrupt"), [
    ("payoffs not adding up to 0", lambda s: s["payoffs"].__setitem__(0, s["payoffs"][0] + 1)),
    ("negative scores", lambda s: s["scores"].__setitem__(0, -10)),
    ("pot not a multiple of 10", lambda s: s["scores"].__setitem__(0, s["scores"][0] + 5)),
    ("pot too small for a round", lambda s: s.__setitem__("scores", [0, 0, 0, 0])),
    ("payoff below minus the points", lambda s: s.__setitem__(
        "payoffs", [-s["scores"][0] - 10, s["scores"][0] + 10, 0, 0])),
    ("scores as text", lambda s: s["scores"].__setitem__(1, "10")),
    ("points of the previous round kept", lambda s: s["points"].insert(0, [0] * 4)),
])
def test_forged_running_totals(label: str, corrupt: Callable[[dict[str, Any]], None]) -> None:
    bad = _round_two()
    corrupt(bad)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, bad)


def test_refused_moves_leave_state_unchanged() -> None:
    state = s8_state(1)
    before = engine.clone(state)
    with pytest.raises(IllegalMove):
        engine.apply(state, mv(1, "AD"))
    assert state == before
