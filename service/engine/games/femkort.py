"""Femkort (Five-Cards): a Swedish last-trick game. Spec: shared/rules/femkort.md.

2 to 10 players, each for themselves, 5 cards each from a 52-card pack (the rest unused and
never shown). Aces high, no trumps. Followers must follow suit and, when following, beat the best
card of the suit led so far if they can. Only the fifth trick counts: its winner wins the deal.

Match: ``"deals"`` (each deal has its own pot of n antes for the last-trick winner) or
``"first_to"`` (antes pile up in one pot until someone has ``target_wins`` deal wins).
Variant ``better_cards``: anyone may ask for a redeal until the first card of trick 5; everyone
else must agree, answering in turn clockwise from the caller (rulings R6 a-e).

State keys besides the core: dealer, deal_no, pot, paid, taken, wins, history, hands, rest,
tricks (completed tricks of this deal), trick (the trick in progress), called, call.
"""
from __future__ import annotations

from typing import Any

from ..base import (OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, not_your_turn,
                    play_moves, require_in_hand, require_turn)
from ..cards import STANDARD_PACK, Card
from ..checks import need, need_bool, need_cards, need_dict, need_int, need_list, need_plays, need_seat
from ..errors import IllegalMove
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..seats import left, order_from, rank_seats
from ..tricks import TrickRules, TrickTable

HAND = 5
TRICKS = TrickTable(TrickRules(head=True))
KEYS = ("dealer", "deal_no", "pot", "paid", "taken", "wins", "history", "hands", "rest", "tricks", "trick",
        "called", "call")


