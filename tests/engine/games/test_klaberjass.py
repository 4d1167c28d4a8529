"""Klaberjass: every scenario of the spec behind docs/games/klaberjass.md, section 9 (K1-K15, the seed's worked examples K1-K3
included), plus three-hand and partnership play, refusal precedence, hidden declarations and forged states."""
from __future__ import annotations

from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidState
from service.engine.cards import PIQUET_PACK
from service.engine.games import klaberjass_scoring as sc

from ..playout import (apply_checked, expect_illegal, first_state_with, hidden_after, later_deal, leaks,
                       outside_code_then_not_held)

GAME = "klaberjass"
State = dict[str, Any]

# K10's deal: dealer seat 0 (D), eldest seat 1 (N); hands after completion, turn-up 8H.
K10_N = ["JH", "KH", "QH", "AS", "KS", "QS", "TC", "9C", "7D"]
K10_D = ["9H", "TH", "7H", "AD", "KD", "QD", "JD", "AC", "8S"]
K10_TRICKS = [(1, "AS", 0, "8S"), (1, "KS", 0, "7H"), (0, "9H", 1, "JH"), (1, "KH", 0, "TH"), (0, "AD", 1, "7D"),
              (0, "KD", 1, "QH"), (1, "TC", 0, "AC"), (0, "QD", 1, "9C"), (0, "JD", 1, "QS")]


def two_hand(n9: list[str], d9: list[str], turn_up: str, bottom: str | None = None) -> dict[str, Any]:
    """The explicit two-hand deal (dealer seat 0) that completes to these nine-card hands."""
    used = set(n9) | set(d9) | {turn_up} | ({bottom} if bottom else set())
    spare = [c for c in PIQUET_PACK if c not in used]
    bottom = bottom or spare.pop()
    return {"hands": [d9[:6], n9[:6]], "rest": [turn_up, *n9[6:], *d9[6:], *spare, bottom]}


def start(deal: dict[str, Any], n: int = 2, scores: list[int] | None = None, held: int = 0,
          **options: Any) -> State:
    """A match on ``deal`` whose carried totals are ``scores`` and ``held``: its first deal when they are the
    starting ones, else its second (an earlier deal left them), dealt by the same seat."""
    if (scores is None or scores == [0] * n) and held == 0:
        return engine.check_state(GAME, engine.new_match(GAME, n, options, "5eed", deals=[deal]))
    dealer = options.get("first_dealer", 0)
    options = {**options, "first_dealer": (dealer - 1) % n}  # the deal passes on: deal 2 is dealt by the next seat
    return later_deal(GAME, n, options, [deal], {"deal_no": 1, "scores": list(scores or [0] * n), "held": held})


