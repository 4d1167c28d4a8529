"""Zwikken: the Dutch three-hand pot game of Zwicken. Spec: shared/rules/zwikken.md.

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
the pot left over is shared equally, odd chips clockwise from the last deal's eldest.

State keys besides the core: dealer, deal_no, chips (balances), pot, turns (bidding turns held this
deal), bids (this turn's offers from eldest on: amount or null), shooter, amount, hands, turn_up,
dead (set-aside turn-ups, face up), rest (the stock, top first; hidden), tricks, trick, last (the last
finished deal, as its ``deal_over`` event: deal, dealer, turns, outcome, shooter, amount, zwik seat and
rank, the pot at stake, the pot carried forward and the balances after it; null before the first deal
ends). The state keeps no history of deals: each deal's outcome is in the events of the move that ends it.
"""
from __future__ import annotations

from typing import Any

from ..base import (OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, not_your_turn,
                    play_moves, require_in_hand, require_turn)
from ..cards import Card, make_pack
from ..checks import is_int, need, need_cards, need_dict, need_exact_keys, need_int, need_list, need_plays
from ..errors import IllegalMove, InvalidDeal, InvalidOptions
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import left, order_from, rank_seats
from ..tricks import TrickRules, TrickTable

SEATS = 3
HAND = 3
TRICKS = 3
ORDER = "TJQKA"                       # low to high, in every suit
PACK = make_pack(ORDER)
STOCK = len(PACK) - SEATS * HAND - 1  # 10 cards under the first turn-up
POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 0}
OUTCOMES = ("annulled", "success", "failure")
# Spec names of the undertrump option -> the core's undertrump policy (R6).
UNDERTRUMP = {"required": "required", "allowed": "allowed", "forbidden_unless_forced": "forbidden"}
TABLES = {name: TrickTable(TrickRules(order=ORDER, must_trump=True, overtrump=True, undertrump=policy))
          for name, policy in UNDERTRUMP.items()}
KEYS = ("dealer", "deal_no", "chips", "pot", "turns", "bids", "shooter", "amount", "hands", "turn_up", "dead",
        "rest", "tricks", "trick", "last")
LAST_KEYS = ("deal", "dealer", "turns", "outcome", "shooter", "amount", "zwik", "at_stake", "pot", "chips")
LAST_SET = frozenset(LAST_KEYS)


def _simple(verb: str, doc: str, seat: int) -> Action:
    return Action(doc, example={"seat": seat, "action": verb})


# ----- rules as small pure functions (shared by the moves and the validation) ---------------
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


def same_int(value: Any, expected: int | None) -> bool:
    """``value`` is exactly ``expected``: an int (never a bool standing for 0 or 1), or both None."""
    return value is None if expected is None else is_int(value) and value == expected


