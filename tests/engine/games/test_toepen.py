"""Toepen: every scenario of the spec behind docs/games/toepen.md, section 9, plus precedence of the reasons, poverty,
last_survivor, options, explicit deals, seeded deals, forged states and views."""
from __future__ import annotations

import random
from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidState
from service.engine.cards import PIQUET_PACK
from service.engine.rng import shuffled

from ..playout import expect_illegal, later_deal, leaks, outside_code_then_not_held

GAME = "toepen"
State = dict[str, Any]


# ----- helpers ------------------------------------------------------------------------------
def deal(hands: dict[int, list[str]], n: int, rest: list[str] | None = None,
         out: tuple[int, ...] = ()) -> dict[str, Any]:
    """An explicit deal: the given hands, other seats (not in ``out``) filled from the unused cards in
    pack order; the stock is ``rest`` followed by the other unused cards."""
    held = {c for h in hands.values() for c in h}
    rest = [c for c in rest or [] if c not in held]
    used = held | set(rest)
    spare = [c for c in PIQUET_PACK if c not in used]
    full = []
    for s in range(n):
        if s in out:
            full.append([])
        elif s in hands:
            full.append(list(hands[s]))
        else:
            full.append(spare[:4])
            spare = spare[4:]
    return {"hands": full, "rest": rest + spare}


def start(hands: dict[int, list[str]], n: int = 4, dealer: int | None = None, rest: list[str] | None = None,
          totals: list[int] | None = None, **options: Any) -> State:
    """A new match from an explicit deal (dealer n-1 unless given, so eldest is seat 0); with ``totals``, the
    scores an earlier deal left, it is the match's second deal, else its first."""
    options["first_dealer"] = n - 1 if dealer is None else dealer
    if totals is None:
        return engine.new_match(GAME, n, options, "5eed", deals=[deal(hands, n, rest)])
    return after_totals(n, options, [deal(hands, n, rest)], totals)


def after_totals(n: int, options: dict[str, Any], deals: list[dict[str, Any]], totals: list[int]) -> State:
    """The match's second deal, dealt ``deals[0]`` by ``first_dealer`` again, the first having left ``totals``
    (nobody eliminated yet)."""
    carried = {"dealer": options["first_dealer"], "scores": list(totals), "eliminated": [None] * n}
    return later_deal(GAME, n, options, deals, carried)


def mv(seat: int, action: str, **params: Any) -> dict[str, Any]:
    return {"seat": seat, "action": action, **params}


def go(state: State, *moves: Any) -> State:
    """Apply moves ((seat, card) pairs are plays), validating the state after each."""
    for m in moves:
        if isinstance(m, tuple):
            m = mv(m[0], "play", card=m[1])
        state, _ = engine.apply(state, m)
        engine.check_state(GAME, state)
    return state


def events_of(state: State, *moves: Any) -> tuple[State, list[dict[str, Any]]]:
    out: list[dict[str, Any]] = []
    for m in moves:
        state, ev = engine.apply(state, m)
        engine.check_state(GAME, state)
        out += ev
    return state, out


def to_play(state: State, signals: dict[int, str] | None = None) -> State:
    """Everyone keeps, then warns (``none`` unless given)."""
    while state["phase"] == "exchange":
        state = go(state, mv(state["exchanger"], "keep"))
    while state["phase"] == "warnings":
        seat = engine.to_act(state)[0]
        state = go(state, mv(seat, "warn", signal=(signals or {}).get(seat, "none")))
    return state


def reason(state: State, move: dict[str, Any]) -> str:
    with pytest.raises(IllegalMove) as exc:
        engine.apply(state, move)
    assert exc.value.message
    return exc.value.reason


def cards(state: State, seat: int) -> set[str]:
    return {m["card"] for m in engine.legal_moves(state, seat) if m["action"] == "play"}


def knocks(state: State) -> list[int]:
    return [m["seat"] for m in engine.legal_moves(state) if m["action"] == "knock"]


def stake(state: State) -> int:
    return int(engine.view(state, None)["stake"])


# ----- T1 rank and trick winner -------------------------------------------------------------
@pytest.mark.parametrize(("case", "hands", "trick", "winner"), [
    ("a", {0: ["7H", "7C", "8C", "9C"], 1: ["AH", "TC", "7S", "8S"], 2: ["TH", "8D", "TS", "JS"],
           3: ["9S", "AC", "KC", "QC"]}, [(0, "7H"), (1, "AH"), (2, "TH"), (3, "9S")], 2),
    ("b", {0: ["QD", "7C", "8C", "9C"], 1: ["JD", "TC", "7S", "8S"], 2: ["KD", "9S", "TS", "JS"],
           3: ["AC", "AH", "KH", "QH"]}, [(0, "QD"), (1, "JD"), (2, "KD"), (3, "AC")], 2),
])
def test_T1_rank_and_trick_winner(case: str, hands: dict[int, list[str]], trick: list[tuple[int, str]],
                                  winner: int) -> None:
    state = go(to_play(start(hands)), *trick)
    assert state["tricks"][0] == {"plays": [list(p) for p in trick], "winner": winner}


def test_T1c_seven_beats_ace_with_two_players_left() -> None:
    state = to_play(start({0: ["AH", "7C", "8C", "9C"], 1: ["7H", "TC", "7S", "8S"], 2: ["TH", "8D", "TS", "JS"],
                           3: ["9S", "AC", "KC", "QC"]}))
    state = go(state, mv(0, "knock"), mv(1, "stay"), mv(2, "fold"), mv(3, "fold"), (0, "AH"), (1, "7H"))
    assert state["tricks"][0]["winner"] == 1


# ----- T2 follow suit ------------------------------------------------------------------------
@pytest.mark.parametrize(("lead", "legal"), [("7S", {"JS", "KS"}), ("9D", {"8H", "JS", "KS", "TC"})])
def test_T2_follow_suit(lead: str, legal: set[str]) -> None:
    state = to_play(start({0: ["7S", "9D", "AC", "QC"], 1: ["8H", "JS", "KS", "TC"]}))
    state = go(state, (0, lead))
    assert cards(state, 1) == legal
    for card in {"8H", "JS", "KS", "TC"} - legal:
        assert reason(state, mv(1, "play", card=card)) == "must_follow_suit"
    assert reason(state, mv(1, "play", card="AS")) == "card_not_in_hand"


