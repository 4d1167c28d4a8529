"""Zwikken: the Dutch three-hand pot game of Zwicken. Rules: docs/games/zwikken.md.

Exactly 3 players, each for himself, 20 cards (A K Q J T of each suit, ranking in that order).
Every deal each seat stakes into a pot that is carried from deal to deal. Three cards each (1+2);
the next card is turned for trumps, the other ten are the stock.

Bidding: in a bidding turn each seat, eldest first, has one chance to offer to play for part of the
pot (a rising integer amount, 1..pot; option: only a third, a half or the whole pot) or to pass.
The highest offer makes the shooter and his contract amount ``a``. If all pass, the dealer may
turn again (everyone pays 1 chip, the turn-up is set aside dead, the top stock card is the new
turn-up) or annul the deal; after ``max_turns`` turns passed out the deal is annulled (R2).

Then anyone holding the trump Ten may exchange it for the turn-up (R3). A zwik (three of a kind)
is shown automatically (R5): the best one decides the deal at once; the shooter's own wins him
``a``, another player's wins that player the pot (option: ``a``), after which the shooter pays
``a`` into the pot (R4). Otherwise three tricks: eldest leads (R7); follow suit, else trump and
overtrump, the undertrump option deciding when one cannot overtrump (R6). The shooter succeeds
with two or three tricks, or with one trick holding more card-points (A4 K3 Q2 J1 T0) than the
other two together; he then takes ``a`` from the pot, else pays ``a`` into it.

Match: ``deals`` deals (annulled ones count), or until a deal ends with a balance <= 0 (``"bust"``);
the pot left over is shared equally, odd chips clockwise from the last deal's eldest. Safe integers
(our ruling, the spec is silent): a failed shooter can double the pot, so the match also ends after a deal
that leaves the pot or a balance beyond +-2^51; no deal can then take a count past 2^53 - 1.

Carried from deal to deal: deal_no, chips (balances), pot. Each deal has: dealer, turns (bidding turns held),
bids (this turn's offers from eldest on: amount or null), shooter, amount, hands, turn_up, dead (set-aside
turn-ups, face up), rest (the stock, top first; hidden), tricks, trick. Each deal's outcome is in the
``deal_settled`` event of the move that ends it.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, make_pack
from ..checks import is_int, need, need_int, need_list
from ..end_of_deal import News, dealer_in_turn, end_deal
from ..errors import InvalidDeal, InvalidOptions
from ..flow import Choices, Phase, Refusal, Step, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import left, order_from, rank_seats
from ..tricks import TrickPlay, TrickRules, TrickTable

SEATS = 3
HAND = 3
TRICKS = 3
ORDER = "TJQKA"                       # low to high, in every suit
PACK = make_pack(ORDER)
STOCK = len(PACK) - SEATS * HAND - 1  # 10 cards under the first turn-up
POINTS = MappingProxyType({"A": 4, "K": 3, "Q": 2, "J": 1, "T": 0})
# Between deals no count passes this (the match ends first): one more deal can at most double the pot and add
# the stakes and re-turns (at most 3 * 1,000,002), so every count stays within 2^53 - 1.
SAFE = 2**51
# Spec names of the undertrump option -> the core's undertrump policy (R6).
UNDERTRUMP = MappingProxyType({"required": "required", "allowed": "allowed",
                               "forbidden_unless_forced": "forbidden"})
TABLES = MappingProxyType({name: TrickTable(TrickRules(order=ORDER, must_trump=True, overtrump=True,
                                                       undertrump=policy))
                           for name, policy in UNDERTRUMP.items()})


def _simple(verb: str, doc: str, seat: int) -> Action:
    return Action(doc, example={"seat": seat, "action": verb})


# ----- rules as small pure functions ------------------------------------------------------------
def fractions(pot: int) -> list[int]:
    """The amounts allowed under ``bid_amounts = "fractions"``: a third, a half or the whole pot.

    >>> fractions(7)
    [2, 3, 7]
    """
    return sorted({x for x in (pot // 3, pot // 2, pot) if x >= 1})


def best_zwik(hands: list[list[Card]]) -> tuple[int, str] | None:
    """(seat, rank) of the highest three of a kind held, if any."""
    for r in reversed(ORDER):
        for seat, hand in enumerate(hands):
            if sum(1 for c in hand if c[0] == r) >= 3:
                return seat, r
    return None


def trick_points(trick: dict[str, Any]) -> int:
    return sum(POINTS[c[0]] for _, c in trick["plays"])


def shooter_succeeds(tricks: list[dict[str, Any]], shooter: int) -> bool:
    """Two or three tricks, or one trick richer than the other two together (equality fails)."""
    won = [t for t in tricks if t["winner"] == shooter]
    if len(won) != 1:
        return len(won) >= 2
    mine = trick_points(won[0])
    return mine > sum(trick_points(t) for t in tricks) - mine


def settle(chips: list[int], pot: int, outcome: str, shooter: int | None, amount: int | None,
           zwik: dict[str, Any] | None, zwik_other: str) -> int:
    """Move the chips of a finished deal (§6); returns the pot carried forward."""
    if outcome == "annulled" or shooter is None or amount is None:
        return pot
    if zwik is not None and zwik["seat"] != shooter:
        take = pot if zwik_other == "pot" else amount
        chips[zwik["seat"]] += take
        pot -= take
    if outcome == "success":
        chips[shooter] += amount
        return pot - amount
    chips[shooter] -= amount
    return pot + amount


def amount_refusal(amount: int, high: int, pot: int, only_fractions: bool) -> Refusal | None:
    """Why ``amount`` may not be bid now (§4.5 order), or None: the one rule behind the bid entries and the
    bid's refusal."""
    if amount < 1 or amount <= high:
        floor = f"more than {high}" if high else "at least 1"
        return Refusal("bid_too_low", f"Your bid must be {floor}.", {"amount": amount})
    if amount > pot:
        return Refusal("bid_too_high", f"You cannot play for more than the pot ({pot}).", {"amount": amount})
    if only_fractions and amount not in fractions(pot):
        allowed = ", ".join(str(x) for x in fractions(pot))
        return Refusal("bid_not_a_fraction", f"Bid a third, a half or the whole pot: {allowed}.", {"amount": amount})
    return None