def need_pack_cards(value: Any, label: str) -> list[Card]:
    cards = need_cards(value, label)
    need(all(c in PACK for c in cards), f"'{label}' holds a card that is not in the 20-card pack.")
    return cards


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

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        return {"bid": {"bid": self.bid, "pass": self.pass_, "turn_again": self.turn_again, "annul": self.annul},
                "ten": {"exchange_ten": self.ten, "keep_ten": self.ten},
                "play": {"play": self.play_card}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return PACK

    # ----- the deal ---------------------------------------------------------------------
    def start(self, state: State) -> None:
        opts = state["options"]
        state.update(deal_no=0, chips=[opts["starting_chips"]] * SEATS, pot=0, last=None)
        self.fresh_deal(state, [])

    def fresh_deal(self, state: State, events: list[Event]) -> None:
        opts = state["options"]
        state["deal_no"] += 1
        dealer = state["dealer"] = (opts["first_dealer"] + state["deal_no"] - 1) % SEATS
        self.pay_each(state, opts["stake"])
        deal = self.next_deal(state)
        state.update(hands=deal["hands"], turn_up=deal["rest"][0], rest=deal["rest"][1:], dead=[], turns=1,
                     bids=[], shooter=None, amount=None, tricks=[], trick={"plays": []}, phase="bid")
        events.append({"type": "deal", "deal": state["deal_no"], "dealer": dealer, "pot": state["pot"],
                       "turn_up": state["turn_up"]})

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

    def high_bid(self, state: State) -> int:
        return max((b for b in state["bids"] if b is not None), default=0)

    def ten_holder(self, state: State) -> int | None:
        ten = "T" + state["turn_up"][1]
        return next((s for s, h in enumerate(state["hands"]) if ten in h), None)

    def on_turn(self, state: State) -> int:
        plays = state["trick"]["plays"]
        if plays:
            return left(plays[-1][0], SEATS)
        return state["tricks"][-1]["winner"] if state["tricks"] else self.eldest(state)

    def table(self, state: State) -> TrickTable:
        return TABLES[state["options"]["undertrump"]]

    def legal_moves(self, state: State) -> list[Move]:
        phase = state["phase"]
        if phase == "bid":
            seat = self.bidder(state)
            if seat is None:
                return [{"seat": state["dealer"], "action": "turn_again"}, {"seat": state["dealer"], "action": "annul"}]
            return [{"seat": seat, "action": "pass"}, *self.bid_moves(state, seat)]
        if phase == "ten":
            seat = self.ten_holder(state)
            return [{"seat": seat, "action": "exchange_ten"}, {"seat": seat, "action": "keep_ten"}]
        seat = self.on_turn(state)
        cards = self.table(state).legal_cards(state["hands"][seat], state["trick"]["plays"], state["turn_up"][1])
        return play_moves(seat, cards)

    def bid_moves(self, state: State, seat: int) -> list[Move]:
        low, pot = self.high_bid(state) + 1, state["pot"]
        if state["options"]["bid_amounts"] == "fractions":
            return [{"seat": seat, "action": "bid", "amount": x} for x in fractions(pot) if x >= low]
        return [{"seat": seat, "action": "bid", "amount": {"min": low, "max": pot}}] if low <= pot else []

    # ----- bidding ----------------------------------------------------------------------
    def speaking(self, state: State, move: Move) -> None:
        """A bid or pass: only while the bidding turn is open, and only by the seat to speak."""
        seat = self.bidder(state)
        if seat is None:
            raise IllegalMove("wrong_phase", "Everyone has spoken: the dealer now turns again or annuls the deal.")
        require_turn(move, seat)

    def bid(self, state: State, move: Move, events: list[Event]) -> None:
        self.speaking(state, move)
        amount, pot, high = move["amount"], state["pot"], self.high_bid(state)
        if amount < 1 or amount <= high:
            floor = f"more than {high}" if high else "at least 1"
            raise IllegalMove("bid_too_low", f"Your bid must be {floor}.", amount=amount)
        if amount > pot:
            raise IllegalMove("bid_too_high", f"You cannot play for more than the pot ({pot}).", amount=amount)
        if state["options"]["bid_amounts"] == "fractions" and amount not in fractions(pot):
            allowed = ", ".join(str(x) for x in fractions(pot))
            raise IllegalMove("bid_not_a_fraction", f"Bid a third, a half or the whole pot: {allowed}.",
                              amount=amount)
        state["bids"].append(amount)
        events.append({"type": "bid", "seat": move["seat"], "amount": amount})
        self.after_speech(state, events)

    def pass_(self, state: State, move: Move, events: list[Event]) -> None:
        self.speaking(state, move)
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

    def dealer_choice(self, state: State, move: Move) -> None:
        if self.bidder(state) is not None:
            raise IllegalMove("wrong_phase", "The dealer may only turn again or annul once everyone has passed.")
        if move["seat"] != state["dealer"]:
            raise not_your_turn(move["seat"], state["dealer"])

    def turn_again(self, state: State, move: Move, events: list[Event]) -> None:
        self.dealer_choice(state, move)
        self.pay_each(state, 1)
        state["dead"].append(state["turn_up"])
        state["turn_up"] = state["rest"].pop(0)
        state["turns"] += 1
        state["bids"] = []
        events.append({"type": "turn_again", "turn_up": state["turn_up"], "pot": state["pot"],
                       "turn": state["turns"]})

    def annul(self, state: State, move: Move, events: list[Event]) -> None:
        self.dealer_choice(state, move)
        self.end_deal(state, "annulled", None, events)

    # ----- the trump Ten and the zwik ---------------------------------------------------------
    def after_bidding(self, state: State, events: list[Event]) -> None:
        if self.ten_holder(state) is not None:
            state["phase"] = "ten"
        else:
            self.zwik_check(state, events)

    def ten(self, state: State, move: Move, events: list[Event]) -> None:
        seat = self.ten_holder(state)
        if seat is None:  # cannot happen in a valid state: phase 'ten' means a hand holds the trump Ten
            raise IllegalMove("wrong_phase", "Nobody holds the trump Ten.")
        require_turn(move, seat)
        if move["action"] == "exchange_ten":
            hand, ten = state["hands"][seat], "T" + state["turn_up"][1]
            hand[hand.index(ten)] = state["turn_up"]
            events.append({"type": "ten_exchanged", "seat": seat, "took": state["turn_up"], "turn_up": ten})
            state["turn_up"] = ten
        else:
            events.append({"type": "ten_kept", "seat": seat})
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

    # ----- the play ---------------------------------------------------------------------
    def play_card(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        require_turn(move, self.on_turn(state))
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        plays = state["trick"]["plays"]
        self.table(state).check(hand, plays, card, state["turn_up"][1])
        hand.remove(card)
        plays.append([seat, card])
        if len(plays) < SEATS:
            return
        winner = self.table(state).winner(plays, state["turn_up"][1])
        state["tricks"].append({"plays": plays, "winner": winner})
        state["trick"] = {"plays": []}
        events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
        if len(state["tricks"]) == TRICKS:
            won = shooter_succeeds(state["tricks"], state["shooter"])
            self.end_deal(state, "success" if won else "failure", None, events)

    # ----- settlement and the end ---------------------------------------------------------
    def end_deal(self, state: State, outcome: str, zwik: dict[str, Any] | None, events: list[Event]) -> None:
        opts = state["options"]
        at_stake = state["pot"]
        state["pot"] = settle(state["chips"], at_stake, outcome, state["shooter"], state["amount"], zwik,
                              opts["zwik_other"])
        last = {"deal": state["deal_no"], "dealer": state["dealer"], "turns": state["turns"], "outcome": outcome,
                "shooter": state["shooter"], "amount": state["amount"], "zwik": zwik, "at_stake": at_stake,
                "pot": state["pot"], "chips": list(state["chips"])}
        state["last"] = last
        events.append({"type": "deal_over", **last, "zwik": dict(zwik) if zwik else None,
                       "chips": list(state["chips"])})
        if not self.match_ends(opts, state["deal_no"], state["chips"]):
            self.fresh_deal(state, events)
            return
        shares = split_evenly(state["pot"], order_from(self.eldest(state), SEATS))
        for seat, share in shares.items():
            state["chips"][seat] += share
        events.append({"type": "match_over", "pot_shared": [shares[s] for s in range(SEATS)]})
        state["pot"] = 0
        state["phase"] = OVER

    @staticmethod
    def match_ends(opts: Options, deal_no: int, chips: list[int]) -> bool:
        return deal_no == opts["deals"] or (opts["end_mode"] == "bust" and min(chips) <= 0)

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        chips, start = state["chips"], state["options"]["starting_chips"]
        return {"scores": list(chips), "payoffs": [c - start for c in chips],
                "ranking": rank_seats(SEATS, lambda s: (-chips[s], s))}

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = super().view(state, seat)
        if isinstance(state.get("rest"), list):
            out["stock_size"] = len(state["rest"])
        return out

    # ----- validation -------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], state["rest"], state["dead"], [state["turn_up"]], played]

    def validate(self, state: State) -> None:
        self.known_keys(state, KEYS)
        opts, phase = state["options"], state["phase"]
        need(phase in ("bid", "ten", "play", OVER), "Zwikken's phases are 'bid', 'ten', 'play' and 'over'.")
        over = phase == OVER
        deal_no = need_int(state["deal_no"], "deal_no", 1, opts["deals"])
        dealer = (opts["first_dealer"] + deal_no - 1) % SEATS
        need(same_int(state["dealer"], dealer), "'dealer' does not match the deal number.")
        need(state["dealings"] == deal_no, "'dealings' must count the deals dealt.")
        turns = need_int(state["turns"], "turns", 1, opts["max_turns"])
        last = self.validate_last(state, deal_no, over)
        self.validate_chips(state, last, turns, over)
        self.validate_cards(state, turns)
        ended = last if over else None  # once the match is over, 'last' is the deal still on the table
        self.validate_bidding(state, ended["at_stake"] if ended else state["pot"], ended)
        self.validate_deal_stage(state, ended)

    def validate_last(self, state: State, deal_no: int, over: bool) -> dict[str, Any] | None:
        """The record of the last finished deal (this deal once the match is over, else the one before;
        null in deal 1): its place in the rotation, its outcome within the pot at stake, the pot it
        carried forward, and balances that keep every chip and say whether the match went on."""
        opts = state["options"]
        last, number = state["last"], deal_no if over else deal_no - 1
        if number == 0:
            need(last is None, "'last' must be null until a deal has finished.")
            return None
        need(isinstance(last, dict) and last.keys() == LAST_SET, "'last' needs exactly the keys "
             + ", ".join(LAST_KEYS) + ".")
        need(same_int(last["deal"], number) and same_int(last["dealer"], (opts["first_dealer"] + number - 1) % SEATS),
             "'last' is not the last finished deal, or has the wrong dealer.")
        pay = opts["stake"] + need_int(last["turns"], "last.turns", 1, opts["max_turns"]) - 1
        at_stake = need_int(last["at_stake"], "last.at_stake", SEATS * pay)  # the stakes came on top of a pot >= 0
        self.validate_outcome(last, at_stake, opts)
        pot = settle([0] * SEATS, at_stake, last["outcome"], last["shooter"], last["amount"], last["zwik"],
                     opts["zwik_other"])
        need(same_int(last["pot"], pot), "'last.pot' is not the pot that deal carried forward.")
        chips = last["chips"]
        need(isinstance(chips, list) and len(chips) == SEATS and all(is_int(c) for c in chips),
             "'last.chips' must be three whole numbers.")
        need(sum(chips) + pot == SEATS * opts["starting_chips"], "'last.chips' and 'last.pot' must keep every chip.")
        ended = self.match_ends(opts, number, chips)
        need(ended == over, f"The match {'ended' if ended else 'went on'} wrongly after deal {number}.")
        return last

    def validate_outcome(self, h: dict[str, Any], pot: int, opts: Options) -> None:
        need(h["outcome"] in OUTCOMES, "The last deal's outcome is unknown.")
        if h["outcome"] == "annulled":
            need(h["shooter"] is None and h["amount"] is None and h["zwik"] is None,
                 "An annulled deal has no shooter, amount or zwik.")
            return
        need_int(h["shooter"], "last.shooter", 0, SEATS - 1)
        need_int(h["amount"], "last.amount", 1, pot)
        need(opts["bid_amounts"] == "any" or h["amount"] in fractions(pot), "The last deal's amount is not a fraction.")
        zwik = h["zwik"]
        if zwik is not None:
            need(isinstance(zwik, dict) and zwik.keys() == {"seat", "rank"}, "A zwik needs 'seat' and 'rank'.")
            need_int(zwik["seat"], "zwik seat", 0, SEATS - 1)
            need(isinstance(zwik["rank"], str) and zwik["rank"] in POINTS, "A zwik rank must be one of A K Q J T.")
            need((zwik["seat"] == h["shooter"]) == (h["outcome"] == "success"),
                 "A zwik's outcome does not match who held it.")

    def validate_chips(self, state: State, last: dict[str, Any] | None, turns: int, over: bool) -> None:
        """Balances and pot: those after the last finished deal (the opening ones in deal 1) less this deal's
        stakes and re-turns, all of it in the pot; or, once the match is over, plus the final split."""
        opts = state["options"]
        if over:
            assert last is not None
            shares = split_evenly(last["pot"], order_from(self.eldest(state), SEATS))
            chips, pot = [c + shares[s] for s, c in enumerate(last["chips"])], 0
            need(turns == last["turns"], "'turns' does not match the last deal.")
        else:
            pay = opts["stake"] + turns - 1
            before = last["chips"] if last else [opts["starting_chips"]] * SEATS
            chips, pot = [c - pay for c in before], (last["pot"] if last else 0) + SEATS * pay
        held = state["chips"]
        need(isinstance(held, list) and len(held) == SEATS and all(same_int(c, e) for c, e in zip(held, chips)),
             "'chips' do not match the stakes and settlements of the deals.")
        need(same_int(state["pot"], pot), "'pot' does not hold the chips staked and not won.")

    def validate_cards(self, state: State, turns: int) -> None:
        hands = need_list(state["hands"], "hands", SEATS)
        for s, h in enumerate(hands):
            need_pack_cards(h, f"hands[{s}]")
        need(isinstance(state["turn_up"], str) and state["turn_up"] in PACK, "'turn_up' must be a card.")
        need(len(need_pack_cards(state["dead"], "dead")) == turns - 1, "'dead' must hold one turn-up per re-turn.")
        need(len(need_pack_cards(state["rest"], "rest")) == STOCK - (turns - 1), "'rest' must hold the stock.")
        tricks = need_list(state["tricks"], "tricks")
        need(len(tricks) <= TRICKS, "Too many tricks.")
        for t in tricks:
            need_dict(t, "trick", ("plays", "winner"))
            need_exact_keys(t, "trick", ("plays", "winner"))
            need(len(need_plays(t["plays"], SEATS, "tricks")) == SEATS, "A completed trick needs three cards.")
            need(is_int(t["winner"], 0, SEATS - 1), "A trick's winner must be a seat.")
        trick = need_dict(state["trick"], "trick", ("plays",))
        need_exact_keys(trick, "trick", ("plays",))
        need(len(need_plays(trick["plays"], SEATS, "trick")) < SEATS, "The trick in progress is too long.")
        need(all(p[1] in PACK for t in [*tricks, trick] for p in t["plays"]), "A trick holds a card not in the pack.")

    def validate_bidding(self, state: State, pot: int, last: dict[str, Any] | None) -> None:
        """This turn's offers rise within the pot; the shooter and his amount are the highest offer."""
        opts = state["options"]
        bids = need_list(state["bids"], "bids")
        need(len(bids) <= SEATS, "'bids' has more than three entries.")
        amounts = [need_int(b, "bid", 1, pot) for b in bids if b is not None]
        need(all(a < b for a, b in zip(amounts, amounts[1:])), "Bids must rise.")
        need(opts["bid_amounts"] == "any" or all(a in fractions(pot) for a in amounts), "A bid is not a fraction.")
        decided = len(bids) == SEATS and bool(amounts)
        if state["phase"] == "bid":
            need(not decided and state["shooter"] is None and state["amount"] is None,
                 "The bidding is over but the phase is still 'bid'.")
            need(amounts or len(bids) < SEATS or state["turns"] < opts["max_turns"],
                 "The last bidding turn was passed out: the deal should have been annulled.")
            return
        annulled = last is not None and last["outcome"] == "annulled"
        if annulled:
            need(bids == [None] * SEATS and state["shooter"] is None and state["amount"] is None,
                 "An annulled deal had no bids.")
            return
        need(decided, "The play began without a completed bidding turn.")
        shooter = (self.eldest(state) + bids.index(amounts[-1])) % SEATS
        need(same_int(state["shooter"], shooter) and same_int(state["amount"], amounts[-1]),
             "'shooter' and 'amount' must be the highest bidder and his bid.")
        need(last is None or (last["shooter"] == shooter and last["amount"] == amounts[-1]),
             "'last' does not match this deal's bidding.")

    def validate_deal_stage(self, state: State, last: dict[str, Any] | None) -> None:
        """Hands, tricks, Ten and zwik fit the point the deal has reached."""
        phase, hands, tricks = state["phase"], state["hands"], state["tricks"]
        played_out = phase == "play" or (last is not None and last["outcome"] != "annulled" and last["zwik"] is None)
        if not played_out:
            need(not tricks and not state["trick"]["plays"], "There are tricks before the play.")
            need(all(len(h) == HAND for h in hands), "Every hand must hold three cards.")
            if phase == "ten":
                need(self.ten_holder(state) is not None, "Nobody holds the trump Ten in the 'ten' phase.")
            if last is not None and last["zwik"] is not None:
                found = best_zwik(hands)
                need(found is not None and list(found) == [last["zwik"]["seat"], last["zwik"]["rank"]],
                     "The recorded zwik is not the best zwik in the hands.")
            return
        start = self.validate_tricks(state)
        need(best_zwik(start) is None, "A zwik was held, so there should have been no play.")
        if last is not None:
            need(len(tricks) == TRICKS, "The deal ended before its third trick.")
            need((last["outcome"] == "success") == shooter_succeeds(tricks, state["shooter"]),
                 "The recorded outcome does not match the tricks.")
        else:
            need(len(tricks) < TRICKS, "All three tricks are played but the deal was not settled.")

    def validate_tricks(self, state: State) -> list[list[Card]]:
        """Replay each trick's leader, the legality of every card and the winner; returns the hands at the start."""
        table, trump, tricks = self.table(state), state["turn_up"][1], state["tricks"]
        all_tricks = [t["plays"] for t in tricks] + [state["trick"]["plays"]]
        holding = [list(h) for h in state["hands"]]
        for k in range(len(all_tricks) - 1, -1, -1):
            for seat, card in all_tricks[k]:
                holding[seat].append(card)
            hands = [list(h) for h in holding]
            leader = tricks[k - 1]["winner"] if k else self.eldest(state)
            for i, (seat, card) in enumerate(all_tricks[k]):
                need(seat == (leader + i) % SEATS, f"Trick {k + 1} was not played in turn.")
                need(card in table.legal_cards(hands[seat], all_tricks[k][:i], trump),
                     f"Trick {k + 1} holds an illegal card {card}.")
                hands[seat].remove(card)
            if k < len(tricks):
                need(tricks[k]["winner"] == table.winner(all_tricks[k], trump), f"Trick {k + 1} has the wrong winner.")
        need(all(len(h) == HAND for h in holding), "A hand holds the wrong number of cards for the tricks played.")
        return holding


GAME = Zwikken()