class Femkort(Game):
    id = "femkort"
    name = "Femkort"
    summary = "Swedish last-trick game: follow suit and head the trick; only the fifth trick wins the pot."
    min_players = 2
    max_players = 10
    default_players = 4
    options = (
        Option("ante", "integer", 1, "Chips each player pays into the pot before each fresh deal.", 1, 1000),
        Option("match", "choice", "deals", "Match format: a fixed number of deals, or first to a number of "
               "deal wins.", choices=("deals", "first_to")),
        Option("deals", "integer", 1, "Number of deals in the \"deals\" format.", 1, 1000),
        Option("target_wins", "integer", 3, "Deal wins needed in the \"first_to\" format.", 1, 100),
        Option("better_cards", "boolean", False, "Enable the \"call for better cards\" variant."),
    )
    actions = {
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 2, "action": "play", "card": "KH"}),
        "call_better_cards": Action("Ask for the deal to be annulled and redealt (variant).",
                                    example={"seat": 3, "action": "call_better_cards"}),
        "accept_better_cards": Action("Agree to a pending call for better cards.",
                                      example={"seat": 0, "action": "accept_better_cards"}),
        "refuse_better_cards": Action("Refuse a pending call for better cards.",
                                      example={"seat": 0, "action": "refuse_better_cards"}),
    }
    sample_options = ({"better_cards": True}, {"match": "first_to", "target_wins": 2, "ante": 2},
                      {"deals": 3, "better_cards": True, "first_dealer": 1})

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        return {"play": {"play": self.play_card, "call_better_cards": self.call,
                         "accept_better_cards": self.answer, "refuse_better_cards": self.answer}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    # ----- the deal ---------------------------------------------------------------------
    def start(self, state: State) -> None:
        n = state["players"]
        state.update(dealer=state["options"]["first_dealer"], deal_no=0, pot=0, paid=[0] * n, taken=[0] * n,
                     wins=[0] * n, history=[], phase="play")
        self.fresh_deal(state, [])

    def fresh_deal(self, state: State, events: list[Event]) -> None:
        n, ante = state["players"], state["options"]["ante"]
        state["deal_no"] += 1
        state["dealer"] = (state["options"]["first_dealer"] + state["deal_no"] - 1) % n
        state["paid"] = [p + ante for p in state["paid"]]
        state["pot"] += n * ante
        self.deal_cards(state)
        events.append({"type": "deal", "deal": state["deal_no"], "dealer": state["dealer"], "pot": state["pot"]})

    def deal_cards(self, state: State) -> None:
        deal = self.next_deal(state)
        state.update(hands=deal["hands"], rest=deal["rest"], tricks=[], trick={"plays": []}, called=[], call=None)

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Packets of 2 then 3, clockwise from eldest (R3)."""
        n = state["players"]
        eldest = left(state["dealer"], n)
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(n):
            seat = (eldest + i) % n
            hands[seat] = cards[2 * i:2 * i + 2] + cards[2 * n + 3 * i:2 * n + 3 * i + 3]
        return {"hands": hands, "rest": cards[HAND * n:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, STANDARD_PACK)

    # ----- whose turn -------------------------------------------------------------------
    def leader(self, state: State) -> int:
        tricks = state["tricks"]
        return tricks[-1]["winner"] if tricks else left(state["dealer"], state["players"])

    def on_turn(self, state: State) -> int:
        plays = state["trick"]["plays"]
        return left(plays[-1][0], state["players"]) if plays else self.leader(state)

    def answer_order(self, state: State, caller: int) -> list[int]:
        return order_from(caller, state["players"])[1:]

    def due_to_answer(self, state: State) -> int:
        call = state["call"]
        return self.answer_order(state, call["caller"])[len(call["answers"])]

    def may_call(self, state: State) -> bool:
        """The variant is on, no call is pending and trick 5 has not begun (R6 b)."""
        return (state["options"]["better_cards"] and state["call"] is None
                and not (len(state["tricks"]) == HAND - 1 and state["trick"]["plays"]))

    def to_act(self, state: State) -> list[int]:
        return sorted({m["seat"] for m in self.legal_moves(state)})

    def legal_moves(self, state: State) -> list[Move]:
        if state["call"] is not None:
            seat = self.due_to_answer(state)
            return [{"seat": seat, "action": "accept_better_cards"}, {"seat": seat, "action": "refuse_better_cards"}]
        seat = self.on_turn(state)
        moves = play_moves(seat, TRICKS.legal_cards(state["hands"][seat], state["trick"]["plays"]))
        if self.may_call(state):
            moves += [{"seat": s, "action": "call_better_cards"} for s in range(state["players"])
                      if s not in state["called"]]
        return moves

    # ----- moves ------------------------------------------------------------------------
    def play_card(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        require_turn(move, self.on_turn(state))
        if state["call"] is not None:
            raise IllegalMove("call_pending", "Wait: a call for better cards must be answered first.")
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        plays = state["trick"]["plays"]
        TRICKS.check(hand, plays, card)
        hand.remove(card)
        plays.append([seat, card])
        if len(plays) == state["players"]:
            self.finish_trick(state, events)

    def finish_trick(self, state: State, events: list[Event]) -> None:
        plays = state["trick"]["plays"]
        winner = TRICKS.winner(plays)
        state["tricks"].append({"plays": plays, "winner": winner})
        state["trick"] = {"plays": []}
        events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
        if len(state["tricks"]) == HAND:
            self.finish_deal(state, winner, events)

    def finish_deal(self, state: State, winner: int, events: list[Event]) -> None:
        opts = state["options"]
        state["wins"][winner] += 1
        state["history"].append({"deal": state["deal_no"], "dealer": state["dealer"], "winner": winner,
                                 "pot": state["pot"]})
        events.append({"type": "deal_won", "deal": state["deal_no"], "seat": winner, "pot": state["pot"]})
        if opts["match"] == "deals":
            self.pay_pot(state, winner)
            over = state["deal_no"] == opts["deals"]
        else:
            over = state["wins"][winner] == opts["target_wins"]
            if over:
                self.pay_pot(state, winner)
        if over:
            state["phase"] = OVER
            events.append({"type": "match_over"})
        else:
            self.fresh_deal(state, events)

    def pay_pot(self, state: State, winner: int) -> None:
        state["taken"][winner] += state["pot"]
        state["pot"] = 0

    def call(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        if not state["options"]["better_cards"]:
            raise IllegalMove("variant_not_enabled", "Calling for better cards is not allowed in this match.")
        if len(state["tricks"]) == HAND - 1 and state["trick"]["plays"]:
            raise IllegalMove("too_late", "Too late: the last trick has begun.")
        if state["call"] is not None:
            raise IllegalMove("call_pending", "A call for better cards is already being answered.")
        if seat in state["called"]:
            raise IllegalMove("already_called", "You have already called for better cards in this deal.")
        state["called"].append(seat)
        state["call"] = {"caller": seat, "answers": []}
        events.append({"type": "better_cards_called", "seat": seat})

    def answer(self, state: State, move: Move, events: list[Event]) -> None:
        seat, accept = move["seat"], move["action"] == "accept_better_cards"
        if not state["options"]["better_cards"]:
            raise IllegalMove("variant_not_enabled", "Calling for better cards is not allowed in this match.")
        if state["call"] is None:
            raise IllegalMove("not_your_turn", "There is no call for better cards to answer.")
        due = self.due_to_answer(state)
        if seat != due:
            raise not_your_turn(seat, due)
        events.append({"type": "better_cards_answer", "seat": seat, "accept": accept})
        if not accept:
            state["call"] = None
            return
        state["call"]["answers"].append(seat)
        if len(state["call"]["answers"]) == state["players"] - 1:
            self.deal_cards(state)  # same dealer, same pot, same deal number (R6 e)
            events.append({"type": "redeal", "deal": state["deal_no"], "dealer": state["dealer"]})

    # ----- the end ----------------------------------------------------------------------
    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n = state["players"]
        payoffs = [state["taken"][s] - state["paid"][s] for s in range(n)]
        ranking = rank_seats(n, lambda s: (-payoffs[s], -state["wins"][s], s))
        return {"scores": list(state["wins"]), "payoffs": payoffs, "ranking": ranking,
                "deals": [dict(h) for h in state["history"]]}

    # ----- validation -------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], state["rest"], played]

    def validate(self, state: State) -> None:
        self.known_keys(state, KEYS)
        n, opts = state["players"], state["options"]
        need(state["phase"] in ("play", OVER), "Femkort's phases are 'play' and 'over'.")
        deal_no = need_int(state["deal_no"], "deal_no", 1)
        need(state["dealer"] == (opts["first_dealer"] + deal_no - 1) % n, "'dealer' does not match the deal number.")
        self.validate_chips(state, n, deal_no)
        hands = need_list(state["hands"], "hands", n)
        for s, h in enumerate(hands):
            need_cards(h, f"hands[{s}]")
        need_cards(state["rest"], "rest")
        need(len(state["rest"]) == 52 - HAND * n, "'rest' must hold the undealt cards.")
        self.validate_tricks(state, n)
        self.validate_calls(state, n)

    def validate_chips(self, state: State, n: int, deal_no: int) -> None:
        opts = state["options"]
        ante = opts["ante"]
        paid = need_list(state["paid"], "paid", n)
        taken = need_list(state["taken"], "taken", n)
        wins = need_list(state["wins"], "wins", n)
        need(all(p == deal_no * ante for p in paid), "'paid' must be the antes of every deal so far.")
        history = need_list(state["history"], "history")
        over = state["phase"] == OVER
        need(len(history) == deal_no - (0 if over else 1), "'history' must list every finished deal.")
        counts = [0] * n
        for k, h in enumerate(history):
            need_dict(h, "history entry", ("deal", "dealer", "winner", "pot"))
            need(h["deal"] == k + 1 and h["dealer"] == (opts["first_dealer"] + k) % n,
                 "'history' deals or dealers are out of order.")
            counts[need_seat(h["winner"], n, "history winner")] += 1
            pot_then = n * ante * (1 if opts["match"] == "deals" else k + 1)
            need(h["pot"] == pot_then, "A 'history' pot is not what the antes make.")
        need(wins == counts, "'wins' must count the deals won in 'history'.")
        expected_taken = [0] * n
        if opts["match"] == "deals":
            for h in history:
                expected_taken[h["winner"]] += h["pot"]
            need(deal_no <= opts["deals"], "More deals than the match has.")
            need(over == (deal_no == opts["deals"] and len(history) == deal_no), "'phase' does not match the deals.")
        else:
            need(all(w < opts["target_wins"] for w in counts[:]) or over, "Someone has already won the match.")
            if over:
                champion = history[-1]["winner"]
                need(counts[champion] == opts["target_wins"], "The match ended without a champion.")
                need(sum(1 for w in counts if w >= opts["target_wins"]) == 1, "Only one player can reach the target.")
                expected_taken[champion] = n * ante * deal_no
        need(taken == expected_taken, "'taken' does not match the pots won.")
        need(state["pot"] == sum(paid) - sum(taken), "'pot' must hold every ante not yet won.")

    def validate_tricks(self, state: State, n: int) -> None:
        """Trick by trick, replay who led, that every card was legal then, and who won."""
        tricks = need_list(state["tricks"], "tricks")
        trick = need_dict(state["trick"], "trick", ("plays",))
        over = state["phase"] == OVER
        need(len(tricks) == (HAND if over else len(tricks)) and len(tricks) <= HAND - (0 if over else 1),
             "Wrong number of completed tricks.")
        for t in tricks:
            need_dict(t, "trick", ("plays", "winner"))
            need(len(need_plays(t["plays"], n, "tricks")) == n, "A completed trick must hold one card per player.")
        current = need_plays(trick["plays"], n, "trick")
        need(len(current) < n and not (over and current), "The trick in progress is too long.")
        all_tricks = [t["plays"] for t in tricks] + [current]
        # A seat's hand before trick k is its hand now plus what it played from trick k on.
        holding = [list(h) for h in state["hands"]]
        for k in range(len(all_tricks) - 1, -1, -1):
            for seat, card in all_tricks[k]:
                holding[seat].append(card)
            self.replay_trick(state, all_tricks[k], [list(h) for h in holding], k, tricks)
        for s, h in enumerate(state["hands"]):
            played = len(tricks) + sum(1 for p in current if p[0] == s)
            need(len(h) == HAND - played, f"Seat {s} holds the wrong number of cards.")

    def replay_trick(self, state: State, plays: list[Any], hands: list[list[Card]], k: int,
                     tricks: list[Any]) -> None:
        n = state["players"]
        leader = tricks[k - 1]["winner"] if k else left(state["dealer"], n)
        need(not plays or plays[0][0] == leader, f"Trick {k + 1} was not led by its leader.")
        for i, (seat, card) in enumerate(plays):
            need(seat == (leader + i) % n, f"Trick {k + 1} was not played clockwise.")
            need(card in TRICKS.legal_cards(hands[seat], plays[:i]), f"Trick {k + 1} holds an illegal card {card}.")
            hands[seat].remove(card)
        if k < len(tricks):
            need(tricks[k]["winner"] == TRICKS.winner(plays), f"Trick {k + 1} has the wrong winner.")

    def validate_calls(self, state: State, n: int) -> None:
        called = need_list(state["called"], "called")
        need(all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n for s in called)
             and len(set(called)) == len(called), "'called' must list distinct seats.")
        call = state["call"]
        enabled = need_bool(state["options"]["better_cards"], "better_cards")
        need(enabled or (not called and call is None), "Calls are recorded but the variant is off.")
        if call is None:
            return
        need(state["phase"] != OVER, "A call is pending after the match ended.")
        call = need_dict(call, "call", ("caller", "answers"))
        caller = need_seat(call["caller"], n, "call.caller")
        need(caller in called, "The caller is not recorded as having called.")
        answers = need_list(call["answers"], "call.answers")
        need(len(answers) < n - 1 and answers == self.answer_order(state, caller)[:len(answers)],
             "'call.answers' are not the first answers in order.")
        need(not (len(state["tricks"]) == HAND - 1 and state["trick"]["plays"]), "A call is pending in trick 5.")


GAME = Femkort()
