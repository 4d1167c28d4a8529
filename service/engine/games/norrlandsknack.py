"""Norrlandsknack (Norseman's Knock): a Swedish Rams-family game. Spec: shared/rules/norrlandsknack.md.

3 to 5 players, each for himself, 52 cards ranking A K Q J T 9 ... 2. Each seat's score counts
down from ``start_score`` towards 0; every seat stakes ``stake`` chips into a pot at the start, and
the first seat(s) to reach 0 share the pot.

A deal: five cards each, singly from forehand; the next card is turned for trumps and the dealer
takes it (he holds six). The rest is the talon (hidden). Then:

* declare, from forehand. First deal: ``knock`` (promise a trick; everybody then plays, the others
  as lurkers) or ``lurk``; if all lurk the same dealer deals again (R8). Later deals: ``knock`` or
  ``pass`` until someone knocks, then ``join`` or ``pass``; nobody knocks: a void deal; a lone
  knocker is credited ``lone_knocker`` (five tricks or nothing) without play.
* buy, active seats from forehand, dealer last: discard 0-5 cards face down and draw as many from
  the talon; the dealer discards 1-6 and draws one fewer (R6).
* play five tricks among the active seats, forehand's first active seat leading; ``trick_rule``
  "strict" (follow and head, else trump and overtrump, R7) or "follow_only".
* score: -1 per trick (not below 0); a loafed seat (a knocker below ``knocker_min`` tricks, a
  joiner without a trick in a later deal) goes to max(score + 5, 10) and pays a chip to the pot.
  A score of 0 ends the match; so does the ``max_deals`` cap (lowest scores win).

A seat that passes throws its hand in face down (into its ``discards``).

State keys besides the core: dealer, deal_no, scores, chips, pot, loaves (per seat, how many times it
has been loafed: the loaf chips it paid into the pot), trump, hands, rest (the talon, top first),
discards (face down per seat), declarations ([seat, action] in order), buys (how many active seats have
bought), tricks, trick. Only the deal on the table is kept: a finished deal's record (dealer, knocker,
active seats, tricks won, loaves) is the ``deal_scored`` event, so the state does not grow with the match.
"""
from __future__ import annotations

from itertools import combinations
from typing import Any

from ..base import CORE_KEYS, OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, \
    play_moves, require_in_hand
from ..cards import STANDARD_PACK, SUITS, Card, card_name
from ..checks import is_int, need, need_cards, need_dict, need_int, need_list, need_plays
from ..errors import IllegalMove
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import left, next_matching, order_from, rank_seats
from ..tricks import TrickRules, TrickTable

HAND = 5
TRICKS = 5
TABLES = {
    "strict": TrickTable(TrickRules(head=True, must_trump=True, overtrump=True, undertrump="allowed")),
    "follow_only": TrickTable(TrickRules()),
}
KEYS = ("dealer", "deal_no", "scores", "chips", "pot", "loaves", "trump", "hands", "rest", "discards",
        "declarations", "buys", "tricks", "trick")
PLAYING = ("knock", "join", "lurk")


def loafed_seats(first: bool, knocker: int | None, active: list[int], won: list[int], knocker_min: int) -> list[int]:
    """Who is loafed (section 6): nobody without play; else a short knocker, and a trickless joiner."""
    if len(active) < 2:
        return []
    return [s for s in active
            if (won[s] < knocker_min if s == knocker else not first and won[s] == 0)]


def score_entry(scores: list[int], entry: dict[str, Any]) -> None:
    """Apply one finished deal to the scores: tricks first (not below 0), then the loaves."""
    for s in entry["active"]:
        scores[s] = max(0, scores[s] - entry["tricks"][s])
    for s in entry["loafed"]:
        scores[s] = max(scores[s] + 5, 10)


