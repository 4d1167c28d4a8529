"""Femkort (Five-Cards): a Swedish last-trick game. Spec: shared/rules/femkort.md.

2 to 10 players, each for themselves, 5 cards each from a 52-card pack (the rest unused and
never shown). Aces high, no trumps. Followers must follow suit and, when following, beat the best
card of the suit led so far if they can. Only the fifth trick counts: its winner wins the deal.

Match: ``"deals"`` (each deal has its own pot of n antes for the last-trick winner) or
``"first_to"`` (antes pile up in one pot until someone has ``target_wins`` deal wins).
Variant ``better_cards``: anyone may ask for a redeal until the first card of trick 5; everyone
else must agree, answering in turn clockwise from the caller (rulings R6 a-e).

State keys besides the core: dealer, deal_no, pot, paid, taken, wins, hands, rest, tricks (completed
tricks of this deal), trick (the trick in progress), called, call. The state holds running totals, not
a history of deals: each deal's outcome is in the events of the move that ends it (``deal_won``).
"""
from __future__ import annotations

from typing import Any

from ..base import (OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, not_your_turn,
                    play_moves, require_in_hand, require_turn)
from ..cards import STANDARD_PACK, Card
from ..checks import is_int, need, need_bool, need_cards, need_dict, need_int, need_list, need_plays, need_seat
from ..errors import IllegalMove
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..seats import left, order_from, rank_seats
from ..tricks import TrickRules, TrickTable

HAND = 5
TRICKS = TrickTable(TrickRules(head=True))
KEYS = ("dealer", "deal_no", "pot", "paid", "taken", "wins", "hands", "rest", "tricks", "trick", "called",
        "call")
RANK = TRICKS.plain  # rank -> strength (no trumps in Femkort)
DONE_KEYS = frozenset({"plays", "winner"})  # a completed trick


