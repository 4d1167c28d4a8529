"""Jewel: Basudeo Agarwal's three-pack rummy for 2 to 9 players. Rules: docs/games/jewel.md.

Each deal an open card fixes the jewels (wild cards that also score), the marriage suit and the super sequence.
A turn is a draw (from the stock or, unless a joker or jewel lies there, the top of the discard pile) and a discard
or a declaration; at the start of a turn a player may instead pack (first turn) or mid pack (from his
``mid_pack_min_rounds``-th completed turn on), keeping up to two jewels face up. A valid declaration (a
compulsory sequence and four triples, auxiliaries: ``jewel_melds``, ``jewel_hands``) ends the deal; so do the exhaustion of the
re-made stock and a table with nobody left active. Every seat is then scored and settled pairwise (6.3).

Carried from deal to deal: ``deal_no``, ``scores`` (the sum of each seat's deal nets). Each deal has: ``dealer``,
``open_card``, ``hands`` (16 cards, 17 while the seat on turn has drawn; a packer's and a wrong declarer's are
empty), ``stock`` (top first; never shown), ``stock_no`` (1, or 2 once re-made), ``discard`` (bottom first),
``status``, ``turns_completed``, ``kept`` (packers' jewels, face up), ``exposed`` (wrong declarers' frozen hands),
``turn``. The phase is ``draw`` (the seat on turn holds 16 cards) or ``discard`` (17). Each deal's outcome, the
whole chart included, is in the ``deal_settled`` event of the move that ends it; the state keeps the totals.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, JOKER
from ..checks import is_int, need, need_list
from ..end_of_deal import dealer_in_turn, end_deal
from ..errors import InvalidDeal, InvalidOptions
from ..flow import Choices, Judged, Phase, Refusal, Step, each, one_seat, refusing
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..rng import shuffled
from ..seats import rank_seats
from .jewel_hands import (Arrangement, best_arrangement, declarer_arrangement, full_hand_arrangement,
                          is_valid_declaration, valid_declarations)
from .jewel_melds import (HAND_SIZE, INITIAL_PACK_PENALTY, JEWEL_PACK, MAX_KEPT_JEWELS, MID_PACK_PENALTY, DealRules,
                          SeatResult, best_kept_jewels, jewel_keep_choices, jewel_points, settle, sort_canonical)

OPEN_CARD_INDEX = 81            # where the service's shuffle finds the open card (spec 3)
MAX_SCORE = 2**53 - 1
ACTIVE, PACKED, MID_PACKED, WRONG, DECLARER = "active", "packed", "mid_packed", "wrong", "declarer"
PACK_PENALTY = MappingProxyType({PACKED: INITIAL_PACK_PENALTY, MID_PACKED: MID_PACK_PENALTY})
JEWELS = Param("cards", "0 to 2 jewels you hold, kept face up (left out: the most valuable choice)", optional=True)
MUST_DRAW_FIRST = Refusal("must_draw_first", "Draw a card first.")
ALREADY_DRAWN = Refusal("already_drawn", "You have drawn this turn: discard or declare.")
DECLARE_FIRST_ROUND = Refusal("declare_first_round", "Nobody but the dealer may declare on his first turn.")


@lru_cache(maxsize=256)
def deal_rules(open_card: Card, all_wild_groups: bool) -> DealRules:
    return DealRules(open_card, all_wild_groups)


def rules_of(state: State) -> DealRules:
    return deal_rules(state["open_card"], state["options"]["all_wild_groups"])


# The hand searches, remembered by hand: a state is checked by replaying its deal, so the same declaration and the
# same seventeen cards are judged again on every request of that deal.
@lru_cache(maxsize=4096)
def declares(hand: tuple[Card, ...], rules: DealRules) -> bool:
    return is_valid_declaration(hand, rules)


@lru_cache(maxsize=4096)
def declaring_discards(hand: tuple[Card, ...], rules: DealRules) -> tuple[Card, ...]:
    return tuple(valid_declarations(hand, rules))


class Declaring(NamedTuple):
    """What a declaration by the seat on turn depends on: may it declare now at all, and, where a wrong declaration
    is refused, the discards that leave a valid one (None: any card it holds)."""

    turn_refusal: Refusal | None
    valid: frozenset[Card] | None


def next_active(state: State, seat: int) -> int | None:
    """The next seat clockwise after ``seat`` still active (``seat`` itself last); None when nobody is."""
    n: int = state["players"]
    for step in range(1, n + 1):
        other = (seat + step) % n
        if state["status"][other] == ACTIVE:
            return other
    return None


class Jewel(Game):
    id = "jewel"
    name = "Jewel"
    summary = ("Three-pack rummy: draw and discard until one player shows a four-card run and four triples; "
               "jewels are wild and score; everyone settles pairwise on the differences.")
    min_players = 2
    max_players = 9
    default_players = 4
    options = (
        Option("rounds", "integer", 1, "Rounds of deals (every player deals once a round); 1 with nine players.",
               1, 100),
        Option("mid_pack_min_rounds", "integer", 2, "Turns a player must have completed before he may mid pack.",
               1, 50),
        Option("wrong_declaration", "choice", "penalize", "\"penalize\": a wrong declaration puts the player out "
               "with the full-hand penalty; \"reject\": it is refused as an illegal move.",
               choices=("penalize", "reject")),
        Option("all_wild_groups", "boolean", True, "Whether a triple of three wild cards is a valid group."),
    )
    actions = {
        "draw": Action("Draw the top card of the stock or of the discard pile.",
                       {"source": Param("string", "\"stock\" or \"discard\"", choices=("stock", "discard"))},
                       {"seat": 1, "action": "draw", "source": "stock"}),
        "pack": Action("Give up the deal on your first turn, keeping up to two jewels face up.",
                       {"jewels": JEWELS}, {"seat": 1, "action": "pack", "jewels": ["7S"]}),
        "mid_pack": Action("Give up the deal later (from your third turn by default), keeping up to two jewels.",
                           {"jewels": JEWELS}, {"seat": 1, "action": "mid_pack", "jewels": ["7S", "7S"]}),
        "discard": Action("End your turn by discarding a card face up.",
                          {"card": Param("card", "a card you hold")}, {"seat": 1, "action": "discard", "card": "KD"}),
        "declare": Action("Put a card face down and show the other sixteen as a complete arrangement.",
                          {"card": Param("card", "a card you hold, laid face down")},
                          {"seat": 1, "action": "declare", "card": "KD"}),
    }
    secret_keys = Game.secret_keys | {"stock"}
    sample_options = ({"wrong_declaration": "reject", "mid_pack_min_rounds": 1},
                      {"all_wild_groups": False, "first_dealer": 1},
                      {"rounds": 2, "mid_pack_min_rounds": 3})
    carried = ("deal_no", "scores")

    def build_phases(self) -> dict[str, Any]:
        seat = one_seat(self.turn_of)
        early = refusing(seat, refusal=lambda state, move: MUST_DRAW_FIRST)
        late = refusing(seat, refusal=lambda state, move: ALREADY_DRAWN)
        sources = Choices(each("draw", "source", lambda state, s: ("stock", "discard")), self.draw_refusal)
        return {
            "draw": Phase("draw", {"draw": Step(seat, sources, self.draw),
                                   "pack": Step(seat, self.packing("pack"), self.pack_up),
                                   "mid_pack": Step(seat, self.packing("mid_pack"), self.pack_up),
                                   "discard": early, "declare": early}, self.turn_of),
            "discard": Phase("discard", {
                "discard": Step(seat, Choices(each("discard", "card", self.codes), self.discard_refusal), self.discard),
                "declare": Step(seat, Judged(self.declaring, self.declare_choices, self.declare_refusal),
                                self.declare),
                "draw": late, "pack": late, "mid_pack": late}, self.turn_of),
        }

    def turn_of(self, state: State) -> int | None:
        turn: int = state["turn"]
        return turn

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return JEWEL_PACK

    def max_dealings(self, n: int, options: Options) -> int | None:
        return int(options["rounds"]) * n  # every player deals once a round

    def check_options(self, options: Options, n: int) -> None:
        if n == 9 and options["rounds"] != 1:
            raise InvalidOptions("With nine players a match is one round (the seats are cut again after it).",
                                 option="rounds")

    # ----- the deal -------------------------------------------------------------------------
    def initial(self, state: State) -> None:
        state.update(deal_no=0, scores=[0] * state["players"])

    def deal(self, state: State, events: list[Event]) -> None:
        """The next dealer, the open card, sixteen cards each, the rest as the stock (spec 3)."""
        n = state["players"]
        state["deal_no"] += 1
        dealer = state["dealer"] = dealer_in_turn(state, n)
        cards = self.next_deal(state)
        state.update(open_card=cards["rest"][0], hands=cards["hands"], stock=cards["rest"][1:],
                     stock_no=1, discard=[], status=[ACTIVE] * n, turns_completed=[0] * n,
                     kept=[[] for _ in range(n)], exposed=[[] for _ in range(n)], turn=(dealer + 1) % n,
                     phase="draw")
        rules = rules_of(state)
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": dealer,
                       "open_card": state["open_card"], "jewels": list(rules.jewels),
                       "stock_size": len(state["stock"])})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """The open card from index 81 (or the next non-joker, wrapping), then one card at a time from the
        dealer's left; the rest is the stock, top first (spec 3)."""
        n, dealer = state["players"], state["dealer"]
        at = OPEN_CARD_INDEX
        while cards[at % len(cards)] == JOKER:
            at += 1
        open_card = cards.pop(at % len(cards))
        hands: list[list[Card]] = [[] for _ in range(n)]
        for k in range(HAND_SIZE * n):
            hands[(dealer + 1 + k) % n].append(cards[k])
        return {"hands": hands, "rest": [open_card, *cards[HAND_SIZE * n:]]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND_SIZE)
        need_pack_deal(deal, JEWEL_PACK)
        if deal["rest"][0] == JOKER:
            raise InvalidDeal("The open card (the first card of 'rest') may not be a joker.")

    # ----- the rules, each decided once (for the legal moves and for the refusals) ----------------
    def packing(self, action: str) -> Judged[Counter[Card]]:
        """Pack or mid pack (4.3): when the seat may, keeping each choice of its jewels (a move that leaves the
        choice out is not listed), the jewels it names checked against its hand."""
        def moves(state: State, seat: int, hand: Counter[Card]) -> list[Move]:
            return [{"seat": seat, "action": action, "jewels": list(choice)}
                    for choice in jewel_keep_choices(state["hands"][seat], rules_of(state))]

        def refusal(state: State, move: Move, hand: Counter[Card]) -> Refusal | None:
            return self.jewels_refusal(state, move.get("jewels"), hand)

        def seat_refusal(state: State, seat: int) -> Refusal | None:
            return self.pack_refusal(state, action)

        return Judged(lambda state, seat: Counter(state["hands"][seat]), moves, refusal, seat_refusal)

    def codes(self, state: State, seat: int) -> list[Card]:
        """The distinct codes of the seat's hand, in canonical order: the cards it may discard or declare with."""
        return sort_canonical(set(state["hands"][seat]))

    def declare_choices(self, state: State, seat: int, declaring: Declaring) -> list[Move]:
        return [{"seat": seat, "action": "declare", "card": c} for c in self.codes(state, seat)]

    def draw_refusal(self, state: State, move: Move) -> Refusal | None:
        pile = state["discard"]
        if move["source"] == "discard" and not pile:
            return Refusal("discard_pile_empty", "The discard pile is empty: draw from the stock.")
        if move["source"] == "discard" and rules_of(state).is_wild_card(pile[-1]):
            return Refusal("wild_card_not_takeable", f"A joker or a jewel ({pile[-1]}) on the discard pile "
                           "can never be taken.", {"card": pile[-1]})
        return None

    def pack_refusal(self, state: State, action: str) -> Refusal | None:
        """Pack on the first turn only, mid pack from the ``mid_pack_min_rounds``-th completed turn on."""
        done = state["turns_completed"][state["turn"]]
        if action == "pack" and done >= 1:
            return Refusal("pack_only_first_turn", "You may pack only on your first turn; later you may mid "
                           "pack once you have completed enough turns.")
        least = state["options"]["mid_pack_min_rounds"]
        if action == "mid_pack" and done < least:
            return Refusal("mid_pack_too_early", f"You may mid pack once you have completed {least} turns "
                           f"(you have completed {done}).")
        return None

    def jewels_refusal(self, state: State, jewels: list[str] | None, hand: Counter[Card]) -> Refusal | None:
        """The jewels a packer names: at most two, each a jewel of his ``hand`` (none named: he keeps the best)."""
        if jewels is None:
            return None
        rules = rules_of(state)
        if len(jewels) > MAX_KEPT_JEWELS:
            return Refusal("too_many_jewels", "You may keep at most two jewels.")
        for card in jewels:
            if not rules.is_jewel(card):
                return Refusal("not_a_jewel", f"{card!r} is not a jewel this deal.", {"card": card})
        missing = Counter(jewels) - hand
        if missing:
            card = next(iter(missing))
            return Refusal("card_not_in_hand", f"You do not hold enough {card} to keep.", {"card": card})
        return None

    def discard_refusal(self, state: State, move: Move) -> Refusal | None:
        card = move["card"]
        if card not in state["hands"][state["turn"]]:
            return Refusal("card_not_in_hand", f"You do not hold {card}.", {"card": card})
        return None

    def first_turn_refusal(self, state: State, seat: int) -> Refusal | None:
        if state["turns_completed"][seat] == 0 and seat != state["dealer"]:
            return DECLARE_FIRST_ROUND
        return None

    def valid_discards(self, state: State, seat: int) -> list[Card]:
        """The codes whose discard from the seat's 17 cards leaves a valid declaration (4.5), in canonical order."""
        return list(declaring_discards(tuple(sort_canonical(state["hands"][seat])), rules_of(state)))

    def declaring(self, state: State, seat: int) -> Declaring:
        turn = self.first_turn_refusal(state, seat)
        if turn is not None or state["options"]["wrong_declaration"] != "reject":
            return Declaring(turn, None)
        return Declaring(None, frozenset(self.valid_discards(state, seat)))

    def declare_refusal(self, state: State, move: Move, declaring: Declaring) -> Refusal | None:
        """The card held; nobody but the dealer declares on his first turn; with "reject", only a valid declaration."""
        card = move["card"]
        refused = self.discard_refusal(state, move) or declaring.turn_refusal
        if refused is None and declaring.valid is not None and card not in declaring.valid:
            return Refusal("invalid_declaration", "These sixteen cards are not a compulsory sequence and four "
                           "triples with an auxiliary one.", {"card": card})
        return refused

    def declarable(self, state: State) -> list[Card]:
        """The codes whose discard now leaves a valid declaration; empty while declaring is not allowed."""
        seat = state["turn"]
        if state["phase"] != "discard" or self.first_turn_refusal(state, seat) is not None:
            return []
        return self.valid_discards(state, seat)

    # ----- moves ----------------------------------------------------------------------------------
    def draw(self, state: State, move: Move, events: list[Event]) -> None:
        seat = state["turn"]
        event: Event = {"type": "draw", "seat": seat, "source": move["source"]}
        if move["source"] == "stock":
            card = state["stock"].pop(0)
        else:
            card = event["card"] = state["discard"].pop()
        state["hands"][seat].append(card)
        state["phase"] = "discard"
        events.append(event)

    def pack_up(self, state: State, move: Move, events: list[Event]) -> None:
        """Pack or mid pack (4.3): kept jewels face up, every other card to the stock's bottom in canonical order."""
        seat, action, jewels = state["turn"], move["action"], move.get("jewels")
        hand = state["hands"][seat]
        kept = sort_canonical(jewels if jewels is not None else best_kept_jewels(hand, rules_of(state)))
        rest = Counter(hand) - Counter(kept)
        state["stock"] += sort_canonical(rest.elements())
        state["hands"][seat] = []
        state["kept"][seat] = kept
        state["status"][seat] = PACKED if action == "pack" else MID_PACKED
        events.append({"type": action, "seat": seat, "jewels": kept})
        self.end_turn(state, events)

    def discard(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = state["turn"], move["card"]
        state["hands"][seat].remove(card)
        state["discard"].append(card)
        state["turns_completed"][seat] += 1
        events.append({"type": "discard", "seat": seat, "card": card})
        self.end_turn(state, events)

    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        """A valid declaration ends the deal; a wrong one puts the player out, his card face up (4.4)."""
        seat, card = state["turn"], move["card"]
        hand = list(state["hands"][seat])
        hand.remove(card)
        valid = declares(tuple(sort_canonical(hand)), rules_of(state))
        state["hands"][seat] = hand
        state["discard"].append(card)  # face down on a valid declaration, face up ("chance card") on a wrong one
        if valid:
            state["status"][seat] = DECLARER
            events.append({"type": "declare", "seat": seat, "valid": True})
            self.end_deal(state, events, "declaration")
            return
        state["status"][seat] = WRONG
        state["exposed"][seat], state["hands"][seat] = hand, []
        events.append({"type": "declare", "seat": seat, "valid": False, "card": card, "hand": list(hand)})
        self.end_turn(state, events)

    def end_turn(self, state: State, events: list[Event]) -> None:
        """After a turn: nobody active ends the deal; an emptied stock is re-made once, then ends it (4.6, 4.7)."""
        after = next_active(state, state["turn"])
        if after is None:
            self.end_deal(state, events, "no_active_player")
            return
        if not state["stock"]:
            pile = state["discard"]
            if state["stock_no"] == 2 or len(pile) < 2:
                self.end_deal(state, events, "stock_exhausted")
                return
            label = f"{self.id}/{state['deal_no'] - 1}/remake"
            state.update(stock=shuffled(pile[:-1], state["seed"], label), discard=pile[-1:], stock_no=2)
            events.append({"type": "stock_remade", "stock_size": len(state["stock"]), "discard": pile[-1]})
        state["turn"] = after
        state["phase"] = "draw"

    # ----- the end of a deal ------------------------------------------------------------------------
    def end_deal(self, state: State, events: list[Event], end: str) -> None:
        """Score every seat (6.1, 6.2), settle the chart (6.3), then the next deal or the end of the match."""
        rules = rules_of(state)
        declarer = state["status"].index(DECLARER) if DECLARER in state["status"] else None
        results, records = [], []
        for seat, status in enumerate(state["status"]):
            if status in PACK_PENALTY:
                kept = state["kept"][seat]
                results.append(SeatResult(j=jewel_points(kept, rules), q=PACK_PENALTY[status]))
                records.append({"status": status, "kept_jewels": list(kept), "j": results[-1].j,
                                "q": PACK_PENALTY[status]})
                continue
            hand = state["exposed"][seat] if status == WRONG else state["hands"][seat]
            shown = (declarer_arrangement(hand, rules) if status == DECLARER else
                     full_hand_arrangement(hand, rules) if status == WRONG else best_arrangement(hand, rules))
            assert shown is not None  # a declarer's hand passed the declaration check
            results.append(SeatResult(j=jewel_points(hand, rules), s=shown.s))
            records.append({"status": status, "hand": sort_canonical(hand), "j": results[-1].j,
                            "bonus": shown.bonus, "penalty": shown.penalty, "s": shown.s,
                            "arrangement": arrangement_record(shown)})
        chart = settle(results, declarer)
        changes = list(chart.nets)
        state["scores"] = [a + b for a, b in zip(state["scores"], changes)]
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "changes": changes, "unit": "points", "open_card": state["open_card"], "end": end,
                       "declarer": declarer, "seats": records, "matrix": [list(row) for row in chart.matrix]})
        over = state["deal_no"] == state["options"]["rounds"] * state["players"]
        end_deal(self, state, events, over, final=lambda s: {"scores": list(s["scores"])})

    # ----- views, results and the totals carried between deals -----------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Besides the hands: the stock's size but not its cards, and the seat on turn's valid declarations."""
        out = super().view(state, seat)
        out["stock_size"] = len(state["stock"])
        out["valid_declarations"] = (self.declarable(state) if seat is not None and seat == state["turn"]
                                     and state["phase"] != OVER else [])
        return out

    def envelope_extras(self, state: State) -> dict[str, Any]:
        return {"valid_declarations": self.declarable(state)}

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, scores = state["players"], state["scores"]
        ranking = rank_seats(n, lambda s: (-scores[s], s))
        places = [1 + sum(1 for other in scores if other > scores[s]) for s in range(n)]
        return {"scores": list(scores), "payoffs": list(scores), "ranking": ranking, "places": places}

    def card_groups(self, state: State) -> list[Any]:
        return [*state["hands"], state["stock"], state["discard"], [state["open_card"]], *state["kept"],
                *state["exposed"]]

    def check_carried(self, state: State) -> None:
        """Before a deal: as many deals finished as dealt, scores that are safe integers summing to zero."""
        n = state["players"]
        need(is_int(state["deal_no"], 0, state["options"]["rounds"] * n - 1), "'deal_no' is out of range.")
        need(state["dealings"] == state["deal_no"], "'dealings' does not fit the deals played.")
        scores = need_list(state["scores"], "scores", n)
        need(all(is_int(x, -MAX_SCORE, MAX_SCORE) for x in scores), "'scores' must be whole numbers in range.")
        need(sum(scores) == 0, "'scores' must add up to zero.")


def arrangement_record(shown: Arrangement) -> dict[str, Any]:
    """How a hand was shown: the compulsory sequence (or null), the triples, the unarranged cards."""
    return {"compulsory": list(shown.compulsory.cards) if shown.compulsory else None,
            "triples": [{"kind": g.kind, "cards": list(g.cards), "bonus": g.bonus} for g in shown.triples],
            "unarranged": list(shown.unarranged), "full_hand": shown.full_hand}


GAME = Jewel()