def do(state: State, *moves: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    return apply_checked(state, *moves)


def mv(seat: int, action: str, **params: Any) -> dict[str, Any]:
    return {"seat": seat, "action": action, **params}


def card(seat: int, c: str, **params: Any) -> dict[str, Any]:
    return mv(seat, "play", card=c, **params)


def plays(state: State, seat: int) -> set[str]:
    return {m["card"] for m in engine.legal_moves(state, seat) if m["action"] == "play"}


def k10(scores: list[int] | None = None, declare: bool = True, held: int = 0, **options: Any) -> State:
    """K10 up to the second card of trick 1: N takes, both pass the dix, N leads AS, both declare."""
    state = start(two_hand(K10_N, K10_D, "8H"), scores=scores or [430, 300], held=held, **options)
    state, _ = do(state, mv(1, "take"), mv(1, "pass_dix"), mv(0, "pass_dix"), card(1, "AS"))
    if declare:
        state, _ = do(state, mv(1, "declare", sequences=[["AS", "KS", "QS"], ["KH", "QH", "JH"]]),
                      mv(0, "declare", sequences=[["AD", "KD", "QD", "JD"]]))
    return state


def play_tricks(state: State, tricks: list[tuple[int, str, int, str]], skip_first_lead: bool = True) -> State:
    for i, (lead, c1, follow, c2) in enumerate(tricks):
        if not (i == 0 and skip_first_lead):
            state, _ = do(state, card(lead, c1))
        state, _ = do(state, card(follow, c2))
    return state


# ----- 9.1 the seed's worked examples ---------------------------------------------------------------
def test_K1_maker_succeeds() -> None:
    assert sc.settle([50, 55], 1, [], 0) == ([50, 55], 1, 0)


def test_K2_maker_fails() -> None:
    assert sc.settle([70, 55], 1, [], 0) == ([125, 0], 0, 0)


def test_K3_several_sequences() -> None:
    hand = ["KH", "QH", "JH", "TH", "TC", "9C", "8C", "8D", "7S"]
    runs = sc.maximal_runs(hand)
    assert runs == [["KH", "QH", "JH", "TH"], ["TC", "9C", "8C"]]
    outcome = sc.compare([(1, 1, r) for r in runs] + [(0, 0, ["AD", "KD", "QD"])], "S")
    assert outcome["winner"] == 1 and outcome["points"] == 70
    # credited once that player has won a trick: through the engine, in K10 D's 50 counts from trick 2 on
    state = play_tricks(k10(), K10_TRICKS[:1])
    assert engine.get_game(GAME).running(state, 0) == 430
    state = play_tricks(state, K10_TRICKS[1:2], skip_first_lead=False)
    assert engine.get_game(GAME).running(state, 0) == 484


# ----- 9.2 own scenarios ----------------------------------------------------------------------------
def k4_state(d_hand: list[str], **options: Any) -> State:
    """Trumps H, N (seat 1) leads the 9H; D (seat 0) holds ``d_hand`` among non-hearts (a trump lead at trick 1:
    the duty depends only on the hand)."""
    filler = [c for c in ("7S", "8S", "9S", "7C", "8C", "9C", "7D") if c not in d_hand]
    d9 = d_hand + filler[:9 - len(d_hand)]
    n9 = ["9H", "KH", "QH", "AC", "KC", "QC", "JC", "TD", "9D"]
    state = start(two_hand(n9, d9, "TH" if "TH" not in d_hand else "JH"), **options)
    state, _ = do(state, mv(1, "take"))
    while state["phase"] == "dix":
        state, _ = do(state, mv(engine.to_act(state)[0], "pass_dix"))
    state, _ = do(state, card(1, "9H"), mv(1, "declare", sequences=[]), mv(0, "declare", sequences=[]))
    return state


def test_K4_trump_lead() -> None:
    # (a) any heart
    state = k4_state(["JH", "8H", "AS", "KD"])
    assert plays(state, 0) == {"JH", "8H"}
    for c in ("AS", "KD"):
        expect_illegal(state, card(0, c), "must_follow_suit")
    # (b) the Jack must head the Menel
    state = k4_state(["JH", "8H", "AS", "KD"], head_trump_lead=True)
    assert plays(state, 0) == {"JH"}
    expect_illegal(state, card(0, "8H"), "must_head_trick")
    # (c) nothing beats the 9H: any heart
    state = k4_state(["AH", "TH", "8H", "KD"], head_trump_lead=True)
    assert plays(state, 0) == {"AH", "TH", "8H"}
    expect_illegal(state, card(0, "KD"), "must_follow_suit")


def test_K5_plain_lead() -> None:
    n9 = ["AS", "KS", "AH", "KH", "QH", "AC", "KC", "TC", "9C"]
    # (a) no spade, a trump: must trump
    d9 = ["7H", "KD", "QC", "8D", "9D", "TD", "JD", "QD", "7C"]
    state = start(two_hand(n9, d9, "8H"))
    state, _ = do(state, mv(1, "take"), mv(1, "pass_dix"), mv(0, "pass_dix"), card(1, "AS"),
                  mv(1, "declare", sequences=[]), mv(0, "declare", sequences=[]))
    assert plays(state, 0) == {"7H"}
    expect_illegal(state, card(0, "KD"), "must_trump")
    # (b) a plain suit need not be headed
    d9 = ["7S", "QS", "JH", "8D", "9D", "TD", "7C", "8C", "7D"]
    n9b = ["KS", "9S", "AH", "KH", "QH", "AC", "KC", "TC", "9C"]
    state = start(two_hand(n9b, d9, "8H", bottom="AS"))  # the 7H stays in the stock: both must pass (R28)
    state, _ = do(state, mv(1, "take"))
    assert engine.legal_moves(state) == [mv(1, "pass_dix")]
    state, _ = do(state, mv(1, "pass_dix"), mv(0, "pass_dix"), card(1, "KS"), mv(1, "declare", sequences=[]),
                  mv(0, "declare", sequences=[]))
    assert plays(state, 0) == {"7S", "QS"}
    expect_illegal(state, card(0, "JH"), "must_follow_suit")


@pytest.mark.parametrize(("case", "n_runs", "d_runs", "trump", "winner"), [
    ("a", [["QD", "JD", "TD", "9D", "8D"]], [["KC", "QC", "JC", "TC"]], "H", 0),
    ("b", [["AS", "KS", "QS"]], [["AD", "KD", "QD"]], "H", None),
    ("c", [["AS", "KS", "QS"]], [["AD", "KD", "QD"]], "D", 0),
    ("d", [["KH", "QH", "JH"], ["AS", "KS", "QS"]], [["AC", "KC", "QC"]], "H", None),
])
def test_K6_sequence_comparison(case: str, n_runs: list[list[str]], d_runs: list[list[str]], trump: str,
                                winner: int | None) -> None:
    declared = [(1, 1, r) for r in n_runs] + [(0, 0, r) for r in d_runs]
    outcome = sc.compare(declared, trump)
    assert outcome["winner"] == winner
    if winner is None:
        assert outcome["tie"] == {"value": 20, "top": "A"} and "shown" not in outcome


def test_K6b_a_tie_publishes_only_value_and_top_card() -> None:
    n9 = ["AS", "KS", "QS", "9H", "8C", "TC", "7D", "9D", "JH"]
    d9 = ["AD", "KD", "QD", "TH", "8S", "7S", "9C", "7C", "AH"]
    state = start(two_hand(n9, d9, "8H"))
    state, _ = do(state, mv(1, "take"), mv(1, "pass_dix"), mv(0, "pass_dix"), card(1, "9D"),
                  mv(1, "declare", sequences=[["QS", "KS", "AS"]]))
    for seat in (None, 0):
        assert not leaks(engine.view(state, seat), {"AS", "KS", "QS"})
    state, events = do(state, mv(0, "declare", sequences=[["AD", "KD", "QD"]]))
    assert state["sequences"] == {"winner": None, "tie": {"value": 20, "top": "A"}}
    assert events[-1] == {"type": "sequences_compared", "winner": None, "tie": {"value": 20, "top": "A"}}
    for seat, secret in ((None, {"AS", "KS", "QS", "AD", "KD", "QD"}), (0, {"AS", "KS", "QS"}), (1, {"AD", "KD"})):
        assert not leaks(engine.view(state, seat), secret)


def k7_state() -> State:
    n9 = ["KH", "QH", "JH", "7C", "8C", "9C", "TC", "AD", "8S"]
    d9 = ["AH", "TH", "9H", "AC", "KC", "7D", "8D", "9D", "JS"]
    state = start(two_hand(n9, d9, "QS", bottom="7S"))  # the 7 of trumps exposed: no dix step
    state, _ = do(state, mv(1, "take"), card(1, "KH"))
    return state


def test_K7_declaration_legality() -> None:
    state = k7_state()
    do(state, mv(1, "declare", sequences=[["KH", "QH", "JH"]]))
    expect_illegal(state, mv(1, "declare", sequences=[["8C", "9C", "TC"]]), "invalid_sequence")
    expect_illegal(state, mv(1, "declare", sequences=[["KH", "QH", "JH"], ["JH", "QH", "KH"]]), "invalid_sequence")
    do(state, mv(1, "declare", sequences=[["7C", "8C", "9C", "TC"]]))
    assert [m["sequences"] for m in engine.legal_moves(state, 1) if m["action"] == "declare"] == [
        [], [["KH", "QH", "JH"]], [["TC", "9C", "8C", "7C"]], [["KH", "QH", "JH"], ["TC", "9C", "8C", "7C"]]]
    state, _ = do(state, mv(1, "declare", sequences=[["TC", "8C", "7C", "9C"]]), mv(0, "declare", sequences=[]))
    assert state["sequences"]["points"] == 50 and state["sequences"]["winner"] == 1


def k8_state(**options: Any) -> State:
    return start(two_hand(K10_N, K10_D, "8H"), **options)


def test_K8a_four_passes_annul_the_deal() -> None:
    state, events = do(k8_state(), mv(1, "pass"), mv(0, "pass"), mv(1, "pass"), mv(0, "pass"))
    assert [e["type"] for e in events[-2:]] == ["redealt", "deal_started"]
    assert state["dealer"] == 1 and state["deal_no"] == 2 and state["scores"] == [0, 0] and state["held"] == 0
    assert engine.to_act(state) == [0]  # the new eldest


def test_K8b_round_two_names_another_suit() -> None:
    state, _ = do(k8_state(), mv(1, "pass"), mv(0, "pass"))
    expect_illegal(state, mv(1, "name_trump", suit="H"), "turn_up_suit_not_allowed")
    expect_illegal(state, mv(1, "take"), "wrong_phase")
    state, _ = do(state, mv(1, "name_trump", suit="C"))
    assert state["maker"] == 1 and state["trump"] == "C" and state["phase"] == "play"


def test_K8c_schmeiss_accepted() -> None:
    state, _ = do(k8_state(), mv(1, "schmeiss"))
    assert engine.to_act(state) == [0] and state["phase"] == "schmeiss_answer"
    state, _ = do(state, mv(0, "answer_schmeiss", annul=False))
    assert state["maker"] == 1 and state["trump"] == "H"


def test_K8d_schmeiss_annulled() -> None:
    state, events = do(k8_state(), mv(1, "pass"), mv(0, "schmeiss"), mv(1, "answer_schmeiss", annul=True))
    assert state["dealer"] == 1 and state["deal_no"] == 2 and {"type": "redealt", "deal": 1, "dealer": 0,
                                                               "reason": "schmeiss"} in events


def test_K8e_schmeiss_switched_off() -> None:
    expect_illegal(k8_state(schmeiss=False), mv(1, "schmeiss"), "schmeiss_not_available")


def test_round_two_schmeiss_refused_obliges_the_schmeisser_to_name() -> None:
    state, _ = do(k8_state(), mv(1, "pass"), mv(0, "pass"), mv(1, "schmeiss"), mv(0, "answer_schmeiss", annul=False))
    assert state["phase"] == "name_after_schmeiss" and engine.to_act(state) == [1]
    expect_illegal(state, mv(1, "pass"), "wrong_phase")
    expect_illegal(state, mv(1, "name_trump", suit="H"), "turn_up_suit_not_allowed")
    state, _ = do(state, mv(1, "name_trump", suit="S"))
    assert state["maker"] == 1 and state["trump"] == "S"


def test_K9_dix_step_presence() -> None:
    others = ["AS", "QS", "JS", "TS", "9S", "8S"]
    n9 = ["AH", "KH", "QH", "AC", "KC", "QC", "JC", "AD", "KD"]
    # (a) the turn-up is the 7 of trumps
    state, _ = do(start(two_hand(n9, ["7S", *others[:5], "TD", "9D", "8D"], "7H")), mv(1, "take"))
    assert state["phase"] == "play"
    # (b) the 7 of trumps is the exposed bottom card
    state, _ = do(start(two_hand(n9, [*others, "TD", "9D", "8D"], "KS", bottom="7S")), mv(1, "take"))
    assert state["phase"] == "play" and state["bottom"] == "7S"
    # (c) D holds it
    d9 = ["7S", *others[:5], "TD", "9D", "8D"]
    state, _ = do(start(two_hand(n9, d9, "KS")), mv(1, "take"))
    assert state["phase"] == "dix" and engine.legal_moves(state) == [mv(1, "pass_dix")]
    expect_illegal(state, mv(1, "exchange_dix"), "no_dix")
    state, _ = do(state, mv(1, "pass_dix"))
    assert engine.legal_moves(state) == [mv(0, "exchange_dix"), mv(0, "pass_dix")]
    state, events = do(state, mv(0, "exchange_dix"))
    assert "KS" in state["hands"][0] and "7S" not in state["hands"][0] and state["turn_up"] == "7S"
    assert state["phase"] == "play" and {"type": "exchange_dix", "seat": 0} in events


def test_K10_a_complete_deal() -> None:
    state = k10(declare=False)
    state, events = do(state, mv(1, "declare", sequences=[["AS", "KS", "QS"], ["KH", "QH", "JH"]]),
                       mv(0, "declare", sequences=[["AD", "KD", "QD", "JD"]]))
    assert state["sequences"] == {"winner": 0, "points": 50, "shown": [[0, ["AD", "KD", "QD", "JD"]]]}
    assert not leaks(engine.view(state, 0), {"AS", "KS", "QS", "KH", "QH", "JH"} - {"AS"})
    follow_sets = [{"8S"}, {"7H", "9H", "TH"}, {"JH", "KH", "QH"}, {"TH"}, {"7D"}, {"QH"}, {"AC"}, {"9C", "QS"},
                   {"QS"}]
    for i, ((lead, c1, follow, c2), legal) in enumerate(zip(K10_TRICKS, follow_sets)):
        if i:
            state, _ = do(state, card(lead, c1))
        assert plays(state, follow) == legal, i + 1
        if i == 5:
            expect_illegal(state, card(1, "QH", bella=True), "bella_not_consecutive")
            assert engine.legal_moves(state, 1) == [card(1, "QH"), mv(1, "claim")]
        if i == 8:
            break
        state, _ = do(state, card(follow, c2))
    state, events = do(state, card(1, "QS"))
    settled = next(e for e in events if e["type"] == "deal_settled")
    assert settled["raw"] == [118, 52] and settled["changes"] == [170, 0] and settled["winner"] == 0
    assert engine.is_finished(state)
    assert engine.result(state) == {"scores": [600, 300], "winner": 0, "ranking": [0, 1], "payoffs": [1, -1]}


def test_K10_with_bella_at_any_time() -> None:
    state = play_tricks(k10(bella_timing="any"), K10_TRICKS[:5])
    state, _ = do(state, card(0, "KD"))
    assert card(1, "QH", bella=True) in engine.legal_moves(state, 1)
    state, events = do(state, card(1, "QH", bella=True))
    assert {"type": "bella", "seat": 1, "card": "QH"} in events
    state = play_tricks(state, K10_TRICKS[6:], skip_first_lead=False)
    assert engine.result(state)["scores"] == [620, 300]  # D +190: N raw 72 fails


def test_K11a_true_claim_ends_the_match() -> None:
    state = play_tricks(k10(), K10_TRICKS[:5])
    state, events = do(state, mv(0, "claim"))
    assert {"type": "claim", "seat": 0, "correct": True, "running": 509} in events
    assert engine.result(state) == {"scores": [509, 345], "winner": 0, "ranking": [0, 1], "payoffs": [1, -1]}


def test_K11b_false_claim_forfeits_the_deal() -> None:
    state = play_tricks(k10(), K10_TRICKS[:4])
    state, events = do(state, mv(0, "claim"))
    assert events == [{"type": "claim", "seat": 0, "correct": False, "running": 498}]
    assert mv(0, "claim") not in engine.legal_moves(state)
    state = play_tricks(state, K10_TRICKS[4:5], skip_first_lead=False)
    expect_illegal(state, mv(0, "claim"), "claim_not_available")
    rest = [m for lead, c1, follow, c2 in K10_TRICKS[5:] for m in (card(lead, c1), card(follow, c2))]
    state, events = do(state, *rest)
    settled = next(e for e in events if e["type"] == "deal_settled")
    assert settled["changes"] == [0, 170]
    assert state["scores"] == [430, 470] and state["dealer"] == 1 and not engine.is_finished(state)


def test_K12_tied_deal_and_held_pool() -> None:
    assert sc.settle([81, 81], 0, [], 0) == ([0, 81], None, 81)
    assert sc.settle([64, 90], 1, [], 81) == ([64, 171], 1, 0)
    assert sc.settle([95, 60], 1, [], 81) == ([236, 0], 0, 0)
    # through the engine: a pool of 81 carried in goes to K10's deal winner (D), and the pool empties
    state = play_tricks(k10(scores=[0, 0], held=81), K10_TRICKS)
    assert state["scores"] == [170 + 81, 0] and state["held"] == 0


def test_K13_both_cross_the_target_the_non_maker_first() -> None:
    assert sc.tally_order(1, 2) == [0, 1]
    # K10's deal with D (seat 0) as maker: D raw 118 beats N's 52; N is tallied first and wins at 512
    state = start(two_hand(K10_N, K10_D, "8H"), scores=[460, 460])
    state, _ = do(state, mv(1, "pass"), mv(0, "take"), mv(1, "pass_dix"), mv(0, "pass_dix"), card(1, "AS"),
                  mv(1, "declare", sequences=[]), mv(0, "declare", sequences=[["AD", "KD", "QD", "JD"]]))
    state = play_tricks(state, K10_TRICKS)
    assert engine.result(state) == {"scores": [460, 512], "winner": 1, "ranking": [1, 0], "payoffs": [-1, 1]}


@pytest.mark.parametrize("maker", [1, 0])
def test_K14_sequence_void_without_a_trick(maker: int) -> None:
    n9 = ["JH", "9H", "AH", "TH", "KH", "QH", "7H", "AS", "AC"]
    d9 = ["AD", "KD", "QD", "JD", "TD", "8S", "7S", "8C", "7C"]
    state = start(two_hand(n9, d9, "8H"))
    bids = [mv(1, "take")] if maker == 1 else [mv(1, "pass"), mv(0, "take")]
    state, _ = do(state, *bids, mv(1, "pass_dix"), mv(0, "pass_dix"), card(1, "JH"), mv(1, "declare", sequences=[]),
                  mv(0, "declare", sequences=[["AD", "KD", "QD", "JD", "TD"]]))
    assert state["sequences"]["winner"] == 0
    for i, lead in enumerate(["JH", "9H", "AH", "TH", "KH", "QH", "7H", "AS", "AC"]):
        if i:
            state, _ = do(state, card(1, lead))
        state, events = do(state, card(0, sorted(plays(state, 0))[0]))
    settled = next(e for e in events if e["type"] == "deal_settled")
    assert settled["raw"] == [0, 62 + 22 + 30 + 10]
    assert settled["changes"] == [0, 124] and settled["winner"] == 1


def test_K15_claim_availability() -> None:
    state = k8_state()
    expect_illegal(state, mv(0, "claim"), "wrong_phase")
    state, _ = do(state, mv(1, "take"))
    assert state["phase"] == "dix"
    expect_illegal(state, mv(0, "claim"), "wrong_phase")
    state = k10(declare=False)
    assert {m["seat"] for m in engine.legal_moves(state) if m["action"] == "claim"} == {0, 1}
    state, events = do(state, mv(0, "claim"))
    assert events[0]["correct"] is False and state["false_claims"] == [0]


# ----- three-hand and partnership ---------------------------------------------------------------------
def test_three_hand_maker_failure_shares_the_forfeit() -> None:
    # maker 0 raw 40 < best opponent 60: 40 split, the odd point to the larger (seat 2 has 60)
    assert sc.settle([41, 30, 60], 0, [], 0) == ([0, 30 + 20, 60 + 21], 2, 0)
    # equal opponents: the odd point to the maker's left, no strict winner
    assert sc.settle([41, 60, 60], 0, [], 7) == ([0, 81 + 7, 80], 1, 0)
    assert sc.settle([60, 60, 10], 0, [], 5) == ([0, 60, 10], None, 65)
    # a false claim by seat 1: its raw split between 2 (its left, odd point) and 0
    assert sc.settle([10, 21, 30], 0, [1], 0) == ([20, 0, 41], 2, 0)


def test_three_hand_bidding_has_no_schmeiss() -> None:
    state = engine.new_match(GAME, 3, {}, "5eed")
    seat = engine.to_act(state)[0]
    assert seat == 1 and {m["action"] for m in engine.legal_moves(state)} == {"take", "pass"}
    expect_illegal(state, mv(1, "schmeiss"), "schmeiss_not_available")
    expect_illegal(state, mv(1, "kontra"), "kontra_not_available")
    state, _ = do(state, mv(1, "pass"), mv(2, "pass"), mv(0, "take"))
    assert all(len(h) == 9 for h in state["hands"]) and len(state["rest"]) == 3 and state["bottom"]


def partnership(**options: Any) -> State:
    return engine.new_match(GAME, 4, options, "5eed")


def test_partnership_four_schmeisses_kill_the_hand() -> None:
    state = partnership()
    assert all(len(h) == 8 for h in state["hands"]) and state["turn_up"] in state["hands"][0]
    state, events = do(state, *(mv(s, "schmeiss") for s in (1, 2, 3, 0)))
    assert {"type": "redealt", "deal": 1, "dealer": 0, "reason": "dead_hand"} in events and state["dealer"] == 1


def test_partnership_kontra_rekontra_multiplies_the_deal() -> None:
    state = partnership()
    suit = state["turn_up"][1]
    state, _ = do(state, mv(1, "schmeiss"), mv(2, "take"))
    assert state["phase"] == "kontra" and engine.to_act(state) == [3]
    expect_illegal(state, mv(1, "kontra"), "not_your_turn")
    state, _ = do(state, mv(3, "pass"), mv(1, "kontra"))
    assert state["phase"] == "rekontra" and engine.to_act(state) == [2]
    state, _ = do(state, mv(2, "pass"), mv(0, "rekontra"))
    assert state["multiplier"] == 4 and state["phase"] == "play" and state["trump"] == suit
    assert engine.to_act(state) == [0, 1, 2, 3]  # seat 1 leads, everyone may claim


def test_partnership_kontra_off() -> None:
    state, _ = do(partnership(kontra=False), mv(1, "take"))
    assert state["phase"] == "play"
    expect_illegal(state, mv(1, "kontra"), "kontra_not_available")


def test_partnership_bella_by_partners_in_one_trick() -> None:
    hands = [["KH", "9S", "8S", "7S", "9D", "8D", "TD"], ["AS", "KS", "QS", "JS", "TS", "AC", "KC", "QC"],
             ["QH", "JH", "9H", "AD", "KD", "QD", "JD", "AH"], ["TH", "8H", "7H", "JC", "TC", "9C", "8C", "7C"]]
    deal = {"hands": hands, "rest": ["7D"]}
    state = engine.new_match(GAME, 4, {}, "5eed", deals=[deal])
    state, _ = do(state, mv(1, "pass"), mv(2, "pass"), mv(3, "pass"), mv(0, "pass"), mv(1, "pass"),
                  mv(2, "name_trump", suit="H"), mv(3, "pass"), mv(1, "pass"), card(1, "AC"),
                  *(mv(s, "declare", sequences=[]) for s in (1, 2, 3, 0)))
    state, _ = do(state, card(2, "QH"), card(3, "JC"))
    assert card(0, "KH", bella=True) in engine.legal_moves(state, 0)
    state, events = do(state, card(0, "KH", bella=True))
    assert state["bella"] == 0 and events[0] == {"type": "bella", "seat": 0, "card": "KH"}


# ----- refusal precedence (R21, R22) --------------------------------------------------------------------
def test_refusal_precedence() -> None:
    state = k8_state()
    expect_illegal(state, mv(0, "play", card="AS"), "not_your_turn")
    expect_illegal(state, mv(1, "play", card="AS"), "wrong_phase")
    expect_illegal(state, mv(1, "play", card="XX"), "wrong_phase")
    expect_illegal(state, mv(1, "name_trump", suit="X"), "wrong_phase")
    expect_illegal(state, mv(1, "kontra"), "kontra_not_available")
    expect_illegal(state, mv(5, "claim"), "invalid_parameters")
    expect_illegal(state, mv(0, "shout"), "unknown_action")
    state, _ = do(k10(declare=False), mv(1, "declare", sequences=[]))
    expect_illegal(state, card(0, "8S"), "wrong_phase")  # the seat due to declare plays
    expect_illegal(state, card(1, "KS"), "not_your_turn")
    expect_illegal(state, mv(0, "declare", sequences="no"), "invalid_parameters")
    expect_illegal(state, mv(0, "declare", sequences=[["AD", "KD", "QD", "JD"], ["AD", "KD", "QD", "JD"]]),
                   "invalid_sequence")
    state = k10()
    expect_illegal(state, card(0, "8S", bella="yes"), "invalid_parameters")
    expect_illegal(state, card(0, "AD", bella=True), "must_follow_suit")  # duties before Bella (R23)
    expect_illegal(state, card(0, "8S", bella=True), "bella_not_available")
    do(state, card(0, "8S", bella=False))


# ----- hidden information, deals, forged states -----------------------------------------------------------
def test_views_hide_declarations_until_compared() -> None:
    state = k10(declare=False)
    state, _ = do(state, mv(1, "declare", sequences=[["AS", "KS", "QS"]]))
    assert engine.view(state, 1)["declared"] == [None, [["AS", "KS", "QS"]]]
    assert engine.view(state, 0)["declared"] == [None, None] and engine.view(state, None)["declared"] == [None, None]
    assert hidden_after(state, mv(0, "declare", sequences=[])) == ["sequences"]
    assert "log" not in engine.view(state, 0) and "rest" not in engine.view(state, 0)


def test_seeded_deals_follow_section_3() -> None:
    for n in (2, 3, 4):
        state = engine.new_match(GAME, n, {}, "abc")
        sizes = [len(h) for h in state["hands"]]
        assert sizes == ([6] * n if n < 4 else [8, 8, 8, 8])
        assert len(state["rest"]) == (19 if n == 2 else 13 if n == 3 else 0)


@pytest.mark.parametrize("deal", [
    {"hands": [["7C"] * 6, ["8C"] * 6], "rest": []},
    two_hand(K10_N, K10_D, "8H") | {"rest": two_hand(K10_N, K10_D, "8H")["rest"][:-1]},
])
def test_bad_explicit_deals_are_refused(deal: dict[str, Any]) -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, 2, {}, "5eed", deals=[deal])