class Norrlandsknack(Game):
    id = "norrlandsknack"
    name = "Norrlandsknack"
    summary = ("Swedish knock-and-buy trick game: knock to promise a trick, buy from the talon, count down "
               "to zero to take the pot; fail and you are loafed.")
    min_players = 3
    max_players = 5
    default_players = 4
    options = (
        Option("start_score", "integer", 10, "Score every seat starts from (counts down to 0).", 1),
        Option("stake", "integer", 5, "Chips each seat puts into the pot when the match starts.", 0),
        Option("starting_chips", "integer", 100, "Initial chip balance of every seat (may go negative)."),
        Option("knocker_min", "integer", 1, "Tricks a knocker must win to avoid a loaf.", 1, 5),
        Option("lone_knocker", "choice", "all_tricks", "What an unopposed knocker is credited with: "
               "five tricks or nothing.", choices=("all_tricks", "nothing")),
        Option("trick_rule", "choice", "strict", "\"strict\": follow and head the trick, else trump and "
               "overtrump; \"follow_only\": just follow suit.", choices=("strict", "follow_only")),
        Option("max_deals", "integer", 200, "Safety cap: after this many deals the lowest scores share the pot.", 1),
    )
    actions = {
        "knock": Action("Knock: play this deal and undertake to win a trick.", example={"seat": 1, "action": "knock"}),
        "lurk": Action("First deal only: play this deal without any obligation.",
                       example={"seat": 1, "action": "lurk"}),
        "join": Action("Later deals, after a knock: play this deal (you must win a trick).",
                       example={"seat": 3, "action": "join"}),
        "pass": Action("Later deals: drop out of this deal.", example={"seat": 1, "action": "pass"}),
        "buy": Action("Discard these cards face down and draw replacements from the talon (the dealer draws "
                      "one fewer).", {"cards": Param("cards", "distinct cards you hold")},
                      {"seat": 2, "action": "buy", "cards": ["4D", "9C"]}),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 1, "action": "play", "card": "QS"}),
    }
    sample_options = (
        {"trick_rule": "follow_only", "start_score": 5, "stake": 0},
        {"knocker_min": 2, "lone_knocker": "nothing", "first_dealer": 1, "starting_chips": 0},
        {"max_deals": 3, "start_score": 20, "stake": 2, "first_dealer": 2},
        {"knocker_min": 5, "max_deals": 1, "starting_chips": -10, "lone_knocker": "nothing"},
    )

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        return {"declare": {"knock": self.knock, "lurk": self.lurk, "join": self.join, "pass": self.pass_},
                "buy": {"buy": self.buy}, "play": {"play": self.play_card}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    # ----- the match and the deal ------------------------------------------------------
    def start(self, state: State) -> None:
        n, opts = state["players"], state["options"]
        state.update(dealer=opts["first_dealer"], deal_no=1, scores=[opts["start_score"]] * n,
                     chips=[opts["starting_chips"] - opts["stake"]] * n, pot=n * opts["stake"], loaves=[0] * n)
        self.deal_cards(state, [])

    def deal_cards(self, state: State, events: list[Event]) -> None:
        """Shuffle (or take the next explicit deal), give the dealer the turn-up, open the declarations."""
        n, dealer = state["players"], state["dealer"]
        deal = self.next_deal(state)
        hands, rest = deal["hands"], deal["rest"]
        hands[dealer].append(rest[0])
        state.update(hands=hands, rest=rest[1:], trump=rest[0][1], discards=[[] for _ in range(n)],
                     declarations=[], buys=0, tricks=[], trick={"plays": []}, phase="declare")
        events.append({"type": "deal", "deal": state["deal_no"], "dealer": dealer, "trump": state["trump"]})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Singly from forehand: card k to seat dealer+1+k; then the turn-up, then the talon."""
        n, dealer = state["players"], state["dealer"]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for k in range(HAND * n):
            hands[(dealer + 1 + k) % n].append(cards[k])
        return {"hands": hands, "rest": cards[HAND * n:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, STANDARD_PACK)

    # ----- who is where ----------------------------------------------------------------
    def forehand(self, state: State) -> int:
        return left(state["dealer"], state["players"])

    def knocker(self, state: State) -> int | None:
        for s, a in state["declarations"]:
            if a == "knock":
                return s
        return None

    def active(self, state: State) -> list[int]:
        """The seats playing this deal, clockwise from forehand (first deal: everyone once knocked).

        Declarations are made in turn from forehand (check_state verifies it), so the seats that
        declared to play are already in clockwise order from forehand."""
        if state["deal_no"] == 1:
            return order_from(self.forehand(state), state["players"]) if self.knocker(state) is not None else []
        return [s for s, a in state["declarations"] if a in PLAYING]

    def declarer(self, state: State) -> int:
        """The next seat to declare: they declare in turn from forehand, one each."""
        return (self.forehand(state) + len(state["declarations"])) % state["players"]

    def buyer(self, state: State, active: list[int]) -> int:
        """The active seats buy in turn from forehand, one each."""
        return active[state["buys"]]

    def on_turn(self, state: State, active: list[int]) -> int:
        """Who plays next: the next active seat clockwise from the last card, else the trick's leader."""
        plays = state["trick"]["plays"]
        if plays:
            return active[(active.index(plays[-1][0]) + 1) % len(active)]
        return state["tricks"][-1]["winner"] if state["tricks"] else active[0]

    def table(self, state: State) -> TrickTable:
        return TABLES[state["options"]["trick_rule"]]

    def turn_seat(self, state: State) -> int:
        phase = state["phase"]
        if phase == "declare":
            return self.declarer(state)
        active = self.active(state)
        return self.buyer(state, active) if phase == "buy" else self.on_turn(state, active)

    def legal_moves(self, state: State) -> list[Move]:
        phase = state["phase"]
        if phase == "declare":
            seat = self.declarer(state)
            verbs = ("knock", "lurk") if state["deal_no"] == 1 else \
                ("knock", "pass") if self.knocker(state) is None else ("join", "pass")
            return [{"seat": seat, "action": v} for v in verbs]
        if phase == "buy":
            seat = self.buyer(state, self.active(state))
            hand = state["hands"][seat]
            low = 1 if seat == state["dealer"] else 0
            return [{"seat": seat, "action": "buy", "cards": list(c)}
                    for k in range(low, len(hand) + 1) for c in combinations(hand, k)]
        if phase == "play":
            seat = self.on_turn(state, self.active(state))
            return play_moves(seat, self.table(state).legal_cards(state["hands"][seat], state["trick"]["plays"],
                                                                   state["trump"]))
        return []

    def require_turn(self, state: State, move: Move, doing: str, due: int | None = None) -> None:
        """``due``: the seat on turn when the caller already knows it."""
        if due is None:
            due = self.turn_seat(state)
        if move["seat"] != due:
            raise IllegalMove("not_your_turn", f"It is not your turn: seat {due} is to {doing}.", seat=move["seat"])

    # ----- declarations ------------------------------------------------------------------
    def knock(self, state: State, move: Move, events: list[Event]) -> None:
        if self.knocker(state) is not None:
            raise IllegalMove("wrong_phase", "Someone has already knocked: you may join or pass.")
        self.declare(state, move, events)

    def lurk(self, state: State, move: Move, events: list[Event]) -> None:
        if state["deal_no"] != 1:
            raise IllegalMove("wrong_phase", "You may lurk only in the first deal: now knock, join or pass.")
        self.declare(state, move, events)

    def join(self, state: State, move: Move, events: list[Event]) -> None:
        if state["deal_no"] == 1:
            raise IllegalMove("wrong_phase", "In the first deal you knock or lurk.")
        if self.knocker(state) is None:
            raise IllegalMove("wrong_phase", "Nobody has knocked yet: you may knock or pass.")
        self.declare(state, move, events)

    def pass_(self, state: State, move: Move, events: list[Event]) -> None:
        if state["deal_no"] == 1:
            raise IllegalMove("wrong_phase", "Nobody drops out of the first deal: knock or lurk.")
        self.declare(state, move, events)

    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        self.require_turn(state, move, "declare")
        seat, action = move["seat"], move["action"]
        state["declarations"].append([seat, action])
        events.append({"type": "declare", "seat": seat, "action": action})
        if action == "pass":  # the hand is thrown in face down
            state["discards"][seat], state["hands"][seat] = state["hands"][seat], []
        decided = len(state["declarations"])
        if state["deal_no"] == 1:
            if action == "knock":
                self.begin_buy(state, events)
            elif decided == state["players"]:  # all lurked: the same dealer deals again (R8)
                events.append({"type": "redeal", "deal": 1, "dealer": state["dealer"]})
                self.deal_cards(state, events)
            return
        if decided < state["players"]:
            return
        if len(self.active(state)) < 2:  # void deal, or a lone knocker: no play
            self.end_deal(state, events)
        else:
            self.begin_buy(state, events)

    def begin_buy(self, state: State, events: list[Event]) -> None:
        state["phase"] = "buy"
        events.append({"type": "buying", "active": sorted(self.active(state)), "knocker": self.knocker(state)})

    # ----- buying ------------------------------------------------------------------------
    def buy(self, state: State, move: Move, events: list[Event]) -> None:
        active = self.active(state)
        self.require_turn(state, move, "buy", self.buyer(state, active))
        seat, cards = move["seat"], move["cards"]
        hand = state["hands"][seat]
        for c in cards:
            require_in_hand(hand, c)
        twice = next((c for c in cards if cards.count(c) > 1), None)
        if twice is not None:
            raise IllegalMove("card_not_in_hand", f"You listed the {card_name(twice)} twice; you hold it once.",
                              card=twice)
        dealer = seat == state["dealer"]
        if dealer and not cards:
            raise IllegalMove("bad_buy_count", "As dealer you hold six cards: discard at least one.")
        if not dealer and len(cards) > HAND:
            raise IllegalMove("bad_buy_count", f"You may discard at most {HAND} cards.")
        drawn = len(cards) - (1 if dealer else 0)
        state["hands"][seat] = [c for c in hand if c not in cards] + state["rest"][:drawn]
        state["rest"] = state["rest"][drawn:]
        state["discards"][seat] = list(cards)
        state["buys"] += 1
        events.append({"type": "buy", "seat": seat, "discarded": len(cards), "drawn": drawn})
        if state["buys"] == len(active):
            state["phase"] = "play"

    # ----- play --------------------------------------------------------------------------
    def play_card(self, state: State, move: Move, events: list[Event]) -> None:
        active, table, trump = self.active(state), self.table(state), state["trump"]
        self.require_turn(state, move, "play", self.on_turn(state, active))
        seat, card = move["seat"], move["card"]
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        plays = state["trick"]["plays"]
        table.check(hand, plays, card, trump)
        hand.remove(card)
        plays.append([seat, card])
        if len(plays) < len(active):
            return
        winner = table.winner(plays, trump)
        state["tricks"].append({"plays": plays, "winner": winner})
        state["trick"] = {"plays": []}
        events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
        if len(state["tricks"]) == TRICKS:
            self.end_deal(state, events)

    # ----- scoring -----------------------------------------------------------------------
    def outcome(self, state: State) -> dict[str, Any]:
        """The record of the deal on the table (after play, a lone knock or a void deal)."""
        n, opts = state["players"], state["options"]
        knocker, active = self.knocker(state), sorted(self.active(state))
        won = [0] * n
        for t in state["tricks"]:
            won[t["winner"]] += 1
        if len(active) == 1 and opts["lone_knocker"] == "all_tricks":
            won[active[0]] = TRICKS
        loafed = loafed_seats(state["deal_no"] == 1, knocker, active, won, opts["knocker_min"])
        return {"deal": state["deal_no"], "dealer": state["dealer"], "knocker": knocker, "active": active,
                "tricks": won, "loafed": loafed}

    def end_deal(self, state: State, events: list[Event]) -> None:
        entry = self.outcome(state)
        score_entry(state["scores"], entry)
        for s in entry["loafed"]:
            state["chips"][s] -= 1
            state["loaves"][s] += 1
            state["pot"] += 1
        events.append({"type": "deal_scored", **entry, "scores": list(state["scores"]), "pot": state["pot"]})
        if 0 in state["scores"] or state["deal_no"] == state["options"]["max_deals"]:
            shares = self.shares(state["scores"], self.forehand(state), state["pot"])
            for s, chips in shares.items():
                state["chips"][s] += chips
            state["pot"] = 0
            state["phase"] = OVER
            events.append({"type": "match_over", "winners": list(shares), "shares": list(shares.values())})
            return
        state["deal_no"] += 1
        state["dealer"] = left(state["dealer"], state["players"])
        self.deal_cards(state, events)

    @staticmethod
    def shares(scores: list[int], forehand: int, pot: int) -> dict[int, int]:
        """The pot split among the seats at 0 (or the lowest under the cap), odd chips from forehand."""
        best = min(scores)
        winners = [s for s in order_from(forehand, len(scores)) if scores[s] == best]
        return split_evenly(pot, winners)

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, opts = state["players"], state["options"]
        scores = list(state["scores"])
        payoffs = [state["chips"][s] - opts["starting_chips"] for s in range(n)]
        shares = self.shares(scores, self.forehand(state), 0)
        return {"scores": scores, "payoffs": payoffs,
                "ranking": rank_seats(n, lambda s: (scores[s], -payoffs[s], s)),
                "winners": sorted(shares), "deals_played": state["deal_no"], "last_deal": self.outcome(state)}

    # ----- views -------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Besides the hands and the talon, face-down discards are hidden from everyone else."""
        out = super().view(state, seat)
        discards = state.get("discards")
        if isinstance(discards, list):
            out["discards"] = [list(d) if s == seat else None for s, d in enumerate(discards)]
            out["discard_sizes"] = [len(d) for d in discards]
        if isinstance(state.get("rest"), list):
            out["talon_size"] = len(state["rest"])
        return out

    # ----- validation --------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], *state["discards"], state["rest"], played]

    def validate(self, state: State) -> None:
        self.known_keys(state, KEYS)
        need(set(state) == {*CORE_KEYS, *KEYS}, "The state lacks a Norrlandsknack field.")
        n, opts = state["players"], state["options"]
        need(state["phase"] in ("declare", "buy", "play", OVER), "Norrlandsknack's phases are declare, buy, play.")
        deal_no = need_int(state["deal_no"], "deal_no", 1, opts["max_deals"])
        need(is_int(state["dealer"]) and state["dealer"] == (opts["first_dealer"] + deal_no - 1) % n,
             "'dealer' does not match the deal number.")
        need(need_int(state["dealings"], "dealings") >= deal_no, "'dealings' is below the deal number.")
        need(isinstance(state["trump"], str) and len(state["trump"]) == 1 and state["trump"] in SUITS,
             "'trump' must be a suit letter.")
        self.validate_table(state, n, deal_no)
        self.validate_totals(state, n, opts, deal_no)

    def validate_totals(self, state: State, n: int, opts: Options, deal_no: int) -> None:
        """Scores, loaves, chips and pot: chips are conserved and follow from the stakes, the loaves and (once
        over) the pot's sharing; scores are what the loaves allow. The deal on the table is checked against
        them once the match is over, and exactly in the first deal."""
        over = state["phase"] == OVER
        for label in ("scores", "chips", "loaves"):
            values = state[label]
            need(isinstance(values, list) and len(values) == n and all(type(x) is int for x in values),
                 f"'{label}' must hold one whole number per seat.")
        scores, loaves = state["scores"], state["loaves"]
        finished = deal_no if over else deal_no - 1
        need(all(0 <= x <= finished for x in loaves), "'loaves' must count at most one loaf per seat and deal.")
        need(all(0 <= scores[s] <= max(opts["start_score"], 5) + 5 * loaves[s] for s in range(n)),
             "'scores' cannot be reached with these loaves.")
        if over:
            need(0 in scores or deal_no == opts["max_deals"], "The match ended with nobody at zero.")
            last = self.outcome(state)
            need(all(loaves[s] >= 1 and scores[s] >= 10 for s in last["loafed"]),
                 "The last deal's loaves are not in the scores.")
        else:
            need(0 not in scores, "The match should have ended: a seat is at zero.")
        if deal_no == 1:  # nothing before this deal: the totals are exactly the start (plus the deal, if over)
            start, none = [opts["start_score"]] * n, [0] * n
            if over:
                score_entry(start, last)
                none = [1 if s in last["loafed"] else 0 for s in range(n)]
            need(scores == start and loaves == none, "'scores' and 'loaves' do not follow from the first deal.")
        pot = n * opts["stake"] + sum(loaves)
        shares = self.shares(scores, self.forehand(state), pot) if over else {}
        chips = [opts["starting_chips"] - opts["stake"] - loaves[s] + shares.get(s, 0) for s in range(n)]
        need(state["chips"] == chips, "'chips' do not follow from the stakes, loaves and pot.")
        need(is_int(state["pot"]) and state["pot"] == (0 if over else pot), "'pot' must hold the stakes and loaves.")

    def validate_declarations(self, state: State, n: int, deal_no: int) -> None:
        decl = need_list(state["declarations"], "declarations")
        order = order_from(self.forehand(state), n)
        need(len(decl) <= n, "Too many declarations.")
        knocked = False
        for i, d in enumerate(decl):
            need(isinstance(d, list) and len(d) == 2 and d[0] == order[i] and is_int(d[0]),
                 "Declarations must be [seat, action] in turn from forehand.")
            action = d[1]
            if deal_no == 1:
                need(action == "lurk" or action == "knock" and i == len(decl) - 1,
                     "First deal: lurks, then at most one knock that closes the declarations.")
            else:
                need(action in (("join", "pass") if knocked else ("knock", "pass")),
                     "Later deals: knock or pass, then join or pass after the knock.")
                knocked = knocked or action == "knock"
        complete = self.knocker(state) is not None if deal_no == 1 else len(decl) == n
        need(complete == (state["phase"] != "declare"), "The declarations do not match the phase.")
        need(state["phase"] in ("declare", OVER) or len(self.active(state)) >= 2, "Play needs two active seats.")

    def validate_table(self, state: State, n: int, deal_no: int) -> None:
        """The current deal: who declared what, who bought, hand and discard sizes, the tricks."""
        phase, dealer = state["phase"], state["dealer"]
        hands = need_list(state["hands"], "hands", n)
        discards = need_list(state["discards"], "discards", n)
        for s in range(n):
            need_cards(hands[s], f"hands[{s}]")
            need_cards(discards[s], f"discards[{s}]")
        rest = need_cards(state["rest"], "rest")
        self.validate_declarations(state, n, deal_no)
        active = self.active(state)
        passed = {s for s, a in state["declarations"] if a == "pass"}
        played = phase == "play" or phase == OVER and len(active) >= 2
        buys = need_int(state["buys"], "buys", 0, len(active))
        need(buys == len(active) if played else buys < len(active) if phase == "buy" else buys == 0,
             "'buys' does not match the phase.")
        cards_played = self.validate_tricks(state, n, active, played)
        bought, drawn = active[:buys], 0
        for s in range(n):
            size = HAND + (1 if s == dealer else 0)
            if s in passed:
                need(not hands[s] and len(discards[s]) == size, f"Seat {s} passed: its hand lies face down.")
            elif s in bought:
                low, high = (1, HAND + 1) if s == dealer else (0, HAND)
                need(low <= len(discards[s]) <= high, f"Seat {s} discarded a wrong number of cards.")
                need(len(hands[s]) == HAND - cards_played[s], f"Seat {s} holds the wrong number of cards.")
                drawn += len(discards[s]) - (1 if s == dealer else 0)
            else:
                need(phase != "play" and len(hands[s]) == size and not discards[s],
                     f"Seat {s} holds the wrong number of cards.")
        need(phase == "declare" or set(active) | passed == set(range(n)), "Every seat must have declared.")
        need(len(rest) == 52 - HAND * n - 1 - drawn, "The talon has the wrong number of cards.")
        held = hands[dealer] + discards[dealer] + [p[1] for t in [*state["tricks"], state["trick"]]
                                                   for p in t["plays"] if p[0] == dealer]
        need(any(c[1] == state["trump"] for c in held), "The dealer never held the turned-up trump.")

    def validate_tricks(self, state: State, n: int, active: list[int], played: bool) -> list[int]:
        """Replay the tricks: leader, order among active seats, legality of every card, winner."""
        tricks = need_list(state["tricks"], "tricks")
        trick = need_dict(state["trick"], "trick")
        need(set(trick) == {"plays"}, "'trick' holds only 'plays'.")
        current = need_plays(trick["plays"], n, "trick")
        for t in tricks:
            need(isinstance(t, dict) and set(t) == {"plays", "winner"} and is_int(t["winner"], 0, n - 1),
                 "A completed trick has plays and a winner.")
            need(len(need_plays(t["plays"], n, "tricks")) == len(active), "A trick needs one card per active seat.")
        if not played:
            need(not tricks and not current, "No trick is played before the buy is over.")
        elif state["phase"] == "play":
            need(len(tricks) < TRICKS and len(current) < len(active), "Too many tricks or cards in the trick.")
        else:
            need(len(tricks) == TRICKS and not current, "A finished deal has five complete tricks.")
        table, trump = self.table(state), state["trump"]
        all_tricks = [t["plays"] for t in tricks] + [current]
        holding = [list(h) for h in state["hands"]]
        counts = [0] * n
        for k in range(len(all_tricks) - 1, -1, -1):
            for seat, card in all_tricks[k]:
                holding[seat].append(card)
                counts[seat] += 1
            hands = [list(h) for h in holding]
            leader = tricks[k - 1]["winner"] if k else (active[0] if active else 0)
            seat = leader
            for i, (who, card) in enumerate(all_tricks[k]):
                need(who == seat, f"Trick {k + 1} was not played in turn.")
                need(card in table.legal_cards(hands[who], all_tricks[k][:i], trump),
                     f"Trick {k + 1} holds an illegal card {card}.")
                hands[who].remove(card)
                seat = next_matching(seat, n, active.__contains__) or 0
            if k < len(tricks):
                need(tricks[k]["winner"] == table.winner(all_tricks[k], trump),
                     f"Trick {k + 1} has the wrong winner.")
        return counts


GAME = Norrlandsknack()