# ----- T3 a deal with two knocks -------------------------------------------------------------
T3 = {0: ["TH", "9H", "8C", "7D"], 1: ["JC", "QC", "KD", "AS"], 2: ["AH", "KH", "7C", "9S"],
      3: ["QH", "JH", "TD", "8S"]}


def test_T3_a_deal_with_two_knocks() -> None:
    state = to_play(start(T3))
    assert state["phase"] == "play" and engine.to_act(state) == [0, 1, 2, 3]
    state = go(state, mv(0, "knock"))
    assert stake(state) == 2 and engine.legal_moves(state) == [mv(1, "stay"), mv(1, "fold")]
    state = go(state, mv(1, "fold"), mv(2, "stay"), mv(3, "stay"))
    assert state["folded"] == [None, 1, None, None]
    state = go(state, (0, "TH"))
    assert cards(state, 2) == {"AH", "KH"}
    state = go(state, (2, "KH"))
    assert cards(state, 3) == {"QH", "JH"}
    state = go(state, (3, "JH"))
    assert state["tricks"][0]["winner"] == 0
    state = go(state, (0, "9H"), (2, "AH"), (3, "QH"))
    assert state["tricks"][1]["winner"] == 0
    state = go(state, (0, "8C"), (2, "7C"), (3, "8S"))
    assert state["tricks"][2]["winner"] == 0
    # step 5, just before seat 2 knocks
    assert engine.to_act(state) == [0, 2, 3]
    assert engine.legal_moves(state, 0) == [mv(0, "play", card="7D")]
    assert engine.legal_moves(state, 2) == [mv(2, "knock")]
    assert engine.legal_moves(state, 3) == [mv(3, "knock")]
    assert engine.legal_moves(state, 1) == []
    state = go(state, mv(2, "knock"))
    assert stake(state) == 3 and engine.to_act(state) == [3]
    state = go(state, mv(3, "fold"), mv(0, "stay"))
    assert state["folded"] == [None, 1, None, 2]
    state, ev = events_of(state, mv(0, "play", card="7D"), mv(2, "play", card="9S"))
    over = next(e for e in ev if e["type"] == "deal_settled")
    assert over["winner"] == 0 and over["changes"] == [0, 1, 3, 2]
    assert state["scores"] == [0, 1, 3, 2]
    assert state["dealer"] == 0 and state["dealings"] == 2 and state["phase"] == "exchange"
    assert state["exchanger"] == 1  # eldest of the new dealer


# ----- T4 knock limits -----------------------------------------------------------------------
def test_T4_knock_limits() -> None:
    state = to_play(start({}, totals=[0, 8, 9, 0]))
    assert reason(state, mv(2, "knock")) == "knock_over_limit"
    assert 2 not in knocks(state) and 1 in knocks(state)
    state = go(state, mv(1, "knock"), mv(2, "stay"), mv(3, "stay"), mv(0, "stay"))
    assert stake(state) == 2
    state = go(state, mv(0, "knock"), mv(1, "stay"), mv(2, "stay"), mv(3, "stay"))
    assert stake(state) == 3
    assert reason(state, mv(1, "knock")) == "knock_over_limit"
    assert knocks(state) == [3]


def test_T4_target_15_lets_nine_knock() -> None:
    state = to_play(start({}, totals=[0, 8, 9, 0], target=15))
    state = go(state, mv(2, "knock"))
    assert stake(state) == 2


# ----- T5 no two knocks in succession --------------------------------------------------------
def test_T5_no_two_knocks_in_succession() -> None:
    state = to_play(start({}))
    state = go(state, mv(0, "knock"), mv(1, "stay"), mv(2, "stay"), mv(3, "stay"))
    assert reason(state, mv(0, "knock")) == "knock_twice_in_succession"
    assert 0 not in knocks(state)
    state = go(state, mv(2, "knock"), mv(3, "stay"), mv(0, "stay"), mv(1, "stay"))
    assert stake(state) == 3 and 0 in knocks(state)
    state = go(state, mv(0, "knock"))
    assert stake(state) == 4


def test_T5_limit_still_applies_to_a_later_knock() -> None:
    state = to_play(start({}, totals=[7, 0, 0, 0]))
    state = go(state, mv(0, "knock"), mv(1, "stay"), mv(2, "stay"), mv(3, "stay"))
    state = go(state, mv(2, "knock"), mv(3, "stay"), mv(0, "stay"), mv(1, "stay"))
    assert reason(state, mv(0, "knock")) == "knock_over_limit"  # 7 + 4 > 10


def test_T5_knock_again_boundary() -> None:
    state = to_play(start({}, totals=[6, 0, 0, 0]))
    state = go(state, mv(0, "knock"), mv(1, "stay"), mv(2, "stay"), mv(3, "stay"))
    state = go(state, mv(2, "knock"), mv(3, "stay"), mv(0, "stay"), mv(1, "stay"))
    state = go(state, mv(0, "knock"))  # 6 + 4 = 10
    assert stake(state) == 4