def legal_play(hand: list[Card], led: str | None, best: int, card: Card) -> bool:
    """Was ``card`` (in ``hand``) a legal play, the suit led being ``led`` (None: a lead) and ``best`` the
    strength of the best card of that suit in the trick so far? The duty ladder of ``TRICKS`` (follow
    suit, then head the trick; no trumps), asking only the question this card raises: a card of another
    suit is legal when void, a card of the suit led when it heads the trick or nothing in the hand does.
    Validation replays every recorded play with this; the tests pin it to ``TRICKS.legal_cards``."""
    if led is None:
        return True
    if card[1] != led:
        return all(c[1] != led for c in hand)
    return RANK[card[0]] > best or not any(c[1] == led and RANK[c[0]] > best for c in hand)


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
                     wins=[0] * n, phase="play")
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
        events.append({"type": "deal_won", "deal": state["deal_no"], "dealer": state["dealer"], "seat": winner,
                       "pot": state["pot"]})
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
        return {"scores": list(state["wins"]), "payoffs": payoffs, "ranking": ranking}

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
        wins = self.validate_chips(state, n, deal_no)
        hands = need_list(state["hands"], "hands", n)
        for s, h in enumerate(hands):
            need_cards(h, f"hands[{s}]")
        need_cards(state["rest"], "rest")
        need(len(state["rest"]) == 52 - HAND * n, "'rest' must hold the undealt cards.")
        last_winner = self.validate_tricks(state, n)
        if state["phase"] == OVER:
            # the deal that ended the match is still on the table: its fifth trick's winner won it
            need(last_winner is not None and wins[last_winner] >= 1, "The last deal's winner has no deal win.")
            need(opts["match"] == "deals" or wins[last_winner] == opts["target_wins"],
                 "The match must end with the deal that gave the champion the target.")
        self.validate_calls(state, n)

    def validate_chips(self, state: State, n: int, deal_no: int) -> list[int]:
        """The running totals agree with the deal number and the format: antes paid, deals won, pots taken
        and the pot (every ante paid in is either taken or still in the pot). Returns the wins."""
        opts = state["options"]
        ante, over = opts["ante"], state["phase"] == OVER
        paid = need_list(state["paid"], "paid", n)
        taken = need_list(state["taken"], "taken", n)
        wins = need_list(state["wins"], "wins", n)
        need(all(is_int(p) and p == deal_no * ante for p in paid), "'paid' must be the antes of every deal so far.")
        need(all(is_int(w, 0) for w in wins), "'wins' must be whole numbers of at least 0.")
        need(sum(wins) == deal_no - (0 if over else 1), "'wins' must add up to the deals finished.")
        expected_taken = [0] * n
        if opts["match"] == "deals":
            need(deal_no <= opts["deals"], "More deals than the match has.")
            need(deal_no == opts["deals"] or not over, "'phase' does not match the deals.")
            expected_taken = [w * n * ante for w in wins]  # every deal's pot is n antes
        else:
            target = opts["target_wins"]
            champions = [s for s, w in enumerate(wins) if w >= target]
            if over:
                need(len(champions) == 1 and wins[champions[0]] == target,
                     "The match must end with exactly one player at the target.")
                expected_taken[champions[0]] = n * ante * deal_no  # the one pot of every deal's antes
            else:
                need(not champions, "Someone has already won the match.")
        need(all(is_int(t) and t == e for t, e in zip(taken, expected_taken)), "'taken' does not match the pots won.")
        need(is_int(state["pot"]) and state["pot"] == sum(paid) - sum(taken), "'pot' must hold every ante not yet won.")
        return wins

    def validate_tricks(self, state: State, n: int) -> int | None:
        """Replay the deal trick by trick from the hands it began with: who led, that every card was legal
        then (follow suit, head the trick), and who won. Returns the winner of the last completed trick."""
        tricks = need_list(state["tricks"], "tricks")
        trick = state["trick"]
        need(isinstance(trick, dict) and trick.keys() == {"plays"}, "'trick' must be an object with just 'plays'.")
        over = state["phase"] == OVER
        need(len(tricks) == (HAND if over else len(tricks)) and len(tricks) <= HAND - (0 if over else 1),
             "Wrong number of completed tricks.")
        for t in tricks:
            need(isinstance(t, dict) and t.keys() == DONE_KEYS, "A completed trick needs just 'plays' and 'winner'.")
            need(len(need_plays(t["plays"], n, "tricks")) == n, "A completed trick must hold one card per player.")
            need(is_int(t["winner"], 0, n - 1), "A trick's winner must be a seat.")
        current = need_plays(trick["plays"], n, "trick")
        need(len(current) < n and not (over and current), "The trick in progress is too long.")
        all_tricks = [t["plays"] for t in tricks] + [current]
        # Each seat's hand at the deal: its hand now plus every card it played; then replay forwards.
        holding = [list(h) for h in state["hands"]]
        for plays in all_tricks:
            for seat, card in plays:
                holding[seat].append(card)
        leader, winner = left(state["dealer"], n), None
        for k, plays in enumerate(all_tricks):
            if not plays:
                continue
            need(plays[0][0] == leader, f"Trick {k + 1} was not led by its leader.")
            led = plays[0][1][1]
            best, winner = -1, leader
            for i, (seat, card) in enumerate(plays):
                need(seat == (leader + i) % n, f"Trick {k + 1} was not played clockwise.")
                hand = holding[seat]
                need(legal_play(hand, led if i else None, best, card), f"Trick {k + 1} holds an illegal card {card}.")
                hand.remove(card)
                if card[1] == led and RANK[card[0]] > best:
                    best, winner = RANK[card[0]], seat
            if k < len(tricks):
                need(tricks[k]["winner"] == winner, f"Trick {k + 1} has the wrong winner.")
                leader = winner
        for s, h in enumerate(state["hands"]):
            played = len(tricks) + sum(1 for p in current if p[0] == s)
            need(len(h) == HAND - played, f"Seat {s} holds the wrong number of cards.")
        return tricks[-1]["winner"] if tricks else None

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
