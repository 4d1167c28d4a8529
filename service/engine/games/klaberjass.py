"""Klaberjass: two-hand, three-hand and partnership, to 500. Rules: docs/games/klaberjass.md.

32 cards (7 to A). Trumps rank J 9 A T K Q 8 7, plain suits A T K Q J 9 8 7. The turn-up proposes trumps; two
bidding rounds (take / pass / schmeiss, then name another suit); with 2-3 players the hands are then completed
to nine and the 7 of trumps may be exchanged for the turn-up (the dix); partners may double (Kontra, Rekontra).
After the opening lead every seat declares its sequences in a hidden move; the best one wins for its side.
Bella, the last trick, the maker's duty to outscore, a held pool after a tied deal, and claims of the target
in or out of turn (a false claim forfeits the claimant's deal) complete the scoring (klaberjass_scoring).

Sides: a seat (2 and 3 players) or a team, seats 0+2 against 1+3 (4 players).
Carried from deal to deal: deal_no (annulled deals count), scores (per seat; partners equal), held (the pool).
Each deal has: dealer, hands, rest (undealt stock, hidden), turn_up, bottom (the exposed bottom card), calls
(the bidding, ``[seat, verb]`` or ``[seat, "name_trump", suit]``), trump, maker, multiplier, asked (seats asked so far
in the dix, kontra, rekontra or declarations step), tricks, trick, declared (per seat; a view shows only its
own), sequences (the public outcome of the comparison), bella (the side that scored it), false_claims (sides),
winner (the match's winning side, once it is over).
"""
from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_pack_deal
from ..cards import Card, PIQUET_PACK, card_name, suit_name
from ..checks import is_int, need, need_list
from ..end_of_deal import close_match, dealer_in_turn, end_deal
from ..errors import InvalidDeal
from ..flow import Choices, Flagged, Judged, Phase, Refusal, SeatRefusal, Step, anyone, each, one_seat, refusing, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..seats import left, order_from
from ..tricks import TrickPlay, TrickRules, TrickTable
from . import klaberjass_scoring as sc

TABLES = MappingProxyType({
    (head, over): TrickTable(TrickRules(order="789JQKTA", trump_order="78QKTA9J", must_trump=True,
                                        head_trumps=head, overtrump=over, undertrump="required"))
    for head in (False, True) for over in (False, True)})
SUIT = Param("string", "a suit: C, D, H or S", choices=("C", "D", "H", "S"))
SAFE = 2**53 - 1
PLAY_PHASES = ("play", "declarations")
KONTRA_NOT_AVAILABLE = Refusal("kontra_not_available", "Kontra and Rekontra are only played by partners (and only "
                               "with the option \"kontra\").")
SCHMEISS_NOT_AVAILABLE = Refusal("schmeiss_not_available", "Schmeiss is not allowed at this table.")
CLAIM_NOT_NOW = Refusal("wrong_phase", "A claim is only possible while the cards are played.")
CLAIM_NOT_AVAILABLE = Refusal("claim_not_available", "Your side has already made a false claim in this deal.")
NOT_BELLA_CARD = Refusal("bella_not_available", "Bella is declared with the king or queen of trumps.")


def side_of(n: int, seat: int) -> int:
    return seat % 2 if n == 4 else seat


def sides(n: int) -> int:
    return 3 if n == 3 else 2


def members(n: int, side: int) -> list[int]:
    return [side, side + 2] if n == 4 else [side]


def _act(doc: str, example: dict[str, Any], **params: Param) -> Action:
    return Action(doc, params, example)