# ----- T6 exchange and challenge -------------------------------------------------------------
STOCK = ["7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]


@pytest.mark.parametrize(("case", "old", "penalised"), [
    ("a", ["AH", "KS", "QD", "7C"], 0),
    ("b", ["AH", "KS", "QD", "JC"], 1),
])
def test_T6_exchange_and_challenge(case: str, old: list[str], penalised: int) -> None:
    rest = [c for c in STOCK if c not in old]
    state = start({0: old}, rest=rest)
    assert state["phase"] == "exchange" and state["exchanger"] == 0 and len(state["rest"]) == 16
    assert engine.legal_moves(state) == [mv(0, "exchange"), mv(0, "keep")]
    state = go(state, mv(0, "exchange"))
    assert state["hands"][0] == rest[:4] and len(state["rest"]) == 12
    assert engine.legal_moves(state) == [mv(1, "challenge"), mv(1, "no_challenge")]
    assert engine.view(state, 2)["exchanges"] == [{"seat": 0, "challenger": None, "cards": None}]
    state, ev = events_of(state, mv(1, "challenge"))
    assert ev[0]["cards"] == old and ev[0]["penalised"] == penalised
    totals = [0, 0, 0, 0]
    totals[penalised] = 1
    assert state["scores"] == totals
    assert engine.view(state, 2)["exchanges"][0]["cards"] == old
    assert state["poll"] is None and engine.legal_moves(state) == [mv(0, "exchange"), mv(0, "keep")]
    state = go(state, mv(0, "keep"))
    assert state["exchanger"] == 1


def test_T6_unchallenged_poll_goes_round_and_stays_hidden() -> None:
    state = start({0: ["AH", "KS", "QD", "7C"]}, rest=STOCK)
    state = go(state, mv(0, "exchange"), mv(1, "no_challenge"), mv(2, "no_challenge"))
    assert engine.to_act(state) == [3]
    state = go(state, mv(3, "no_challenge"))
    assert state["scores"] == [0, 0, 0, 0] and engine.to_act(state) == [0]
    for seat in (None, 1, 2, 3):
        assert engine.view(state, seat)["exchanges"][0]["cards"] is None
        assert not leaks(engine.view(state, seat), {"AH", "KS", "QD", "7C"})
    assert engine.view(state, 0)["exchanges"][0]["cards"] == ["AH", "KS", "QD", "7C"]
    state = go(state, mv(0, "exchange"))  # again, while the stock lasts
    assert len(state["rest"]) == 8


def test_T6c_seven_players_one_exchange_then_skipped() -> None:
    state = start({}, n=7)
    assert len(state["rest"]) == 4 and state["exchanger"] == 0
    state = go(state, mv(0, "exchange"), *[mv(s, "no_challenge") for s in range(1, 7)])
    assert state["rest"] == [] and state["phase"] == "warnings" and state["exchanger"] is None


def test_T6c_eight_players_no_exchange_phase() -> None:
    state = start({}, n=8)
    assert state["phase"] == "warnings" and state["rest"] == [] and engine.to_act(state) == [0]


def test_T6_max_exchanges_skips_the_turn() -> None:
    state = start({}, max_exchanges=1)
    state = go(state, mv(0, "exchange"), mv(1, "challenge"))
    assert state["exchanger"] == 1  # seat 0 used his one exchange: his turn is over


def test_exchange_not_possible_reason() -> None:
    """Turns without a possible exchange are skipped, so the reason only guards the step's rule."""
    game = engine.get_game(GAME)
    state = start({}, n=7)
    state["rest"] = []
    with pytest.raises(IllegalMove) as exc:
        game.phases["exchange"].steps["exchange"].do(state, mv(0, "exchange"), [])
    assert exc.value.reason == "exchange_not_possible"


# ----- T7 warnings ---------------------------------------------------------------------------
@pytest.mark.parametrize(("hand", "signal", "penalty"), [
    (["TH", "TS", "TD", "TC"], "stand", 0),
    (["TH", "TS", "TD", "TC"], "none", 1),
    (["TH", "TS", "TD", "7C"], "whistle", 0),
    (["TH", "TS", "TD", "7C"], "none", 1),
    (["JH", "JS", "JD", "JC"], "stand", 0),
    (["JH", "JS", "JD", "JC"], "none", 0),
    (["JH", "JS", "JD", "9C"], "whistle", 0),
    (["TH", "TS", "9D", "9C"], "whistle", 1),
    (["JH", "JS", "JD", "JC"], "whistle", 0),
    (["JH", "JS", "JD", "9C"], "none", 0),
    (["JH", "JS", "JD", "9C"], "stand", 1),
    (["TH", "TS", "TD", "TC"], "whistle", 1),
    (["TH", "TS", "TD", "7C"], "stand", 1),
    (["7H", "8S", "9D", "QC"], "stand", 1),
])
def test_T7_warnings(hand: list[str], signal: str, penalty: int) -> None:
    state = to_play(start({0: hand}), {0: signal})
    assert state["signals"] == [signal, "none", "none", "none"]
    assert state["scores"] == [0, 0, 0, 0]  # nothing is added, nor shown, before the end of the deal
    state, ev = events_of(state, mv(0, "knock"), mv(1, "fold"), mv(2, "fold"), mv(3, "fold"))
    assert state["scores"] == [penalty, 1, 1, 1]
    over = next(e for e in ev if e["type"] == "deal_settled")
    shown = [w for w in over["wrong_warnings"] if w["seat"] == 0]
    assert shown == ([{"seat": 0, "signal": signal, "hand": hand}] if penalty else [])


def test_T7_warning_is_judged_on_the_hand_after_exchanges() -> None:
    state = start({0: ["7H", "8S", "9D", "QC"]}, rest=["TH", "TS", "TD", "TC"])
    state = go(state, mv(0, "exchange"), mv(1, "no_challenge"), mv(2, "no_challenge"), mv(3, "no_challenge"))
    state = to_play(state, {0: "stand"})
    state = go(state, mv(0, "knock"), mv(1, "fold"), mv(2, "fold"), mv(3, "fold"))
    assert state["scores"] == [0, 1, 1, 1]


def test_warnings_off_skips_the_phase() -> None:
    state = to_play(start({0: ["TH", "TS", "TD", "TC"]}, warnings=False))
    assert state["phase"] == "play" and state["signals"] == [None] * 4
    state = go(state, mv(0, "knock"), mv(1, "fold"), mv(2, "fold"), mv(3, "fold"))
    assert state["scores"] == [0, 1, 1, 1]


# ----- T8 the trick winner folds --------------------------------------------------------------
def test_T8_trick_winner_folds() -> None:
    state = to_play(start({0: ["TC", "7H", "AS", "KS"], 1: ["7C", "8H", "AD", "KD"], 2: ["8C", "TH", "QS", "JS"],
                           3: ["9C", "9H", "QD", "JD"]}))
    state = go(state, (0, "TC"), (1, "7C"), (2, "8C"), (3, "9C"), (0, "7H"), (1, "8H"), (2, "TH"), (3, "9H"))
    assert state["tricks"][1]["winner"] == 2
    state = go(state, mv(3, "knock"))
    assert engine.to_act(state) == [0]
    state = go(state, mv(0, "stay"), mv(1, "stay"), mv(2, "fold"))
    assert state["folded"][2] == 1
    assert {m["seat"] for m in engine.legal_moves(state) if m["action"] == "play"} == {3}
    assert cards(state, 3) == {"QD", "JD"}


# ----- T9 folding during the last trick with no cards left -----------------------------------
T9 = {0: ["7C", "7D", "7H", "TS"], 1: ["TC", "9D", "9H", "8S"], 2: ["8C", "8D", "8H", "9S"]}


def _t9() -> State:
    state = to_play(start(T9, n=3))
    state = go(state, (0, "7C"), (1, "TC"), (2, "8C"), (1, "9D"), (2, "8D"), (0, "7D"),
               (1, "9H"), (2, "8H"), (0, "7H"), (1, "8S"), (2, "9S"))
    assert state["hands"] == [["TS"], [], []]
    return go(state, mv(0, "knock"))


def test_T9_fold_with_no_cards_left() -> None:
    state = go(_t9(), mv(1, "fold"), mv(2, "stay"))
    assert engine.legal_moves(state, 0) == [mv(0, "play", card="TS")]
    state, ev = events_of(state, mv(0, "play", card="TS"))
    over = next(e for e in ev if e["type"] == "deal_settled")
    assert over["winner"] == 0 and over["changes"] == [0, 1, 2]
    assert state["scores"] == [0, 1, 2] and state["dealer"] == 0


def test_T9_variant_everyone_else_folds() -> None:
    state, ev = events_of(_t9(), mv(1, "fold"), mv(2, "fold"))
    over = next(e for e in ev if e["type"] == "deal_settled")
    assert over["winner"] == 0 and over["changes"] == [0, 1, 1]
    assert not any(e["type"] == "play" for e in ev)
    assert state["scores"] == [0, 1, 1] and state["dealer"] == 0


# ----- T10 everyone folds --------------------------------------------------------------------
def test_T10_everyone_folds() -> None:
    state = to_play(start({}))
    state = go(state, mv(0, "knock"), mv(1, "fold"), mv(2, "fold"), mv(3, "fold"))
    assert state["scores"] == [0, 1, 1, 1] and state["dealer"] == 0 and state["dealings"] == 2


# ----- T11 end of match ----------------------------------------------------------------------
T11 = {0: ["7C", "7D", "7H", "7S"], 1: ["AC", "AD", "AH", "AS"], 2: ["TC", "9D", "9H", "9S"],
       3: ["8C", "8D", "8H", "8S"]}


@pytest.mark.parametrize(("signal", "totals", "losers", "payoffs", "ranking"), [
    ("none", [10, 10, 3, 7], [0, 1], [-1, -1, 0, 0], [2, 3, 0, 1]),
    ("whistle", [11, 10, 3, 7], [0], [-1, 0, 0, 0], [2, 3, 1, 0]),
])
def test_T11_end_of_match(signal: str, totals: list[int], losers: list[int], payoffs: list[int],
                          ranking: list[int]) -> None:
    state = to_play(start(T11, totals=[8, 9, 3, 5]), {0: signal})
    state = go(state, mv(3, "knock"), mv(0, "stay"), mv(1, "fold"), mv(2, "stay"))
    state = go(state, (0, "7C"), (2, "TC"), (3, "8C"), (2, "9D"), (3, "8D"), (0, "7D"),
               (2, "9H"), (3, "8H"), (0, "7H"), (2, "9S"), (3, "8S"), (0, "7S"))
    assert engine.is_finished(state)
    res = engine.result(state)
    assert res == {"scores": totals, "payoffs": payoffs, "ranking": ranking, "losers": losers}
    assert engine.legal_moves(state) == [] and engine.to_act(state) == []
    assert reason(state, mv(2, "knock")) == "match_over"


# ----- the order of the reasons (4, and the contract's order) --------------------------------
def test_precedence_of_reasons_during_play() -> None:
    """The spec's own reasons come first (not_active, then poll_pending); then the contract's order:
    wrong_phase, not_your_turn, invalid_parameters, then the specific reasons."""
    state = to_play(start(T3))
    state = go(state, mv(0, "knock"), mv(1, "fold"))
    # a poll is pending (seat 2 to answer)
    assert reason(state, mv(1, "stay")) == "not_active"
    assert reason(state, mv(1, "play", card="JC")) == "not_active"
    assert reason(state, mv(0, "play", card="TH")) == "poll_pending"
    assert reason(state, mv(3, "knock")) == "poll_pending"
    assert reason(state, mv(3, "stay")) == "poll_pending"  # out of order
    assert reason(state, mv(2, "play", card="AH")) == "poll_pending"
    assert reason(state, mv(2, "keep")) == "poll_pending"
    assert reason(state, mv(2, "challenge")) == "poll_pending"
    state = go(state, mv(2, "stay"), mv(3, "stay"))
    # no poll: seat 0 to lead
    assert reason(state, mv(2, "stay")) == "wrong_phase"
    assert reason(state, mv(2, "fold")) == "wrong_phase"
    assert reason(state, mv(2, "play", card="AH")) == "not_your_turn"  # in to_act only to knock
    assert reason(state, mv(2, "play", card="XX")) == "not_your_turn"  # the turn before the parameters
    assert reason(state, mv(0, "keep")) == "wrong_phase"
    assert reason(state, mv(2, "warn", signal="none")) == "wrong_phase"
    assert reason(state, mv(0, "warn", signal="shout")) == "wrong_phase"  # the phase before the parameters
    assert reason(state, mv(0, "play", card="XX")) == "invalid_parameters"
    assert reason(state, mv(0, "play")) == "invalid_parameters"
    assert reason(state, mv(0, "knock")) == "knock_twice_in_succession"
    assert reason(state, mv(0, "play", card="JC")) == "card_not_in_hand"
    assert reason(state, mv(0, "toep")) == "unknown_action"
    assert reason(state, mv(9, "toep")) == "unknown_action"
    assert reason(state, mv(9, "knock")) == "invalid_parameters"  # not a seat of the table


def test_precedence_of_reasons_before_play() -> None:
    state = start({})
    assert reason(state, mv(1, "exchange")) == "not_your_turn"
    assert reason(state, mv(1, "knock")) == "wrong_phase"  # the phase before the turn (contract)
    assert reason(state, mv(0, "knock")) == "wrong_phase"
    assert reason(state, mv(0, "warn", signal="none")) == "wrong_phase"
    assert reason(state, mv(0, "challenge")) == "wrong_phase"
    assert reason(state, mv(1, "stay")) == "wrong_phase"
    state = go(state, mv(0, "exchange"))
    assert reason(state, mv(0, "keep")) == "poll_pending"
    assert reason(state, mv(2, "challenge")) == "poll_pending"
    assert reason(state, mv(1, "stay")) == "poll_pending"
    state = to_play(go(state, mv(1, "no_challenge"), mv(2, "no_challenge"), mv(3, "no_challenge")))
    assert state["phase"] == "play"


def test_warning_signal_is_checked_after_the_turn() -> None:
    state = start({}, n=8)
    assert reason(state, mv(1, "warn", signal="shout")) == "not_your_turn"
    assert reason(state, mv(0, "warn", signal="shout")) == "invalid_parameters"


def test_warnings_in_turn() -> None:
    state = start({}, n=8)
    assert engine.legal_moves(state) == [mv(0, "warn", signal=s) for s in ("none", "whistle", "stand")]
    assert reason(state, mv(1, "warn", signal="none")) == "not_your_turn"
    state = go(state, mv(0, "warn", signal="none"))
    assert engine.to_act(state) == [1]


# ----- poverty (4.3) -------------------------------------------------------------------------
def test_poverty_poll_and_lead() -> None:
    state = start({}, totals=[0, 9, 0, 0], poverty=True)
    assert state["poverty"] == 1 and stake(state) == 2
    state = to_play(state)
    assert state["phase"] == "poverty" and engine.legal_moves(state) == [mv(2, "stay"), mv(2, "fold")]
    assert reason(state, mv(0, "knock")) == "poll_pending"
    state = go(state, mv(2, "fold"), mv(3, "stay"), mv(0, "stay"))
    assert state["phase"] == "play" and state["folded"] == [None, None, 1, None]
    assert {m["seat"] for m in engine.legal_moves(state) if m["action"] == "play"} == {1}  # Q leads
    assert reason(state, mv(1, "knock")) == "knock_over_limit"  # 9 + 3 > 10
    assert knocks(state) == [0, 3]
    state = go(state, mv(0, "knock"), mv(1, "stay"), mv(3, "fold"))
    assert stake(state) == 3 and state["folded"] == [None, None, 1, 2]


def test_poverty_everybody_else_folds() -> None:
    state = to_play(start({}, totals=[0, 0, 9, 0], poverty=True))
    state = go(state, mv(3, "fold"), mv(0, "fold"), mv(1, "fold"))
    assert state["scores"] == [1, 1, 9, 1] and state["dealer"] == 2


def test_poverty_first_such_player_from_eldest() -> None:
    state = start({}, totals=[9, 0, 9, 0], poverty=True, dealer=0)
    assert state["poverty"] == 2
    assert start({}, totals=[9, 0, 9, 0], dealer=0)["poverty"] is None  # option off


# ----- last_survivor (2) ---------------------------------------------------------------------
def test_last_survivor_eliminates_and_skips() -> None:
    state = to_play(start({}, totals=[9, 2, 9, 3], match_end="last_survivor"))
    state, ev = events_of(state, mv(3, "knock"), mv(0, "fold"), mv(1, "fold"), mv(2, "fold"))
    assert [e["seat"] for e in ev if e["type"] == "eliminated"] == [0, 2]
    assert state["eliminated"] == [2, None, 2, None] and not engine.is_finished(state)  # out in deal 2
    assert state["dealer"] == 3 and state["hands"][0] == [] and state["hands"][2] == []
    assert len(state["rest"]) == 24 and state["exchanger"] == 1  # eldest skips eliminated seat 0
    assert reason(state, mv(0, "keep")) == "not_active"
    state = to_play(state)
    assert engine.to_act(state) == [1, 3]
    state = go(state, mv(1, "knock"), mv(3, "fold"))  # 1 wins, deals next
    assert state["scores"] == [10, 3, 10, 4] and state["dealer"] == 1 and state["exchanger"] == 3


def first_play(state: State) -> dict[str, Any]:
    return next(m for m in engine.legal_moves(state) if m["action"] == "play")


def test_last_survivor_winner_next_dealer_eliminated() -> None:
    """The deal's winner is eliminated by a warning penalty: the next survivor clockwise deals."""
    state = to_play(start({0: ["TH", "TS", "TD", "TC"]}, totals=[9, 0, 0, 0], match_end="last_survivor"))
    while state["dealings"] == 2:  # the match's second deal
        state = go(state, first_play(state))
    assert state["scores"] == [10, 1, 1, 1] and state["eliminated"] == [2, None, None, None]
    assert state["dealer"] == 1 and state["exchanger"] == 2


def test_last_survivor_sole_survivor_takes_the_pot() -> None:
    state = to_play(start({}, totals=[9, 9, 9, 3], match_end="last_survivor"))
    state = go(state, mv(3, "knock"), mv(0, "fold"), mv(1, "fold"), mv(2, "fold"))
    assert engine.result(state) == {"scores": [10, 10, 10, 3], "payoffs": [-1, -1, -1, 3],
                                    "ranking": [3, 0, 1, 2], "winners": [3], "eliminated": [2, 2, 2, None]}


def test_last_survivor_all_out_in_one_deal_shares_with_odd_unit() -> None:
    hands = {0: ["TC", "TD", "TH", "TS"], 1: ["7C", "7D", "7H", "7S"], 2: ["8C", "8D", "8H", "8S"]}
    state = start(hands, n=3, totals=[9, 9, 9], match_end="last_survivor")
    state = to_play(state, {0: "none", 1: "whistle"})  # both wrong: seat 0 must stand
    assert knocks(state) == []
    state = go(state, (0, "TC"), (1, "7C"), (2, "8C"), (0, "TD"), (1, "7D"), (2, "8D"),
               (0, "TH"), (1, "7H"), (2, "8H"), (0, "TS"), (1, "7S"), (2, "8S"))
    res = engine.result(state)
    assert res["scores"] == [10, 11, 10]
    assert res["winners"] == [0, 2] and res["payoffs"] == [1, -1, 0] and res["ranking"] == [0, 2, 1]
    assert sum(res["payoffs"]) == 0


def test_last_survivor_two_player_deal_from_explicit_deals() -> None:
    first = deal({}, 4)
    second = deal({}, 4, out=(0, 2))
    assert len(second["rest"]) == 24
    state = after_totals(4, {"match_end": "last_survivor", "first_dealer": 3}, [first, second], [9, 0, 9, 0])
    state = go(to_play(state), mv(3, "knock"), mv(0, "fold"), mv(1, "stay"), mv(2, "fold"))
    assert state["eliminated"] == [None] * 4  # 1 and 3 still play the deal
    for _ in range(8):
        state = go(state, first_play(state))
    assert state["eliminated"][0] == 2 and state["eliminated"][2] == 2  # out in the match's second deal
    assert state["hands"] == second["hands"]


def test_a_board_for_the_full_table_is_used_after_eliminations() -> None:
    """Spec 3 (explicit deal, ruled): hands a supplied deal gives to seats eliminated by then go under the
    stock unseen, seat by seat in the order given; the players still in get theirs. (Refused before.)"""
    first = deal({3: ["TC", "TD", "TH", "TS"]}, 4)
    board = deal({}, 4, rest=["9C", "9D", "9H", "9S"])
    options = {"match_end": "last_survivor", "target": 2, "warnings": False, "first_dealer": 3}
    state = engine.new_match(GAME, 4, options, "ab", deals=[first, board])
    state = go(to_play(state), mv(3, "knock"), mv(0, "stay"), mv(1, "fold"), mv(2, "stay"))
    while state["dealings"] == 1:  # seat 3 and his four Tens win; seats 0 and 2 lose at stake 2
        state = go(state, first_play(state))
    assert state["eliminated"] == [1, None, 1, None] and state["dealer"] == 3
    assert state["hands"] == [[], board["hands"][1], [], board["hands"][3]]
    assert state["rest"] == board["rest"] + board["hands"][0] + board["hands"][2]
    for seat in (None, 1, 3):
        assert not leaks(engine.view(state, seat), set(board["hands"][0]) | set(board["hands"][2]))
    state = go(state, mv(1, "exchange"))  # drawn from the top: the eliminated seats' hands stay at the bottom
    assert state["hands"][1] == ["9C", "9D", "9H", "9S"]


def test_a_record_the_supplied_deal_does_not_fit_is_an_invalid_state() -> None:
    """A forged record in which the seats a board leaves empty are still in the match is refused as a state,
    not as the deal the match was created with."""
    first, second = deal({}, 4), deal({}, 4, out=(0, 2))
    state = after_totals(4, {"match_end": "last_survivor", "first_dealer": 3}, [first, second], [9, 0, 9, 0])
    state = go(to_play(state), mv(3, "knock"), mv(0, "fold"), mv(1, "fold"), mv(2, "fold"))
    assert state["eliminated"] == [2, None, 2, None] and state["hands"][0] == []  # out in deal 2
    _forge(lambda s: s["before"].update(eliminated=[None] * 4, scores=[0, 1, 0, 1]), state)


def test_explicit_deal_must_match_the_survivors() -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, 4, {"match_end": "last_survivor"}, "ab", deals=[deal({}, 4, out=(0, 2))])