def match_ends(opts: Options, deal_no: int, chips: list[int], pot: int) -> str | None:
    """Why the match ends after deal ``deal_no`` left these balances and pot, or None when it goes on."""
    if pot > SAFE or any(abs(c) > SAFE for c in chips):
        return "safe_integers"
    if deal_no == opts["deals"]:
        return "deals"
    if opts["end_mode"] == "bust" and min(chips) <= 0:
        return "bust"
    return None


def parse_deals(raw: Any, n: int) -> int:
    if not is_int(raw, 3, 999) or raw % 3:
        raise InvalidOptions("Option 'deals' must be a multiple of 3 from 3 to 999.", option="deals")
    return int(raw)


class Zwikken(Game):
    id = "zwikken"
    name = "Zwikken"
    summary = "Dutch pot game for three: bid for part of the pot, then win two tricks, a rich trick or a zwik."
    min_players = 3
    max_players = 3
    default_players = 3
    options = (
        Option("starting_chips", "integer", 30, "Each seat's initial balance.", 0, 10**9),
        Option("stake", "integer", 1, "Chips each seat puts into the pot at the start of every deal.", 1, 10**6),
        Option("max_turns", "integer", 3, "Bidding turns per deal (the first turn-up plus re-turns).", 1, 3),
        Option("bid_amounts", "choice", "any", "\"any\": any whole amount up to the pot; \"fractions\": only a "
               "third, a half or the whole pot.", choices=("any", "fractions")),
        Option("undertrump", "choice", "required", "A void player who cannot overtrump: must still trump, may "
               "play anything, or must not undertrump while holding another suit.",
               choices=tuple(UNDERTRUMP)),
        Option("zwik_other", "choice", "pot", "What another player's zwik wins: the whole pot or the contract "
               "amount.", choices=("pot", "amount")),
        Option("end_mode", "choice", "deals", "\"deals\": a fixed number of deals; \"bust\": also stop after a "
               "deal that leaves some balance at or below 0.", choices=("deals", "bust")),
        Option("deals", "custom", 12, "Number of deals (a multiple of 3; annulled deals count).", parse=parse_deals,
               schema={"type": "integer", "minimum": 3, "maximum": 999, "multipleOf": 3}),
    )
    actions = {
        "bid": Action("Offer to play for this many chips of the pot.",
                      {"amount": Param("integer", "a whole number of chips above the highest bid, at most the pot")},
                      {"seat": 1, "action": "bid", "amount": 4}),
        "pass": _simple("pass", "Make no offer in this bidding turn.", 1),
        "turn_again": _simple("turn_again", "Dealer, after all passed: everyone pays 1 chip and a new trump is "
                              "turned.", 0),
        "annul": _simple("annul", "Dealer, after all passed: annul the deal; the pot is carried forward.", 0),
        "exchange_ten": _simple("exchange_ten", "Give the trump Ten for the turn-up.", 2),
        "keep_ten": _simple("keep_ten", "Keep the trump Ten.", 2),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 1, "action": "play", "card": "KS"}),
    }
    sample_options = (
        {"bid_amounts": "fractions", "undertrump": "allowed", "zwik_other": "amount", "deals": 6, "first_dealer": 1},
        {"end_mode": "bust", "starting_chips": 4, "stake": 2, "max_turns": 1, "undertrump": "forbidden_unless_forced",
         "deals": 30},
        {"max_turns": 2, "first_dealer": 2, "deals": 3, "starting_chips": 0},
    )
    carried = ("deal_no", "chips", "pot")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(table=self.table, trump=lambda state: state["turn_up"][1], first_leader=self.eldest,
                                deal_over=lambda state: len(state["tricks"]) == TRICKS, end_deal=self.tricks_done)
        speak, choose = one_seat(self.bidder), one_seat(self.chooser)
        ten = Step(one_seat(self.ten_holder), Choices(verbs("exchange_ten", "keep_ten")), self.ten,
                   "decide on the trump Ten")
        return {
            "bid": Phase("bid", {"pass": Step(speak, Choices(verbs("pass")), self.pass_, "bid", self.all_spoken),
                                 "bid": Step(speak, Choices(self.bid_choices, self.bid_refusal), self.bid, "bid",
                                             self.all_spoken),
                                 "turn_again": Step(choose, Choices(verbs("turn_again")), self.turn_again, "choose",
                                                    self.still_bidding),
                                 "annul": Step(choose, Choices(verbs("annul")), self.annul, "choose",
                                               self.still_bidding)},
                         self.bid_turn),
            "ten": Phase("ten", {"exchange_ten": ten, "keep_ten": ten}, self.ten_holder),
            "play": Phase("play", {"play": self.tricks.step()}, self.tricks.on_turn),
        }

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return PACK

    def max_dealings(self, n: int, options: Options) -> int | None:
        return int(options["deals"])  # annulled deals count; the bust rule can only end the match sooner

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        state.update(deal_no=0, chips=[state["options"]["starting_chips"]] * SEATS, pot=0)

    def deal(self, state: State, events: list[Event]) -> None:
        """The next dealer, everyone's stake into the pot, three cards each and the turn-up."""
        opts = state["options"]
        state["deal_no"] += 1
        state["dealer"] = dealer_in_turn(state, SEATS)
        self.pay_each(state, opts["stake"])
        cards = self.next_deal(state)
        state.update(hands=cards["hands"], turn_up=cards["rest"][0], rest=cards["rest"][1:], dead=[], turns=1,
                     bids=[], shooter=None, amount=None, tricks=[], trick={"plays": []}, phase="bid")
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": state["dealer"],
                       "pot": state["pot"], "turn_up": state["turn_up"]})

    def pay_each(self, state: State, chips: int) -> None:
        state["chips"] = [c - chips for c in state["chips"]]
        state["pot"] += SEATS * chips

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """1 + 2 from eldest clockwise; card 9 is the turn-up, 10..19 the stock (top first)."""
        eldest = left(state["dealer"], SEATS)
        hands: list[list[Card]] = [[] for _ in range(SEATS)]
        for i in range(SEATS):
            hands[(eldest + i) % SEATS] = [cards[i], cards[3 + 2 * i], cards[4 + 2 * i]]
        return {"hands": hands, "rest": cards[SEATS * HAND:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        if len(deal["rest"]) != STOCK + 1:
            raise InvalidDeal(f"'rest' must hold the turn-up and the {STOCK} stock cards ({STOCK + 1} cards).")
        need_pack_deal(deal, PACK)

    # ----- whose turn -------------------------------------------------------------------
    def eldest(self, state: State) -> int:
        return left(state["dealer"], SEATS)

    def bidder(self, state: State) -> int | None:
        """The seat to speak in this bidding turn; None when all three have spoken (dealer's choice)."""
        bids = state["bids"]
        return (self.eldest(state) + len(bids)) % SEATS if len(bids) < SEATS else None

    def chooser(self, state: State) -> int | None:
        """The dealer, once everyone has passed (the bidding would have ended on a bid)."""
        return state["dealer"] if len(state["bids"]) == SEATS else None

    def bid_turn(self, state: State) -> int | None:
        seat = self.bidder(state)
        return self.chooser(state) if seat is None else seat

    def all_spoken(self, state: State) -> str | None:
        if len(state["bids"]) < SEATS:
            return None
        return "Everyone has spoken: the dealer now turns again or annuls the deal."

    def still_bidding(self, state: State) -> str | None:
        if len(state["bids"]) == SEATS:
            return None
        return "The dealer may only turn again or annul once everyone has passed."

    def high_bid(self, state: State) -> int:
        return max((b for b in state["bids"] if b is not None), default=0)

    def ten_holder(self, state: State) -> int | None:
        ten = "T" + state["turn_up"][1]
        return next((s for s, h in enumerate(state["hands"]) if ten in h), None)

    def table(self, state: State) -> TrickTable:
        return TABLES[state["options"]["undertrump"]]

    # ----- bidding ----------------------------------------------------------------------
    def bid_choices(self, state: State, seat: int) -> list[Move]:
        """Under "any": one entry, the lowest bid above the high one, with the range of bids up to the pot beside
        it (docs/events.md); under "fractions": one entry per fraction of the pot."""
        pot = state["pot"]
        if state["options"]["bid_amounts"] == "fractions":
            return [{"seat": seat, "action": "bid", "amount": x} for x in fractions(pot)]
        low = self.high_bid(state) + 1
        return [{"seat": seat, "action": "bid", "amount": low, "ranges": {"amount": {"min": low, "max": pot}}}]

    def bid_refusal(self, state: State, move: Move) -> Refusal | None:
        return amount_refusal(move["amount"], self.high_bid(state), state["pot"],
                           state["options"]["bid_amounts"] == "fractions")

    def bid(self, state: State, move: Move, events: list[Event]) -> None:
        amount = move["amount"]
        state["bids"].append(amount)
        events.append({"type": "bid", "seat": move["seat"], "amount": amount})
        self.after_speech(state, events)

    def pass_(self, state: State, move: Move, events: list[Event]) -> None:
        state["bids"].append(None)
        events.append({"type": "pass", "seat": move["seat"]})
        self.after_speech(state, events)

    def after_speech(self, state: State, events: list[Event]) -> None:
        bids = state["bids"]
        if len(bids) < SEATS:
            return
        if any(b is not None for b in bids):
            index = max(i for i, b in enumerate(bids) if b is not None)  # bids rise: the last is highest
            state["shooter"] = (self.eldest(state) + index) % SEATS
            state["amount"] = bids[index]
            events.append({"type": "shooter", "seat": state["shooter"], "amount": state["amount"]})
            self.after_bidding(state, events)
        elif state["turns"] < state["options"]["max_turns"]:
            events.append({"type": "passed_out", "dealer": state["dealer"]})
        else:
            self.end_deal(state, "annulled", None, events)   # the last permitted turn: annulled (R2)

    def turn_again(self, state: State, move: Move, events: list[Event]) -> None:
        self.pay_each(state, 1)
        state["dead"].append(state["turn_up"])
        state["turn_up"] = state["rest"].pop(0)
        state["turns"] += 1
        state["bids"] = []
        events.append({"type": "turn_again", "seat": move["seat"], "turn_up": state["turn_up"], "pot": state["pot"],
                       "turns": state["turns"]})

    def annul(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "annul", "seat": move["seat"]})
        self.end_deal(state, "annulled", None, events)

    # ----- the trump Ten and the zwik ---------------------------------------------------------
    def after_bidding(self, state: State, events: list[Event]) -> None:
        if self.ten_holder(state) is not None:
            state["phase"] = "ten"
        else:
            self.zwik_check(state, events)

    def ten(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        if move["action"] == "exchange_ten":
            hand, ten = state["hands"][seat], "T" + state["turn_up"][1]
            hand[hand.index(ten)] = state["turn_up"]
            events.append({"type": "exchange_ten", "seat": seat, "took": state["turn_up"], "turn_up": ten})
            state["turn_up"] = ten
        else:
            events.append({"type": "keep_ten", "seat": seat})
        self.zwik_check(state, events)

    def zwik_check(self, state: State, events: list[Event]) -> None:
        """Automatic (R5): the best zwik decides the deal, else the play begins."""
        found = best_zwik(state["hands"])
        if found is None:
            state["phase"] = "play"
            return
        seat, r = found
        events.append({"type": "zwik", "seat": seat, "rank": r, "cards": list(state["hands"][seat])})
        outcome = "success" if seat == state["shooter"] else "failure"
        self.end_deal(state, outcome, {"seat": seat, "rank": r}, events)

    # ----- settlement and the end ---------------------------------------------------------
    def tricks_done(self, state: State, events: list[Event]) -> None:
        won = shooter_succeeds(state["tricks"], state["shooter"])
        self.end_deal(state, "success" if won else "failure", None, events)

    def end_deal(self, state: State, outcome: str, zwik: dict[str, Any] | None, events: list[Event]) -> None:
        """Settle the deal (§6) and announce what it did to each seat: its stakes and re-turns, and the
        settlement; then the next deal, or the end of the match with the pot shared out."""
        opts = state["options"]
        at_stake, before = state["pot"], list(state["chips"])
        state["pot"] = settle(state["chips"], at_stake, outcome, state["shooter"], state["amount"], zwik,
                              opts["zwik_other"])
        paid = opts["stake"] + state["turns"] - 1
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "changes": [after - b - paid for after, b in zip(state["chips"], before)], "unit": "chips",
                       "outcome": outcome, "shooter": state["shooter"], "amount": state["amount"],
                       "zwik": dict(zwik) if zwik else None, "turns": state["turns"], "at_stake": at_stake,
                       "pot": state["pot"]})
        reason = match_ends(opts, state["deal_no"], state["chips"], state["pot"])
        end_deal(self, state, events, reason is not None, final=lambda s: {"reason": reason, **self.share_pot(s)})

    def share_pot(self, state: State) -> News:
        """The match over: the pot is shared out, the odd chips from eldest."""
        shares = split_evenly(state["pot"], order_from(self.eldest(state), SEATS))
        for seat, share in shares.items():
            state["chips"][seat] += share
        state["pot"] = 0
        return {"pot_shared": [shares[s] for s in range(SEATS)]}

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        chips, start = state["chips"], state["options"]["starting_chips"]
        return {"scores": list(chips), "payoffs": [c - start for c in chips],
                "ranking": rank_seats(SEATS, lambda s: (-chips[s], s))}

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = super().view(state, seat)
        out["stock_size"] = len(state["rest"])
        return out

    # ----- the totals carried between deals -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], state["rest"], state["dead"], [state["turn_up"]], played]

    def check_carried(self, state: State) -> None:
        """Before a deal: one dealing per deal so far, every chip either a balance or in the pot, and a match
        that had not yet ended (its deals, a bust, or a count past the safe bound)."""
        opts = state["options"]
        deal_no = need_int(state["deal_no"], "deal_no", 0, opts["deals"] - 1)
        need(state["dealings"] == deal_no, "'dealings' must count the deals dealt.")
        chips = need_list(state["chips"], "chips", SEATS)
        need(all(is_int(c, -SAFE, SAFE) for c in chips), f"'chips' must be whole numbers within +-{SAFE}.")
        pot = need_int(state["pot"], "pot", 0, SAFE)
        need(sum(chips) + pot == SEATS * opts["starting_chips"], "'chips' and 'pot' must keep every chip.")
        if deal_no == 0:
            need(pot == 0 and chips == [opts["starting_chips"]] * SEATS, "The match has not begun: no chips moved.")
        else:
            need(match_ends(opts, deal_no, chips, pot) is None, "The match should have ended after that deal.")


GAME = Zwikken()