class Klaberjass(Game):
    id = "klaberjass"
    name = "Klaberjass"
    summary = "Two-hand (also three-hand and partnership) Jass game: bid trumps, declare sequences, first to 500."
    min_players = 2
    max_players = 4
    default_players = 2
    options = (
        Option("target", "integer", 500, "Match score that wins (by a claim or at a deal's settlement).", 1, 10**9),
        Option("bella_timing", "choice", "consecutive", "Bella's two cards in consecutive tricks (\"consecutive\") "
               "or at any time (\"any\").", choices=("consecutive", "any")),
        Option("schmeiss", "boolean", True, "Two-hand: allow the schmeiss offer."),
        Option("head_trump_lead", "boolean", False, "On a trump lead, beat the highest trump if able."),
        Option("overtrump", "boolean", False, "Void in a plain lead already trumped, beat the highest trump if able."),
        Option("kontra", "boolean", True, "Partnership: the Kontra/Rekontra step."),
        Option("show_bottom_card", "boolean", True, "Two-/three-hand: expose the stock's bottom card."),
    )
    actions = {
        "take": _act("Round 1: become maker with the turn-up's suit as trumps.", {"seat": 1, "action": "take"}),
        "pass": _act("Pass (bidding, Kontra or Rekontra).", {"seat": 1, "action": "pass"}),
        "schmeiss": _act("Two-hand: offer to be maker or annul; partnership: a pass that signals a weak hand.",
                         {"seat": 1, "action": "schmeiss"}),
        "answer_schmeiss": _act("Answer a schmeiss: annul the deal, or let the schmeisser be maker.",
                                {"seat": 0, "action": "answer_schmeiss", "annul": False},
                                annul=Param("boolean", "true: the deal is annulled")),
        "name_trump": _act("Round 2 (or after a refused schmeiss): become maker with another suit as trumps.",
                           {"seat": 1, "action": "name_trump", "suit": "S"}, suit=SUIT),
        "exchange_dix": _act("Exchange the 7 of trumps for the turn-up.", {"seat": 0, "action": "exchange_dix"}),
        "pass_dix": _act("Keep your hand (the dix step).", {"seat": 0, "action": "pass_dix"}),
        "kontra": _act("Partnership: double the deal.", {"seat": 2, "action": "kontra"}),
        "rekontra": _act("Partnership: redouble after a Kontra.", {"seat": 1, "action": "rekontra"}),
        "play": _act("Play a card; \"bella\": true declares Bella with the second of the trump K and Q.",
                     {"seat": 1, "action": "play", "card": "AS"}, card=Param("card", "a card you hold"),
                     bella=Param("boolean", "declare Bella with this card", optional=True)),
        "declare": _act("Declare sequences (maximal runs of your hand), hidden until compared.",
                        {"seat": 1, "action": "declare", "sequences": [["KH", "QH", "JH"]]},
                        sequences=Param("runs", "maximal runs of your hand")),
        "claim": _act("Claim that your side has reached the target (in or out of turn).",
                      {"seat": 0, "action": "claim"}),
    }
    sample_options = ({"head_trump_lead": True, "overtrump": True, "bella_timing": "any"},
                      {"schmeiss": False, "show_bottom_card": False, "kontra": False, "first_dealer": 1},
                      {"target": 200})
    carried = ("deal_no", "scores", "held")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(
            table=lambda s: TABLES[(s["options"]["head_trump_lead"], s["options"]["overtrump"])],
            trump=lambda s: s["trump"], first_leader=self.eldest, end_deal=self.settle,
            deal_over=lambda s: len(s["tricks"]) == (8 if s["players"] == 4 else 9))
        always: Callable[[State], bool] = lambda s: True
        bid, answerer, schmeisser = one_seat(self.bidder), one_seat(self.answerer), one_seat(self.schmeisser)
        dix, kontra, rekontra = one_seat(self.dix_seat), one_seat(self.kontra_seat), one_seat(self.rekontra_seat)
        suits = Choices(each("name_trump", "suit", lambda state, seat: "CDHS"), self.suit_refusal)
        table: dict[str, tuple[Callable[[State], int], dict[str, Step]]] = {
            "bidding": (self.bidder, {  # the suits first: round 2 lists them before the pass
                "name_trump": Step(bid, suits, self.name_trump, "bid",
                                   early=self.gate("name_trump", lambda s: self.round(s) == 2)),
                "take": Step(bid, Choices(verbs("take")), self.take, "bid",
                             early=self.gate("take", lambda s: self.round(s) == 1)),
                "pass": Step(bid, Choices(verbs("pass")), self.pass_bid, "bid", early=self.gate("pass", always)),
                "schmeiss": Step(bid, Choices(verbs("schmeiss")), self.schmeiss, "bid",
                                 early=self.gate("schmeiss", always)),
            }),
            "schmeiss_answer": (self.answerer, {"answer_schmeiss": Step(
                answerer, Choices(each("answer_schmeiss", "annul", lambda state, seat: (False, True))),
                self.answer_schmeiss, "answer the schmeiss")}),
            "name_after_schmeiss": (self.schmeisser, {"name_trump": Step(
                schmeisser, suits, self.name_trump, "name trumps")}),
            "dix": (self.dix_seat, {
                "exchange_dix": Step(dix, Choices(verbs("exchange_dix"), seat_refusal=self.dix_refusal),
                                     self.exchange_dix, "exchange the dix or pass"),
                "pass_dix": Step(dix, Choices(verbs("pass_dix")), self.pass_dix, "exchange the dix or pass"),
            }),
            "kontra": (self.kontra_seat, {
                "kontra": Step(kontra, Choices(verbs("kontra")), self.kontra, "say Kontra or pass",
                               early=self.gate("kontra", always)),
                "pass": Step(kontra, Choices(verbs("pass")), self.pass_double, "say Kontra or pass"),
            }),
            "rekontra": (self.rekontra_seat, {
                "rekontra": Step(rekontra, Choices(verbs("rekontra")), self.rekontra, "say Rekontra or pass",
                                 early=self.gate("rekontra", always)),
                "pass": Step(rekontra, Choices(verbs("pass")), self.pass_double, "say Rekontra or pass"),
            }),
            "declarations": (self.declarer, {"declare": Step(
                one_seat(self.declarer), Judged(self.runs_of, self.declaration_choices, self.declaration_refusal),
                self.declare, "declare")}),
            "play": (self.tricks.on_turn, {"play": Step(
                self.tricks.seats, Flagged(self.tricks, "bella", self.bella_refusal), self.play)}),
        }
        claim = Step(anyone, Choices(verbs("claim")), self.claim, "claim", early=self.claim_gate)
        no_claim = refusing(anyone, "claim", early=lambda state, seat, action: CLAIM_NOT_NOW)
        phases = {}
        for name, (turn, steps) in table.items():
            others = {verb: refusing(one_seat(turn), "move", early=self.gate(verb, None))
                      for verb in self.actions if verb not in steps and verb != "claim"}
            claims = claim if name in PLAY_PHASES else no_claim
            phases[name] = Phase(name, {**steps, **others, "claim": claims}, turn)
        return phases

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return PIQUET_PACK

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        state.update(deal_no=0, scores=[0] * state["players"], held=0)

    def deal(self, state: State, events: list[Event]) -> None:
        """The next dealer in rotation (annulled deals count), six cards each and the turn-up (partnership:
        eight each, the dealer's last card face up), then the bidding."""
        n = state["players"]
        state["deal_no"] += 1
        dealer = dealer_in_turn(state, n)
        state["dealer"] = dealer
        cards = self.next_deal(state)
        hands, turn_up, rest = cards["hands"], cards["rest"][0], cards["rest"][1:]
        if n == 4:
            hands[dealer].append(turn_up)
        state.update(hands=hands, rest=rest, turn_up=turn_up, bottom=None, calls=[], trump=None, maker=None,
                     multiplier=1, asked=0, tricks=[], trick={"plays": []}, declared=[None] * n, sequences=None,
                     bella=None, false_claims=[], winner=None, phase="bidding")
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": dealer, "turn_up": turn_up})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """In threes from eldest (section 3); partnership in batches 3-2-3, the dealer's last card the turn-up."""
        n = state["players"]
        order = order_from(left(state["dealer"], n), n)
        hands: list[list[Card]] = [[] for _ in range(n)]
        if n < 4:
            for i, seat in enumerate(order):
                hands[seat] = cards[3 * i:3 * i + 3] + cards[3 * n + 3 * i:3 * n + 3 * i + 3]
            return {"hands": hands, "rest": cards[6 * n:]}
        for i, seat in enumerate(order):
            hands[seat] = cards[3 * i:3 * i + 3] + cards[12 + 2 * i:14 + 2 * i] + cards[20 + 3 * i:23 + 3 * i]
        dealer = order[-1]
        hands[dealer], turn_up = hands[dealer][:7], hands[dealer][7]
        return {"hands": hands, "rest": [turn_up]}

    def validate_deal_at(self, deal: Deal, n: int, options: Options, index: int) -> None:
        """Six cards each and the rest with the turn-up first; partnership: eight each, seven for the dealer of
        this deal (ruling R24), and the turn-up alone in the rest."""
        dealer = (options["first_dealer"] + index) % n
        for seat, hand in enumerate(deal["hands"]):
            size = 6 if n < 4 else 7 if seat == dealer else 8
            if len(hand) != size:
                raise InvalidDeal(f"Seat {seat} must be dealt {size} cards, not {len(hand)}.")
        if len(deal["rest"]) != 32 - sum(len(h) for h in deal["hands"]):
            raise InvalidDeal("The rest must hold the turn-up and the stock.")
        need_pack_deal(deal, PIQUET_PACK)

    # ----- seats on turn ----------------------------------------------------------------
    def eldest(self, state: State) -> int:
        return left(state["dealer"], state["players"])

    def round(self, state: State) -> int:
        return 1 if len(state["calls"]) < state["players"] else 2

    def bidder(self, state: State) -> int:
        return (self.eldest(state) + len(state["calls"])) % int(state["players"])

    def schmeisser(self, state: State) -> int:
        return int(state["calls"][-1][0])

    def answerer(self, state: State) -> int:
        return 1 - self.schmeisser(state)

    def dix_seat(self, state: State) -> int:
        return (self.eldest(state) + int(state["asked"])) % int(state["players"])

    def kontra_seat(self, state: State) -> int:
        return (int(state["maker"]) + 1 + 2 * int(state["asked"])) % 4

    def rekontra_seat(self, state: State) -> int:
        return (int(state["maker"]) + 2 * int(state["asked"])) % 4

    def leader(self, state: State) -> int:
        return int(state["trick"]["plays"][0][0]) if state["trick"]["plays"] else self.eldest(state)

    def declarer(self, state: State) -> int:
        return (self.leader(state) + int(state["asked"])) % int(state["players"])

    # ----- refusals before the parameters (rulings R21, R22) ------------------------------
    def schmeiss_allowed(self, state: State) -> bool:
        return state["players"] == 4 or (state["players"] == 2 and bool(state["options"]["schmeiss"]))

    def gate(self, verb: str, open_now: Callable[[State], bool] | None) -> SeatRefusal:
        """A verb this table never allows gets its own reason in every phase; else a verb not open in this
        step (``open_now`` None: not in this phase at all) is ``wrong_phase``."""
        def early(state: State, seat: int, action: str) -> Refusal | None:
            if verb in ("kontra", "rekontra") and not (state["players"] == 4 and state["options"]["kontra"]):
                return KONTRA_NOT_AVAILABLE
            if verb == "schmeiss" and not self.schmeiss_allowed(state):
                return SCHMEISS_NOT_AVAILABLE
            if open_now is None or not open_now(state):
                return Refusal("wrong_phase", f"'{verb}' is not possible now ({state['phase']} phase"
                               + (f", bidding round {self.round(state)})." if state["phase"] == "bidding" else ")."))
            return None
        return early

    def claim_gate(self, state: State, seat: int, action: str) -> Refusal | None:
        false = state["false_claims"]
        return CLAIM_NOT_AVAILABLE if false and side_of(state["players"], seat) in false else None

    # ----- bidding ----------------------------------------------------------------------
    def suit_refusal(self, state: State, move: Move) -> Refusal | None:
        """Round 2 (or after a refused schmeiss) names a suit other than the turn-up's."""
        if move["suit"] == state["turn_up"][1]:
            return Refusal("turn_up_suit_not_allowed", f"Name a suit other than the turn-up's "
                           f"({suit_name(state['turn_up'][1])}).")
        return None

    def take(self, state: State, move: Move, events: list[Event]) -> None:
        self.call(state, move, events)
        self.fix_trump(state, move["seat"], state["turn_up"][1], events)

    def call(self, state: State, move: Move, events: list[Event]) -> None:
        state["calls"].append([move["seat"], move["action"], *([move["suit"]] if "suit" in move else [])])
        events.append({k: v for k, v in {"type": move["action"], **move}.items() if k != "action"})

    def pass_bid(self, state: State, move: Move, events: list[Event]) -> None:
        self.call(state, move, events)
        if len(state["calls"]) == 2 * state["players"]:
            self.annul(state, "all_passed", events)

    def schmeiss(self, state: State, move: Move, events: list[Event]) -> None:
        """Two-hand: an offer the other player answers. Partnership: a pass with a weak-hand signal; four of
        them in round 1 kill the hand."""
        if state["players"] == 2:
            self.call(state, move, events)
            state["phase"] = "schmeiss_answer"
        elif len(state["calls"]) == 3 and all(c[1] == "schmeiss" for c in state["calls"]):
            self.call(state, move, events)
            self.annul(state, "dead_hand", events)
        else:
            self.pass_bid(state, move, events)

    def answer_schmeiss(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "answer_schmeiss", "seat": move["seat"], "annul": move["annul"]})
        if move["annul"]:
            self.annul(state, "schmeiss", events)
        elif len(state["calls"]) <= state["players"]:  # the schmeiss was said in round 1
            self.fix_trump(state, self.schmeisser(state), state["turn_up"][1], events)
        else:
            state["phase"] = "name_after_schmeiss"

    def name_trump(self, state: State, move: Move, events: list[Event]) -> None:
        self.call(state, move, events)
        self.fix_trump(state, move["seat"], move["suit"], events)

    def annul(self, state: State, reason: str, events: list[Event]) -> None:
        """No cards played, no score changes, the held pool stays; the next dealer deals."""
        events.append({"type": "redealt", "deal": state["deal_no"], "dealer": state["dealer"], "reason": reason})
        self.new_deal(state, events)

    def fix_trump(self, state: State, maker: int, suit: str, events: list[Event]) -> None:
        """A maker exists: with 2-3 players three more cards each (and the bottom card shown), then the dix
        step (trumps fixed in round 1, the 7 neither the turn-up nor the bottom card), or Kontra, or play."""
        n = state["players"]
        state["maker"], state["trump"] = maker, suit
        event: Event = {"type": "trump_fixed", "maker": maker, "trump": suit}
        if n < 4:
            rest, hands = state["rest"], state["hands"]
            for i, seat in enumerate(order_from(self.eldest(state), n)):
                hands[seat].extend(rest[3 * i:3 * i + 3])
            del rest[:3 * n]
            if state["options"]["show_bottom_card"]:
                state["bottom"] = event["bottom"] = rest.pop()
        events.append(event)
        dix = "7" + suit
        if n < 4 and suit == state["turn_up"][1] and dix not in (state["turn_up"], state["bottom"]):
            state["phase"] = "dix"
        elif n == 4 and state["options"]["kontra"]:
            state["phase"] = "kontra"
        else:
            state["phase"] = "play"

    # ----- dix, Kontra, Rekontra ----------------------------------------------------------
    def dix_refusal(self, state: State, seat: int) -> Refusal | None:
        dix = "7" + state["trump"]
        if dix not in state["hands"][seat]:
            return Refusal("no_dix", f"You do not hold the {card_name(dix)}.")
        return None

    def exchange_dix(self, state: State, move: Move, events: list[Event]) -> None:
        seat, dix = move["seat"], "7" + state["trump"]
        hand = state["hands"][seat]
        hand[hand.index(dix)] = state["turn_up"]
        state["turn_up"] = dix
        events.append({"type": "exchange_dix", "seat": seat})
        self.next_asked(state, "play")

    def pass_dix(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "pass_dix", "seat": move["seat"]})
        self.next_asked(state, "play")

    def next_asked(self, state: State, then: str) -> None:
        state["asked"] += 1
        if state["asked"] == (2 if state["phase"] in ("kontra", "rekontra") else state["players"]):
            state["asked"], state["phase"] = 0, then

    def kontra(self, state: State, move: Move, events: list[Event]) -> None:
        state.update(multiplier=2, asked=0, phase="rekontra")
        events.append({"type": "kontra", "seat": move["seat"]})

    def rekontra(self, state: State, move: Move, events: list[Event]) -> None:
        state.update(multiplier=4, asked=0, phase="play")
        events.append({"type": "rekontra", "seat": move["seat"]})

    def pass_double(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "pass", "seat": move["seat"]})
        self.next_asked(state, "play")

    # ----- declarations -----------------------------------------------------------------
    def declaration_hand(self, state: State, seat: int) -> list[Card]:
        """The seat's hand, with the card it led if it led (the whole hand as dealt, ruling R8)."""
        hand = list(state["hands"][seat])
        plays = state["trick"]["plays"]
        return hand + [plays[0][1]] if plays and plays[0][0] == seat else hand

    def runs_of(self, state: State, seat: int) -> list[list[Card]]:
        """The seat's sequences: the maximal runs of three or more cards of one suit of its hand as dealt."""
        return sc.maximal_runs(self.declaration_hand(state, seat))

    def declaration_choices(self, state: State, seat: int, runs: list[list[Card]]) -> list[Move]:
        """Every subset of the seat's runs, in the order of its runs."""
        subsets: list[list[list[Card]]] = [[]]
        for run in runs:
            subsets += [subset + [run] for subset in subsets]
        return [{"seat": seat, "action": "declare", "sequences": s} for s in subsets]

    def declaration_refusal(self, state: State, move: Move, runs: list[list[Card]]) -> Refusal | None:
        """Whole runs of the hand, each declared once."""
        chosen = [sc.normal_run(s) for s in move["sequences"]]
        if any(run not in runs for run in chosen):
            return Refusal("invalid_sequence", "Each sequence must be a whole run of three or more cards of one "
                           "suit in your hand, not extendable at either end.")
        if len({tuple(run) for run in chosen}) < len(chosen):
            return Refusal("invalid_sequence", "A sequence may be declared only once.")
        return None

    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        chosen = [sc.normal_run(s) for s in move["sequences"]]
        state["declared"][seat] = [run for run in self.runs_of(state, seat) if run in chosen]
        events.append({"type": "declare", "seat": seat})
        state["asked"] += 1
        if state["asked"] == state["players"]:
            n = state["players"]
            declared = [(side_of(n, s), s, run) for s in order_from(self.leader(state), n)
                        for run in state["declared"][s]]
            state.update(sequences=sc.compare(declared, state["trump"]), asked=0, phase="play")
            events.append({"type": "sequences_compared", **state["sequences"]})

    # ----- play -------------------------------------------------------------------------
    def bella_refusal(self, state: State, move: Move) -> Refusal | None:
        """Bella (6.3): the second of the trump K and Q, the first played by the same player (or partner),
        by default in the trick before (or, by a partner, earlier in the same trick). Checked after the card's
        duties (ruling R23): a legal play of the card may declare it, listed twice, without and with it."""
        card, trump = move["card"], state["trump"]
        if card[1] != trump or card[0] not in "KQ":
            return NOT_BELLA_CARD
        seat, n = move["seat"], state["players"]
        other = ("Q" if card[0] == "K" else "K") + trump
        tricks = [t["plays"] for t in state["tricks"]] + [state["trick"]["plays"]]
        found = [(i, s) for i, plays in enumerate(tricks) for s, c in plays if c == other]
        if not found or side_of(n, found[0][1]) != side_of(n, seat):
            return Refusal("bella_not_available", f"Your side has not played the {card_name(other)}.")
        index, now = found[0][0], len(tricks) - 1
        if state["options"]["bella_timing"] == "consecutive" and not (index == now - 1 or (n == 4 and index == now)):
            return Refusal("bella_not_consecutive", f"The {card_name(other)} was not played in the trick before.")
        return None

    def play(self, state: State, move: Move, events: list[Event]) -> None:
        """A card to the trick (TrickPlay), Bella with it if declared. The deal's opening lead opens the
        declarations."""
        seat = move["seat"]
        if move.get("bella"):
            state["bella"] = side_of(state["players"], seat)
            events.append({"type": "bella", "seat": seat, "card": move["card"]})
        opening = not state["tricks"] and not state["trick"]["plays"]
        self.tricks.play(state, move, events)
        if opening:
            state.update(phase="declarations", asked=0)

    def won(self, state: State, side: int) -> tuple[int, bool]:
        """Card points of the completed tricks ``side`` won, and whether it won any."""
        n, points = state["players"], sc.POINTS_UNDER.get(state["trump"], {})  # no trump: no tricks yet
        total, any_trick = 0, False
        for trick in state["tricks"]:
            if side_of(n, trick["winner"]) == side:
                any_trick = True
                for _seat, card in trick["plays"]:
                    total += points[card]
        return total, any_trick

    def deal_points(self, state: State, side: int, last: bool) -> int:
        """m x (card points won + Bella + sequences if credited + the last trick when ``last``)."""
        points, any_trick = self.won(state, side)
        seq = state["sequences"] or {}
        if seq.get("winner") == side and any_trick:
            points += seq["points"]
        if state["bella"] == side:
            points += sc.BELLA
        if last and side_of(state["players"], state["tricks"][-1]["winner"]) == side:
            points += sc.LAST_TRICK
        return int(state["multiplier"] * points)

    def running(self, state: State, side: int) -> int:
        """The running total that judges a claim (6.5): no held pool, no last trick."""
        return int(state["scores"][members(state["players"], side)[0]]) + self.deal_points(state, side, False)

    def claim(self, state: State, move: Move, events: list[Event]) -> None:
        n, seat = state["players"], move["seat"]
        side = side_of(n, seat)
        total = self.running(state, side)
        true = total >= state["options"]["target"]
        events.append({"type": "claim", "seat": seat, "correct": true, "running": total})
        if not true:
            state["false_claims"].append(side)
            return
        state["scores"] = [self.running(state, side_of(n, s)) for s in range(n)]
        self.end_match(state, side, events)

    def settle(self, state: State, events: list[Event]) -> None:
        """6.6 and 6.7: the deal's scores, added side by side (non-makers first) until one reaches the target."""
        n = state["players"]
        raw = [self.deal_points(state, side, True) for side in range(sides(n))]
        maker = side_of(n, state["maker"])
        score, deal_winner, state["held"] = sc.settle(raw, maker, state["false_claims"], state["held"])
        changes = [0] * n
        reached = None
        for side in sc.tally_order(maker, sides(n)):
            for s in members(n, side):
                changes[s] = score[side]
                state["scores"][s] += score[side]
            if state["scores"][side] >= state["options"]["target"]:
                reached = side
                break
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "changes": changes, "unit": "points", "winner": deal_winner, "raw": raw, "held": state["held"]})
        state["winner"] = reached  # None if no side reached the target: the match goes on
        end_deal(self, state, events, reached is not None, final=lambda s: {"winner": s["winner"]})

    def end_match(self, state: State, side: int, events: list[Event]) -> None:
        state["winner"] = side
        close_match(state, events, {"winner": side})

    # ----- views and the end ---------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """No seat sees another's declaration (the winning side's runs are public in ``sequences``)."""
        out = super().view(state, seat)
        if "declared" in out:
            out["declared"] = [d if s == seat else None for s, d in enumerate(state["declared"])]
        return out

    def exposed_cards(self, state: State) -> set[Card]:
        """The turn-up in a hand (partnership dealer, a dix exchange) and the shown sequences' cards."""
        shown = {c for _s, run in (state.get("sequences") or {}).get("shown", []) for c in run}
        shown.add(state["turn_up"])
        return shown

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, win = state["players"], state["winner"]
        scores = list(state["scores"])
        winners = members(n, win)
        others = sorted((s for s in range(n) if s not in winners),
                        key=lambda s: (-scores[s], side_of(n, s), s))
        share = {2: (1, -1), 3: (2, -1), 4: (1, -1)}[n]
        return {"scores": scores, "winner": win, "ranking": winners + others,
                "payoffs": [share[0] if s in winners else share[1] for s in range(n)]}

    def partnerships(self, state: State) -> list[list[int]] | None:
        """With four, two partnerships: a forfeit loses for the seat's side (docs/games/klaberjass.md)."""
        n = state["players"]
        return [members(n, 0), members(n, 1)] if n == 4 else None

    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        table = [state["turn_up"]] if state["players"] < 4 else []
        return [*state["hands"], state["rest"], table, [state["bottom"]] if state["bottom"] else [], played]

    def check_carried(self, state: State) -> None:
        """Before a deal: one dealing per deal so far; scores whole, below the target (else the match
        would be over), partners level; the held pool a safe whole number."""
        n, target = state["players"], state["options"]["target"]
        need(state["deal_no"] == state["dealings"], "'deal_no' must count the deals dealt.")  # one dealing each
        scores = need_list(state["scores"], "scores", n)
        need(all(is_int(x, 0, target - 1) for x in scores), "'scores' must be whole numbers below the target.")
        need(n != 4 or (scores[0] == scores[2] and scores[1] == scores[3]), "Partners must have the same score.")
        need(is_int(state["held"], 0, SAFE), "'held' must be a whole number from 0 to 2^53 - 1.")


GAME = Klaberjass()