# ----- options -------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [
    {"target": 1}, {"target": 501}, {"target": "10"}, {"target": True}, {"match_end": "lives"}, {"warnings": "yes"},
    {"max_exchanges": 0}, {"max_exchanges": True}, {"max_exchanges": "2"}, {"max_exchanges": 1.5},
    {"poverty": 1}, {"first_dealer": 4}, {"first_dealer": -1}, {"knock_limit": 3},
])
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(GAME, 4, options, "ab")


def test_option_defaults_and_good_values() -> None:
    state = engine.new_match(GAME, 4, {}, "ab")
    assert state["options"] == {"target": 10, "match_end": "first_to_target", "warnings": True,
                                "max_exchanges": None, "poverty": False, "first_dealer": 0}
    opts = {"target": 2, "match_end": "last_survivor", "warnings": False, "max_exchanges": None, "poverty": True,
            "first_dealer": 2}
    assert engine.new_match(GAME, 3, opts, "ab")["options"] == opts


# ----- explicit deals ------------------------------------------------------------------------
def _bad(d: dict[str, Any]) -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, 4, {}, "ab", deals=[d])


def test_explicit_deal_validation() -> None:
    good = deal({}, 4)
    engine.new_match(GAME, 4, {}, "ab", deals=[good])
    _bad({"hands": good["hands"][:3], "rest": good["rest"]})
    _bad({"hands": [good["hands"][0][:3], *good["hands"][1:]], "rest": good["rest"] + good["hands"][0][3:]})
    _bad({"hands": good["hands"], "rest": good["rest"][:-1]})
    _bad({"hands": good["hands"], "rest": good["rest"][:-1] + [good["rest"][0]]})
    _bad({"hands": good["hands"], "rest": good["rest"][:-1] + ["2C"]})
    _bad({"hands": [[], *good["hands"][1:]], "rest": good["rest"] + good["hands"][0]})
    _bad({"hands": good["hands"], "rest": good["rest"], "turn_up": []})


