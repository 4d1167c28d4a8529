"""The shared trick core: duties to follow, head, trump and overtrump, and who wins."""
from __future__ import annotations

import pytest

from service.engine import IllegalMove
from service.engine.tricks import TrickRules, TrickTable

PLAIN = TrickTable(TrickRules())
HEAD = TrickTable(TrickRules(head=True))
TRUMPING = TrickTable(TrickRules(head=True, must_trump=True, overtrump=True, undertrump="required"))
LOOSE_UNDER = TrickTable(TrickRules(must_trump=True, overtrump=True, undertrump="allowed"))
NO_UNDER = TrickTable(TrickRules(must_trump=True, overtrump=True, undertrump="forbidden"))
ACE_LOW = TrickTable(TrickRules(order="A23456789TJQK"))
JASS = TrickTable(TrickRules(order="789TJQKA", trump_order="78QKTA9J"))


@pytest.mark.parametrize(("table", "hand", "plays", "trump", "legal"), [
    (PLAIN, ["2H", "KH", "AS"], [[0, "9H"]], None, ["2H", "KH"]),
    (PLAIN, ["AS", "2C"], [[0, "9H"]], None, ["AS", "2C"]),
    (PLAIN, ["AS", "2C"], [], None, ["AS", "2C"]),
    (HEAD, ["2H", "KH", "TH"], [[0, "9H"]], None, ["KH", "TH"]),
    (HEAD, ["2H", "8H"], [[0, "9H"]], None, ["2H", "8H"]),
    (HEAD, ["TH", "KH"], [[0, "9H"], [1, "QH"]], None, ["KH"]),
    (HEAD, ["TH", "KH"], [[0, "9H"], [1, "AS"]], None, ["TH", "KH"]),
    # once the trick is trumped, following need not head
    (TRUMPING, ["TH", "KH"], [[0, "9H"], [1, "2S"]], "S", ["TH", "KH"]),
    (TRUMPING, ["2S", "AC"], [[0, "9H"]], "S", ["2S"]),
    (TRUMPING, ["2S", "QS", "AC"], [[0, "9H"], [1, "TS"]], "S", ["QS"]),
    (TRUMPING, ["2S", "3S", "AC"], [[0, "9H"], [1, "TS"]], "S", ["2S", "3S"]),
    (LOOSE_UNDER, ["2S", "AC"], [[0, "9H"], [1, "TS"]], "S", ["2S", "AC"]),
    (NO_UNDER, ["2S", "AC"], [[0, "9H"], [1, "TS"]], "S", ["AC"]),
    (NO_UNDER, ["2S", "3S"], [[0, "9H"], [1, "TS"]], "S", ["2S", "3S"]),
    (TRUMPING, ["2S", "AS"], [[0, "9S"]], "S", ["AS"]),
])
def test_legal_cards(table: TrickTable, hand: list[str], plays: list, trump: str | None, legal: list[str]) -> None:
    assert table.legal_cards(hand, plays, trump) == legal
    for card in hand:
        if card in legal:
            table.check(hand, plays, card, trump)
        else:
            with pytest.raises(IllegalMove):
                table.check(hand, plays, card, trump)


@pytest.mark.parametrize(("table", "hand", "plays", "trump", "card", "reason"), [
    (HEAD, ["2H", "KH", "AS"], [[0, "9H"]], None, "AS", "must_follow_suit"),
    (HEAD, ["2H", "KH", "AS"], [[0, "9H"]], None, "2H", "must_head_trick"),
    (TRUMPING, ["2S", "AC"], [[0, "9H"]], "S", "AC", "must_trump"),
    (TRUMPING, ["2S", "QS", "AC"], [[0, "9H"], [1, "TS"]], "S", "AC", "must_trump"),
    (TRUMPING, ["2S", "QS", "AC"], [[0, "9H"], [1, "TS"]], "S", "2S", "must_overtrump"),
    (NO_UNDER, ["2S", "AC"], [[0, "9H"], [1, "TS"]], "S", "2S", "undertrump_forbidden"),
])
def test_refusal_reasons(table: TrickTable, hand: list[str], plays: list, trump: str | None, card: str,
                         reason: str) -> None:
    with pytest.raises(IllegalMove) as err:
        table.check(hand, plays, card, trump)
    assert err.value.reason == reason and err.value.message


@pytest.mark.parametrize(("table", "plays", "trump", "winner"), [
    (PLAIN, [[1, "5H"], [2, "AH"], [3, "KH"], [0, "2H"]], None, 2),
    (ACE_LOW, [[1, "5H"], [2, "AH"], [3, "KH"], [0, "2H"]], None, 3),
    (PLAIN, [[0, "2H"], [1, "AS"]], None, 0),
    (PLAIN, [[0, "2H"], [1, "2S"], [2, "AH"]], "S", 1),
    (PLAIN, [[0, "2H"], [1, "2S"], [2, "3S"]], "S", 2),
    (JASS, [[0, "AD"], [1, "9D"], [2, "JD"], [3, "TD"]], "D", 2),
    (JASS, [[0, "AH"], [1, "9D"]], "D", 1),
])
def test_winner(table: TrickTable, plays: list, trump: str | None, winner: int) -> None:
    assert table.winner(plays, trump) == winner