def test_partnership_deals_follow_their_dealer() -> None:
    hands = [[c for c in PIQUET_PACK[8 * s:8 * s + 8]] for s in range(4)]
    rest = [hands[0].pop()]
    engine.new_match(GAME, 4, {}, "5eed", deals=[{"hands": hands, "rest": rest}])
    second = {"hands": [hands[1], hands[0], *hands[2:]], "rest": rest}  # seven cards for seat 1
    with pytest.raises(InvalidDeal):  # ... but seat 0 deals the first deal
        engine.new_match(GAME, 4, {}, "5eed", deals=[second])
    with pytest.raises(InvalidDeal):  # ... and seat 1 the second: the first entry is still checked for seat 0
        engine.new_match(GAME, 4, {}, "5eed", deals=[second, second])
    engine.new_match(GAME, 4, {}, "5eed", deals=[{"hands": hands, "rest": rest}, second])
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, 4, {}, "5eed", deals=[second])
    engine.new_match(GAME, 4, {"first_dealer": 1}, "5eed", deals=[second])


@pytest.mark.parametrize("how", ["score", "held", "partners", "log_card", "log_declare", "before", "trump", "bella"])
def test_forged_states_are_refused(how: str) -> None:
    state = play_tricks(k10(scores=[100, 200]), K10_TRICKS[:3])
    forged = engine.clone(state)
    if how == "score":
        forged["scores"][0] += 1
    elif how == "held":
        forged["before"]["held"] = -1
    elif how == "partners":
        forged = engine.clone(partnership())
        forged["before"]["scores"] = [1, 0, 0, 0]
    elif how == "log_card":
        forged["log"][-1] = "QS"
    elif how == "log_declare":
        forged["log"][4] = [1, "declare", [["TC", "9C", "8C"]]]
    elif how == "before":
        forged["before"]["scores"] = [100, 600]
    elif how == "trump":
        forged["trump"] = "S"
    else:
        forged["bella"] = 1
    with pytest.raises(InvalidState):
        engine.check_state(GAME, forged)


def test_illegal_moves_carry_a_sentence() -> None:
    with pytest.raises(IllegalMove) as err:
        engine.apply(k8_state(), mv(1, "name_trump", suit="C"))
    assert err.value.reason == "wrong_phase" and "round 1" in err.value.message


def test_a_card_code_outside_the_pack_is_invalid_parameters_and_a_card_not_held_stays_card_not_in_hand() -> None:
    outside_code_then_not_held("klaberjass", 4, "play", "card", "2H")


def test_a_declaration_naming_cards_outside_the_pack_is_invalid_parameters_not_an_inconsistent_state() -> None:
    """R21: a sequence of codes outside the 32-card pack is a bad parameter (it used to reach the sequence
    scoring and come back as ``invalid_state``)."""
    state, move = first_state_with("klaberjass", 4, "declare")
    expect_illegal(state, dict(move, sequences=[["4H", "3H", "2H"]]), "invalid_parameters")
    expect_illegal(state, dict(move, sequences=[["AH", "KH", "2H"]]), "invalid_parameters")