def test_explicit_deal_stock_order_is_top_first() -> None:
    state = start({}, rest=["AS", "KS", "QS", "JS"])
    state = go(state, mv(0, "exchange"))
    assert state["hands"][0] == ["AS", "KS", "QS", "JS"]


# ----- seeded deals --------------------------------------------------------------------------
def test_seeded_deal_is_reproducible_and_in_batches_of_two() -> None:
    a = engine.new_match(GAME, 5, {"first_dealer": 2}, "c0ffee")
    b = engine.new_match(GAME, 5, {"first_dealer": 2}, "c0ffee")
    assert a == b
    assert a["hands"] != engine.new_match(GAME, 5, {"first_dealer": 2}, "c0ffef")["hands"]
    p = shuffled(PIQUET_PACK, "c0ffee", "toepen/0")
    order = [3, 4, 0, 1, 2]  # eldest first, dealer last
    for i, seat in enumerate(order):
        assert a["hands"][seat] == p[2 * i:2 * i + 2] + p[10 + 2 * i:12 + 2 * i]
    assert a["rest"] == p[20:]


# ----- forged states -------------------------------------------------------------------------
def _midplay() -> State:
    state = to_play(start(T3))
    return go(state, mv(0, "knock"), mv(1, "fold"), mv(2, "stay"), mv(3, "stay"), (0, "TH"), (2, "KH"), (3, "JH"),
              (0, "9H"))


