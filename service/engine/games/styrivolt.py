"""Stýrivolt: the Faroese (once Danish and Swedish) Karnöffel game. Rules: docs/games/styrivolt.md.

Four players, seats 0+2 (side A) against 1+3 (side B), 48 cards (no Tens), nine each in threes and a stock of
twelve. Two chosen suits a deal (a turned stock card by default) give their cards classes: stickers, beaters,
lambs and leaders (styrivolt_rules); the other suits are plain. No duty to follow. A bare hand (no sticker,
beater or lamb) may take the stock and discard twelve. The first side to five tricks wins the deal; the first
five straight off is the vol, after which the side may stop or undertake all nine. Scores go onto a chalk-board
of strokes, crosses and monk's crosses; only crosses count at the end.

Carried from deal to deal: deal_no, board (``{"bars": [a, b], "crosses": {"side", "singles", "doubles"}}``),
history (one record per settled deal: dealer, chosen, tricks per side, outcome, scoring side, award). Each
deal has: dealer, hands, rest (the face-down stock, top first, hidden), turned (the stock cards turned face up),
chosen ([primary, second] or null until forehand names them), asked (seats asked about the stock so far), taker,
discards (seen by the taker only), tricks, trick, continuing (the side playing on for all nine, or null).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, clone, need_hand_sizes, need_pack_deal
from ..cards import Card, SUITS, card_name
from ..checks import is_int, need, need_dict, need_exact_keys, need_list
from ..end_of_deal import News, close_match, dealer_in_turn, end_deal
from ..errors import InvalidDeal
from ..flow import Choices, Phase, Refusal, Step, anyone, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..seats import order_from
from ..tricks import TrickPlay
from .styrivolt_rules import (PACK, PARTNER_SUIT, SIDES, Board, StyrivoltTable, apply_award, board_value,
                              fresh_board, is_bare, net_value, side_of, trick_table)

HAND, STOCK, TRICKS, TO_WIN = 9, 12, 9, 5
AWARDS = MappingProxyType({"game": ("strokes", 1), "vol": ("strokes", 2), "vol_alone": ("single", 1),
                           "all_nine": ("strokes", 3), "all_nine_alone": ("double", 1),
                           "illegal_stock_take": ("single", 1)})
PENALTIES = MappingProxyType({"1_stroke": ("strokes", 1), "2_strokes": ("strokes", 2), "3_strokes": ("strokes", 3),
                              "1_cross": ("single", 1)})
OUTCOMES = (*AWARDS, "failed_all_nine")
RECORD_KEYS = ("deal", "dealer", "chosen", "tricks", "outcome", "side", "award")
SUIT_LETTERS = frozenset(SUITS)
NOT_BARE = Refusal("not_bare", "Only a hand with no sticker, beater or lamb may take the stock.")
NOT_TWO_SUITS = Refusal("invalid_parameters", "'suits' must be two different suits from C, D, H, S.")


def two_suits(value: Any) -> bool:
    """Two different suit letters (the chosen suits, primary first)."""
    return (isinstance(value, list) and len(value) == 2 and all(type(s) is str and s in SUIT_LETTERS for s in value)
            and value[0] != value[1])


def act(doc: str, example: dict[str, Any], **params: Param) -> Action:
    return Action(doc, params, example)


def side_tricks(state: State) -> list[int]:
    won = [side_of(t["winner"]) for t in state["tricks"]]
    return [won.count(0), won.count(1)]


def turn_two(stock: list[Card]) -> tuple[list[Card], list[str]]:
    """Turn stock cards until a second suit shows (R21: the first card's suit is primary); a stock of one suit
    gives that suit and its partner of the same colour."""
    first = stock[0][1]
    for k, card in enumerate(stock):
        if card[1] != first:
            return stock[:k + 1], [first, card[1]]
    return list(stock), [first, PARTNER_SUIT[first]]


def plausible_tricks(outcome: str, scorer: int, other: int) -> bool:
    """The tricks each side had won when the deal ended with ``outcome`` (the scoring side's first)."""
    if outcome == "game":
        return scorer == TO_WIN and 1 <= other < TO_WIN
    if outcome in ("vol", "vol_alone"):
        return (scorer, other) == (TO_WIN, 0)
    if outcome in ("all_nine", "all_nine_alone"):
        return (scorer, other) == (TRICKS, 0)
    if outcome == "failed_all_nine":
        return other in range(TO_WIN, TRICKS) and scorer == 1
    return (scorer, other) == (0, 0)


class Styrivolt(Game):
    id = "styrivolt"
    name = "Stýrivolt"
    summary = ("Faroese partnership Karnöffel game: two chosen suits give stickers, beaters, lambs and leaders; "
               "first side to five of nine tricks, the vol, and a chalk-board of strokes and crosses.")
    min_players = max_players = default_players = 4
    options = (
        Option("chosen_suits_method", "choice", "turn_up_colour", "How the two chosen suits are fixed (R1).",
               choices=("turn_up_colour", "turn_two", "forehand_declares", "preset")),
        Option("equal_rank_tiebreak", "choice", "first_played", "Equal stickers or beaters of the two chosen "
               "suits: the earlier played wins, or the primary suit's (R2).", choices=("first_played", "primary_suit")),
        Option("beater_reach", "choice", "graded", "Which plain cards a beater beats: graded by rank, or all (R3).",
               choices=("graded", "full")),
        Option("follow_suit", "boolean", False, "Must play a card of the led card's printed suit if able (R5)."),
        Option("stock_exchange", "boolean", True, "A bare hand may take the stock and discard twelve (R8)."),
        Option("illegal_stock_take", "choice", "reject", "A take by a hand that is not bare: refused, or allowed "
               "at the cost of a cross to the opponents (R8).", choices=("reject", "penalize")),
        Option("failed_all_nine_penalty", "choice", "2_strokes", "The opponents' award when a side plays on after "
               "the vol and loses a trick (R10).", choices=tuple(PENALTIES)),
        Option("match_end", "choice", "deals", "End of the match: after a number of deals, when a side holds "
               "enough crosses, or when a seat ends the session between deals.", choices=("deals", "crosses", "open")),
        Option("deals", "integer", 12, "Number of deals for match_end \"deals\".", 1, 400),
        Option("target_crosses", "integer", 3, "Net crosses that end a \"crosses\" match.", 1, 100),
        Option("stake_per_cross", "integer", 1, "Payoff per net cross.", 1, 1000),
    )
    actions = {
        "choose_suits": act("Forehand names the two chosen suits, the primary one first (forehand_declares).",
                            {"seat": 1, "action": "choose_suits", "suits": ["S", "H"]},
                            suits=Param("strings", "two different suits from C, D, H, S")),
        "take_stock": act("Take the twelve stock cards into a bare hand.", {"seat": 2, "action": "take_stock"}),
        "pass_stock": act("Decline the stock.", {"seat": 2, "action": "pass_stock"}),
        "discard": act("The stock's taker lays twelve cards face down.",
                       {"seat": 2, "action": "discard", "cards": ["2C", "3C", "5C", "6C", "7C", "8C", "9C", "JC",
                                                                  "QC", "KC", "AC", "2S"]},
                       cards=Param("cards", "twelve cards you hold")),
        "play": act("Play a card to the trick.", {"seat": 3, "action": "play", "card": "QS"},
                    card=Param("card", "a card you hold")),
        "stop": act("After the vol: end the deal and score the vol.", {"seat": 0, "action": "stop"}),
        "continue": act("After the vol: play on, undertaking to win all nine tricks.",
                        {"seat": 0, "action": "continue"}),
        "next_deal": act("Between deals of an open match: deal the next deal.", {"seat": 0, "action": "next_deal"}),
        "end_session": act("Between deals of an open match: end the match.", {"seat": 0, "action": "end_session"}),
    }
    sample_options = (
        {"chosen_suits_method": "turn_two", "equal_rank_tiebreak": "primary_suit", "follow_suit": True, "deals": 4},
        {"chosen_suits_method": "forehand_declares", "beater_reach": "full", "illegal_stock_take": "penalize",
         "failed_all_nine_penalty": "1_cross", "match_end": "crosses", "target_crosses": 2, "first_dealer": 3},
        {"match_end": "open", "stock_exchange": False, "failed_all_nine_penalty": "3_strokes", "stake_per_cross": 3},
        {"chosen_suits_method": "preset", "illegal_stock_take": "penalize", "deals": 6,
         "failed_all_nine_penalty": "1_stroke"},
    )
    carried = ("deal_no", "board", "history")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(table=self.table, first_leader=self.forehand, deal_over=lambda s: bool(self.verdict(s)),
                                end_deal=self.end_of_play)
        between = {"end_session": Step(anyone, Choices(verbs("end_session")), self.end_session,
                                       "continue or end the session"),
                   "next_deal": Step(anyone, Choices(verbs("next_deal")), self.next_deal_move,
                                     "continue or end the session")}
        asked, winner = one_seat(self.asked_seat), one_seat(self.last_winner)
        take = Choices(verbs("take_stock"), seat_refusal=self.stock_refusal)
        return {
            "choose_suits": Phase("choose_suits", {"choose_suits": Step(
                one_seat(self.forehand), Choices(self.suit_choices, self.suits_refusal), self.choose_suits,
                "choose the suits")}, self.forehand),
            "stock": Phase("stock", {"take_stock": Step(asked, take, self.take_stock, "take or pass"),
                                     "pass_stock": Step(asked, Choices(verbs("pass_stock")), self.pass_stock,
                                                        "take or pass")}, self.asked_seat),
            "stock_discard": Phase("stock_discard", {"discard": Step(
                one_seat(self.taker), Choices(self.discard_choices, self.discard_refusal), self.discard, "discard")},
                self.taker),
            "play": Phase("play", {"play": self.tricks.step()}, self.tricks.on_turn),
            "vol_decision": Phase("vol_decision", {
                "stop": Step(winner, Choices(verbs("stop")), self.stop, "stop or continue"),
                "continue": Step(winner, Choices(verbs("continue")), self.play_on, "stop or continue")},
                self.last_winner),
            "between_deals": Phase("between_deals", between, by_seat=True),
        }

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return PACK

    def max_dealings(self, n: int, options: Options) -> int | None:
        """A fixed number of deals; a match to a number of crosses, or an open one, has no bound."""
        return int(options["deals"]) if options["match_end"] == "deals" else None

    def table(self, state: State) -> StyrivoltTable:
        opts = state["options"]
        return trick_table(tuple(state["chosen"]), opts["equal_rank_tiebreak"] == "primary_suit",
                           opts["beater_reach"] == "full", opts["follow_suit"])

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        state.update(deal_no=0, board=fresh_board(), history=[])

    def deal(self, state: State, events: list[Event]) -> None:
        """The next dealer (the deal passes left, R6), nine cards each and the stock, the chosen suits as the
        option fixes them, then the stock exchange or the play."""
        opts, index = state["options"], state["dealings"]
        fixed = state["deals"][index] if index < len(state["deals"]) else None
        state["deal_no"] += 1
        state["dealer"] = dealer_in_turn(state, 4)
        cards = self.next_deal(state)
        stock: list[Card] = cards["rest"]
        method = opts["chosen_suits_method"]
        turned: list[Card] = []
        chosen: list[str] | None = None
        if method == "preset" and fixed is not None:
            chosen = list(fixed["chosen"])
        elif method == "turn_two":
            turned, chosen = turn_two(stock)
        elif method != "forehand_declares":  # turn_up_colour, and preset for a seeded deal (R22)
            turned, chosen = stock[:1], [stock[0][1], PARTNER_SUIT[stock[0][1]]]
        state.update(hands=cards["hands"], rest=stock[len(turned):], turned=list(turned), chosen=chosen, asked=0,
                     taker=None, discards=[], tricks=[], trick={"plays": []}, continuing=None)
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": state["dealer"],
                       "turned": list(turned), "chosen": None if chosen is None else list(chosen)})
        if chosen is None:
            state["phase"] = "choose_suits"
        else:
            self.open_stock(state)

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Threes clockwise from forehand, three rounds (R23); the last twelve are the stock, top first."""
        hands: list[list[Card]] = [[] for _ in range(4)]
        for k in range(4 * HAND):
            hands[(state["dealer"] + 1 + k // 3) % 4].append(cards[k])
        return {"hands": hands, "rest": cards[4 * HAND:]}

    def check_deal(self, deal: Any, n: int, options: Options, index: int = 0) -> None:
        """An explicit deal, with ``chosen`` exactly when the suits are preset (3.2)."""
        preset = options["chosen_suits_method"] == "preset"
        if isinstance(deal, dict) and "chosen" in deal:
            if not preset:
                raise InvalidDeal("'chosen' is given only with chosen_suits_method \"preset\".")
            if not two_suits(deal["chosen"]):
                raise InvalidDeal("'chosen' must be two different suit letters from C, D, H, S.")
            deal = {k: v for k, v in deal.items() if k != "chosen"}
        elif preset:
            raise InvalidDeal("With chosen_suits_method \"preset\" each explicit deal needs 'chosen' (two suits).")
        super().check_deal(deal, n, options, index)

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, PACK)

    # ----- who acts -----------------------------------------------------------------------
    def forehand(self, state: State) -> int:
        return (int(state["dealer"]) + 1) % 4

    def stock_refusal(self, state: State, seat: int) -> Refusal | None:
        """Only a bare hand may take the stock, unless a take by another is penalized instead (R8)."""
        if state["options"]["illegal_stock_take"] == "reject" and not is_bare(state["hands"][seat], state["chosen"]):
            return NOT_BARE
        return None

    def asking_order(self, state: State) -> list[int]:
        """The seats asked about the stock, from forehand: those that may take it."""
        return [s for s in order_from(self.forehand(state), 4) if self.stock_refusal(state, s) is None]

    def asked_seat(self, state: State) -> int | None:
        order = self.asking_order(state)
        return order[state["asked"]] if state["asked"] < len(order) else None

    def taker(self, state: State) -> int | None:
        return state["taker"]  # type: ignore[no-any-return]

    def last_winner(self, state: State) -> int:
        """The winner of the last trick: after the vol, the seat that speaks for the pair (R9)."""
        return int(state["tricks"][-1]["winner"])

    # ----- the chosen suits and the stock -------------------------------------------------
    def suit_choices(self, state: State, seat: int) -> list[Move]:
        return [{"seat": seat, "action": "choose_suits", "suits": [a, b]} for a in SUITS for b in SUITS]

    def suits_refusal(self, state: State, move: Move) -> Refusal | None:
        return None if two_suits(move["suits"]) else NOT_TWO_SUITS

    def choose_suits(self, state: State, move: Move, events: list[Event]) -> None:
        suits = move["suits"]
        state["chosen"] = list(suits)
        events.append({"type": "choose_suits", "seat": move["seat"], "suits": list(suits)})
        self.open_stock(state)

    def open_stock(self, state: State) -> None:
        ask = state["options"]["stock_exchange"] and self.asking_order(state)
        state["phase"] = "stock" if ask else "play"

    def take_stock(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        hand = state["hands"][seat]
        bare = is_bare(hand, state["chosen"])
        events.append({"type": "take_stock", "seat": seat, "legal": bare})
        if not bare:  # penalized: the deal ends at once (4.2)
            self.settle(state, "illegal_stock_take", 1 - side_of(seat), events)
            return
        hand.extend(state["turned"] + state["rest"])
        state.update(rest=[], taker=seat, phase="stock_discard")

    def pass_stock(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "pass_stock", "seat": move["seat"]})
        state["asked"] += 1
        if state["asked"] == len(self.asking_order(state)):
            state["phase"] = "play"

    def discard_choices(self, state: State, seat: int) -> list[Move]:
        """One entry: the stock's twelve cards as its concrete value, and the range (any 12 of the 21)."""
        hand = state["hands"][seat]
        return [{"seat": seat, "action": "discard", "cards": hand[HAND:],
                 "ranges": {"cards": {"choose": STOCK, "from": list(hand)}}}]

    def discard_refusal(self, state: State, move: Move) -> Refusal | None:
        """Twelve distinct cards (a repeat counts as a wrong count, R18), each in the hand."""
        cards, hand = move["cards"], state["hands"][move["seat"]]
        if len(cards) != STOCK or len(set(cards)) != STOCK:
            return Refusal("wrong_discard_count", f"Discard exactly {STOCK} different cards.")
        for card in cards:
            if card not in hand:
                return Refusal("card_not_in_hand", f"You do not hold the {card_name(card)}.", {"card": card})
        return None

    def discard(self, state: State, move: Move, events: list[Event]) -> None:
        cards, hand = move["cards"], state["hands"][move["seat"]]
        kept = set(cards)
        state["hands"][move["seat"]] = [c for c in hand if c not in kept]
        state.update(discards=list(cards), phase="play")
        events.append({"type": "discard", "seat": move["seat"]})

    # ----- the play and the vol -------------------------------------------------------------
    def verdict(self, state: State) -> str | None:
        """After a trick: how the deal ends now (an outcome, or "vol_made" for the election), or None."""
        won = [side_of(t["winner"]) for t in state["tricks"]]
        if state["continuing"] is not None:
            if won[-1] != state["continuing"]:
                return "failed_all_nine"
            return "all_nine" if len(won) == TRICKS else None
        if len(won) == TO_WIN and len(set(won)) == 1:
            return "vol_made"
        return "game" if won.count(won[-1]) == TO_WIN else None

    def end_of_play(self, state: State, events: list[Event]) -> None:
        outcome = self.verdict(state)
        last = side_of(self.last_winner(state))
        if outcome == "vol_made":
            state["phase"] = "vol_decision"
            events.append({"type": "vol_made", "side": SIDES[last], "seat": self.last_winner(state)})
        elif outcome == "failed_all_nine":
            self.settle(state, outcome, last, events)
        else:
            self.settle(state, self.alone(state, "all_nine") if outcome == "all_nine" else "game", last, events)

    def alone(self, state: State, outcome: str) -> str:
        """The vol or all nine by one partner: one seat won every trick."""
        return outcome + "_alone" if len({t["winner"] for t in state["tricks"]}) == 1 else outcome

    def stop(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "stop", "seat": move["seat"]})
        self.settle(state, self.alone(state, "vol"), side_of(move["seat"]), events)

    def play_on(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "continue", "seat": move["seat"]})
        state.update(continuing=side_of(move["seat"]), phase="play")

    # ----- settlement and the end -------------------------------------------------------------
    def award(self, state: State, outcome: str) -> dict[str, Any]:
        kind, count = PENALTIES[state["options"]["failed_all_nine_penalty"]] if outcome == "failed_all_nine" \
            else AWARDS[outcome]
        return {"kind": kind, "count": count}

    def settle(self, state: State, outcome: str, side: int, events: list[Event]) -> None:
        """One award (R12) onto the chalk-board, the deal's record, then the end of the match or the next deal
        (an open match pauses between deals)."""
        board: Board = state["board"]
        award = self.award(state, outcome)
        before = net_value(board, 0)
        apply_award(board, side, award)
        delta = net_value(board, 0) - before
        record = {"deal": state["deal_no"], "dealer": state["dealer"], "chosen": list(state["chosen"]),
                  "tricks": side_tricks(state), "outcome": outcome, "side": SIDES[side], "award": award}
        state["history"].append(record)
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "changes": [delta, -delta, delta, -delta], "unit": "crosses", "outcome": outcome,
                       "side": SIDES[side], "award": dict(award), "tricks": list(record["tricks"]),
                       "board": clone(board)})
        opts = state["options"]
        if opts["match_end"] == "open":
            state["phase"] = "between_deals"
            return
        over = (state["deal_no"] >= opts["deals"] if opts["match_end"] == "deals"
                else board_value(board) >= opts["target_crosses"])
        end_deal(self, state, events, over, final=self.crosses_won)

    def next_deal_move(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "next_deal", "seat": move["seat"]})
        self.new_deal(state, events)

    def end_session(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "end_session", "seat": move["seat"]})
        close_match(state, events, self.crosses_won(state))

    def crosses_won(self, state: State) -> News:
        """The match over: the side holding the crosses, and what they are worth."""
        return {"winner": state["board"]["crosses"]["side"], "crosses": board_value(state["board"])}

    def partnerships(self, state: State) -> list[list[int]] | None:
        """A forfeit loses for the seat's side (docs/games/styrivolt.md, "A forfeit")."""
        return [[0, 2], [1, 3]]

    def forfeit_stake(self, state: State) -> int:
        """A forfeit pays as a single cross does."""
        stake: int = state["options"]["stake_per_cross"]
        return stake

    def result(self, state: State) -> dict[str, Any] | None:
        """Only crosses count: the side holding them wins by their value V (a double is 2); none is a draw."""
        if state["phase"] != OVER:
            return None
        board = state["board"]
        value, holder = board_value(board), board["crosses"]["side"]
        stake = state["options"]["stake_per_cross"]
        if holder is None:
            scores, payoffs, ranking = [0] * 4, [0] * 4, [0, 1, 2, 3]
        else:
            win = SIDES.index(holder)
            scores = [value if side_of(s) == win else 0 for s in range(4)]
            payoffs = [value * stake if side_of(s) == win else -value * stake for s in range(4)]
            ranking = [win, win + 2, 1 - win, 3 - win]
        return {"scores": scores, "payoffs": payoffs, "ranking": ranking, "winner": holder,
                "board": clone(board), "deals": clone(state["history"])}

    # ----- views and checks -----------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The discards are seen only by the seat that laid them."""
        out = super().view(state, seat)
        if "discards" in out and (seat is None or seat != state.get("taker")):
            out["discards"] = None
        return out

    def exposed_cards(self, state: State) -> set[Card]:
        """The turned stock cards, once taken into a hand."""
        return set(state["turned"]) if state.get("taker") is not None else set()

    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        turned = state["turned"] if state["taker"] is None else []
        return [*state["hands"], state["rest"], turned, state["discards"], played]

    def check_carried(self, state: State) -> None:
        """Before a deal: one dealing per deal, one well-formed record per deal settled, the board exactly the
        replay of their awards, and the match not over by its end condition."""
        opts = state["options"]
        deal_no = state["deal_no"]
        last = opts["deals"] - 1 if opts["match_end"] == "deals" else 10**6
        need(is_int(deal_no, 0, last), "'deal_no' is out of range.")
        need(state["dealings"] == deal_no, "'dealings' must equal the number of deals dealt.")
        history = need_list(state["history"], "history", deal_no)
        replayed = fresh_board()
        for i, record in enumerate(history):
            self.check_record(state, i, record)
            apply_award(replayed, SIDES.index(record["side"]), record["award"])
        board = need_dict(state["board"], "board", ("bars", "crosses"))
        need_exact_keys(board, "board", ("bars", "crosses"))
        bars = need_list(board["bars"], "board.bars", 2)
        crosses = need_dict(board["crosses"], "board.crosses", ("side", "singles", "doubles"))
        need(all(is_int(b, 0, 2) for b in bars) and is_int(crosses["singles"], 0) and is_int(crosses["doubles"], 0)
             and board == replayed, "'board' is not the replay of the deals' awards.")
        need(opts["match_end"] != "crosses" or board_value(board) < opts["target_crosses"],
             "A side already holds the target crosses: the match is over.")

    def check_record(self, state: State, i: int, record: Any) -> None:
        opts = state["options"]
        rec = need_dict(record, "history entry", RECORD_KEYS)
        need_exact_keys(rec, "history entry", RECORD_KEYS)
        chosen, tricks = rec["chosen"], rec["tricks"]
        need(rec["deal"] == i + 1 and is_int(rec["deal"]) and rec["dealer"] == (opts["first_dealer"] + i) % 4
             and is_int(rec["dealer"]), "A history entry has the wrong deal number or dealer.")
        need(two_suits(chosen), "A history entry's chosen suits are invalid.")
        need(rec["outcome"] in OUTCOMES and rec["side"] in SIDES, "A history entry's outcome is invalid.")
        need(rec["award"] == self.award(state, rec["outcome"]) and all(is_int(v) for v in (rec["award"]["count"],)),
             "A history entry's award does not fit its outcome.")
        need(isinstance(tricks, list) and len(tricks) == 2 and all(is_int(t, 0, TRICKS) for t in tricks),
             "A history entry's tricks are invalid.")
        scorer = SIDES.index(rec["side"])
        need(plausible_tricks(rec["outcome"], tricks[scorer], tricks[1 - scorer]),
             "A history entry's tricks do not fit its outcome.")


GAME = Styrivolt()