def _forge(fn: Any, base: State | None = None) -> None:
    state = engine.clone(base if base is not None else _midplay())
    fn(state)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


@pytest.mark.parametrize("corrupt", [
    lambda s: s.update(scores=[0, -1, 0, 0]),
    lambda s: s.update(scores=[0, 0, 0]),
    lambda s: s.update(phase="bidding"),
    lambda s: s.update(extra=1),
    lambda s: s.update(dealer=5),
    lambda s: s.update(dealer=2),
    lambda s: s["hands"][2].append(s["rest"].pop()),
    lambda s: s["hands"][2].__setitem__(0, "TH"),  # duplicate card
    lambda s: s["hands"][2].__setitem__(0, "2C"),
    lambda s: s["tricks"][0].update(winner=2),  # a trick winner
    lambda s: s["tricks"][0]["plays"].reverse(),
    lambda s: s["folded"].__setitem__(1, 2),  # owes more than the stake before the knock
    lambda s: s["folded"].__setitem__(0, 1),  # the knocker folded on his own knock
    lambda s: s.update(folded=[None] * 4),
    lambda s: s.update(stake=3),
    lambda s: s.update(last_knocker=2),
    lambda s: s.update(poll={"caller": 0, "answers": [1]}),
    lambda s: s.update(poll=[1]),
    lambda s: s.update(signals=["stand", "none", "none", None]),
    lambda s: s.update(signals=["shout", "none", "none", "none"]),
    lambda s: s.update(exchanger=0),
    lambda s: s.update(poverty=0),
    lambda s: s.update(eliminated=[None, 1, None, None]),
    lambda s: s.update(tricks=s["tricks"] * 5),
    lambda s: s["exchanges"].append({"seat": 0, "cards": s["rest"][:4], "challenger": None}),
    lambda s: s["trick"]["plays"].append([1, s["hands"][1].pop()]),  # a folded player plays
    lambda s: s["trick"].update(plays=[[2, "AH"]]),
    # the record: a logged move, the carried values before the deal
    lambda s: s["log"].__setitem__(12, "9H"),  # a card that does not follow the deal
    lambda s: s["log"].__setitem__(9, [1, "stay"]),  # then seat 1 is due to play, not seat 2
    lambda s: s["log"].__setitem__(10, [2, "knock"]),  # a knock during a poll
    lambda s: s["log"].pop(),
    lambda s: s["log"].append("KD"),
    lambda s: s["log"].insert(12, [0, "knock"]),  # knock twice in succession
    lambda s: s.update(log={}),
    lambda s: s["before"].update(scores=[0, 1, 0, 0]),
    lambda s: s["before"].update(dealer=0),
    lambda s: s["before"].update(dealings=1),
    lambda s: s["before"].pop("eliminated"),
    lambda s: s.pop("before"),
])
def test_forged_states_are_invalid(corrupt: Any) -> None:
    _forge(corrupt)


def test_forged_carried_values() -> None:
    """The values carried into a deal are checked for range and consistency before the deal is rebuilt."""
    def before(**values: Any) -> Any:
        return lambda s: s["before"].update(values) or s.update(values)
    _forge(before(scores=[0, 0, 10, 0]))  # a player at the target was dealt in
    _forge(before(scores=[0, 0, 2**53, 0]))
    _forge(before(scores=[0, 0, True, 0]))
    _forge(before(eliminated=[1, None, None, None]))  # not in first_to_target
    _forge(before(dealer=2))  # the first deal is dealt by first_dealer
    _forge(before(dealer=-1))
    survivor = start({}, match_end="last_survivor")
    _forge(before(eliminated=[2, None, None, None], scores=[10, 0, 0, 0]), survivor)  # a later deal than this
    _forge(before(eliminated=[None, None, None, None], scores=[10, 0, 0, 0]), survivor)
    _forge(before(eliminated=[1, 1, 1, None], scores=[10, 10, 10, 0], dealings=1), survivor)  # one left


def test_forged_knock_over_limit() -> None:
    _forge(lambda s: s["before"].update(scores=[9, 0, 0, 0]) or s.update(scores=[9, 0, 0, 0]))  # 9 + 2 > 10


def test_forged_exchange_phase_states() -> None:
    base = start({}, rest=STOCK)
    base = go(base, mv(0, "exchange"))
    _forge(lambda s: s["poll"].update(answers=[1]), base)
    _forge(lambda s: s["poll"].update(caller=1), base)
    _forge(lambda s: s.update(poll=None), base)
    _forge(lambda s: s["exchanges"][0].update(challenger=0), base)
    _forge(lambda s: s["exchanges"][0].update(cards=s["hands"][1]), base)
    _forge(lambda s: s["exchanges"].pop(), base)
    _forge(lambda s: s.update(exchanger=1), base)
    _forge(lambda s: s["log"].__setitem__(0, [1, "exchange"]), base)
    _forge(lambda s: s["options"].update(max_exchanges=0), base)


def test_forged_over_state() -> None:
    state = to_play(start(T11, totals=[8, 9, 3, 5]))
    state = go(state, mv(3, "knock"), mv(0, "stay"), mv(1, "fold"), mv(2, "stay"))
    state = go(state, (0, "7C"), (2, "TC"), (3, "8C"), (2, "9D"), (3, "8D"), (0, "7D"),
               (2, "9H"), (3, "8H"), (0, "7H"), (2, "9S"), (3, "8S"), (0, "7S"))
    assert engine.is_finished(state)
    _forge(lambda s: s.update(scores=[9, 9, 3, 7]), state)  # nobody reached the target
    _forge(lambda s: s.update(scores=[10, 10, 3, 1]), state)  # less than this deal's penalties
    _forge(lambda s: s["before"].update(scores=[8, 9, 3, 10]), state)  # seat 3 was at 10 when dealt in
    _forge(lambda s: s.update(phase="play"), state)
    _forge(lambda s: s["log"].append([2, "knock"]), state)  # a move after the end


def test_validation_never_crashes_on_random_corruption() -> None:
    rng = random.Random(3)
    base = _midplay()
    values: list[Any] = [None, -1, 0, 1, 3, 99, "x", "TH", [], {}, [0], [None], {"plays": []}, True]
    for _ in range(400):
        state = engine.clone(base)
        key = rng.choice([k for k in state if k not in ("game", "v", "players", "options", "seed", "deals")])
        target: Any = state
        path = [key]
        while isinstance(target[path[-1]], (list, dict)) and target[path[-1]] and rng.random() < 0.6:
            target = target[path[-1]]
            path.append(rng.choice(list(target)) if isinstance(target, dict) else rng.randrange(len(target)))
        target[path[-1]] = rng.choice(values)
        try:
            engine.check_state(GAME, state)
        except InvalidState:
            continue
        engine.legal_moves(state)  # a state that passes must be adjudicable


# ----- views ---------------------------------------------------------------------------------
def test_views_hide_hands_stock_and_discards() -> None:
    state = start({0: ["AH", "KS", "QD", "JC"]}, rest=STOCK)
    state = go(state, mv(0, "exchange"), mv(1, "no_challenge"), mv(2, "no_challenge"), mv(3, "no_challenge"))
    for seat in (None, 0, 1, 2, 3):
        v = engine.view(state, seat)
        hidden = set(state["rest"]) | {c for s, h in enumerate(state["hands"]) if s != seat for c in h}
        if seat != 0:
            hidden |= {"AH", "KS", "QD", "JC"}
        assert not leaks(v, hidden)
        assert "rest" not in v and "seed" not in v and "deals" not in v
        assert v["stock_size"] == 12 and v["stake"] == 1 and v["last_knocker"] is None
        assert v["hand_sizes"] == [4, 4, 4, 4]
    assert engine.view(state, 0)["hands"][0] == state["hands"][0]


def test_view_shows_public_play_information() -> None:
    state = _midplay()
    v = engine.view(state, 2)
    assert v["stake"] == 2 and v["last_knocker"] == 0 and v["folded"] == [None, 1, None, None]
    assert v["tricks"] == state["tricks"] and v["trick"] == state["trick"] and v["scores"] == state["scores"]
    assert v["hands"][1] is None  # a folded player's cards stay hidden
    assert not leaks(v, set(state["hands"][1]) | set(state["hands"][0]) | set(state["hands"][3]))


# ----- totals only grow by the deal's penalties ------------------------------------------------
def test_the_longest_knocking_war_stays_a_valid_state() -> None:
    """At the highest target, eight players knock in turn until no knock is left (every stake up to the
    target): the deal's record of moves stays within what a state may carry, so the state is still valid."""
    state = engine.new_match(GAME, 8, {"target": 500, "warnings": False}, "ab")
    knocker = 0
    while True:
        knock = next((m for m in engine.legal_moves(state) if m["action"] == "knock" and m["seat"] != knocker), None)
        if knock is None:
            break
        knocker = knock["seat"]
        state, _ = engine.apply(state, knock)
        while state["poll"] is not None:
            state, _ = engine.apply(state, mv(engine.to_act(state)[0], "stay"))
    assert state["stake"] == 500 and len(state["log"]) == 499 * 8
    assert engine.check_state(GAME, state) == state


def test_deal_changes_add_up_over_random_matches() -> None:
    """A challenge's penalty is added at once; the rest at the end of the deal, whose ``changes`` are all
    that the deal did to the scores (its challenges included)."""
    for seed in range(6):
        rng = random.Random(seed)
        n = 3 + seed
        state = engine.new_match(GAME, n, {"match_end": "last_survivor" if seed % 2 else "first_to_target"},
                                 f"{seed + 1:02x}")
        at_deal_start = list(state["scores"])
        while not engine.is_finished(state):
            before = list(state["scores"])
            state, ev = engine.apply(state, rng.choice(engine.legal_moves(state)))
            settled = [e for e in ev if e["type"] == "deal_settled"]
            if settled:
                assert state["scores"] == [a + c for a, c in zip(at_deal_start, settled[0]["changes"])]
                assert settled[0]["unit"] == "points"
                at_deal_start = list(state["scores"])
            else:
                challenged = [0] * n
                for e in ev:
                    if e["type"] == "challenge":
                        challenged[e["penalised"]] += 1
                assert state["scores"] == [b + c for b, c in zip(before, challenged)]
        assert engine.result(state) is not None


def test_a_card_code_outside_the_pack_is_invalid_parameters_and_a_card_not_held_stays_card_not_in_hand() -> None:
    outside_code_then_not_held("toepen", 4, "play", "card", "2H")
