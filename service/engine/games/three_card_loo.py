"""Three-card Loo: a Victorian round game for a carried pool. Spec: shared/rules/three_card_loo.md.

3 to 10 players, each for himself, 52 cards ranking A high. The dealer antes into the pool, then
deals three cards to everyone and to an extra hand, Miss, and turns the next card for trumps.
In turn from eldest each player stands, takes Miss in exchange for his hand (the first to ask),
or passes. A dealer facing a single stander may not pass: he stands, takes Miss, or "defends"
Miss, playing it for the pool. If all others pass the dealer wins the pool; a lone Miss-taker
wins it too. Otherwise three tricks are played under strict duties: the first leader must lead
the trump ace (or the king when the ace is turned up), or a trump from two or more; later
leaders must lead a trump; followers must follow and head the trick, or trump and overtrump.
Each trick is worth a third of the pool (odd chips to the first trick); a player who took no
trick is looed and pays into the pool, which is carried to the next deal.

Match: ``rounds`` × n deals ending with a closing deal (everyone stands, no Miss, no loos), or
play on until a deal without a loo, or until somebody is bust. Leftover pool chips are shared.

State keys besides the core: dealer, deal_no, chips (signed balances), pool (chips in the pool
now), stake (the pool at stake in the deal on the table, ante included), hands, miss (Miss while
untaken; hidden), turn_up, rest (the unused stock), thrown (hands thrown in, each seen only by its
thrower), declared (each seat's declaration, or null), tricks (this deal's), trick (in progress).
"""
from __future__ import annotations

from typing import Any

from ..base import (OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, play_moves,
                    require_in_hand, require_turn)
from ..cards import RANKS, STANDARD_PACK, SUITS, Card, card_name, suit_name
from ..checks import is_int, need, need_cards, need_dict, need_exact_keys, need_int, need_list, need_plays
from ..errors import IllegalMove
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import left, order_from, rank_seats
from ..tricks import TrickRules, TrickTable

HAND = 3
TRICKS = 3
STOCK = 52 - 1  # cards besides the hands and Miss: the turn-up and the unused rest
DECLARATIONS = ("stand", "take_miss", "pass", "defend")
ACTIVE = ("stand", "take_miss", "defend")   # hands that play
FOR_SELF = ("stand", "take_miss")           # hands that win and pay for themselves
FOLLOW = {undertrump: TrickTable(TrickRules(head=True, must_trump=True, overtrump=True,
                                            undertrump="required" if undertrump else "allowed"))
          for undertrump in (True, False)}
Ladder = list[tuple[list[Card], str]]  # narrowing duties, each with the reason for the cards it excludes
Refusal = tuple[str, str]  # why a declaration is not allowed: the IllegalMove reason and message
KEYS = ("dealer", "deal_no", "chips", "pool", "stake", "hands", "miss", "turn_up", "rest", "thrown", "declared",
        "tricks", "trick")


def _declare_action(verb: str, doc: str) -> Action:
    return Action(doc, example={"seat": 2, "action": verb})


class ThreeCardLoo(Game):
    id = "three_card_loo"
    name = "Three-card Loo"
    summary = "Victorian pool game: stand, take Miss or pass; win a trick or be looed and feed the pool."
    min_players = 3
    max_players = 10
    default_players = 4
    options = (
        Option("starting_chips", "integer", 100, "Chips each seat starts with.", 0, 10**9),
        Option("ante", "integer", 3, "The dealer's stake into the pool each deal.", 1, 10**6),
        Option("loo_amount", "integer", 3, "What a looed player pays into the pool (limited Loo).", 0, 10**6),
        Option("unlimited", "boolean", False, "Unlimited Loo: a looed player pays the pool at stake."),
        Option("no_pass_on_single", "boolean", False, "Nobody may pass when the pool is a single."),
        Option("club_law", "boolean", False, "When clubs are trumps everybody plays his own hand; no Miss."),
        Option("lead_highest_trump", "choice", "parlett", "\"parlett\": highest trump led only against a single "
               "opponent; \"always\": whenever two or more trumps are held.", choices=("parlett", "always")),
        Option("must_undertrump", "boolean", True, "A void player who cannot overtrump must still trump."),
        Option("end_mode", "choice", "closing_deal", "How the match ends.",
               choices=("closing_deal", "until_no_loo", "bust")),
        Option("rounds", "integer", 2, "Scheduled deals are rounds × players.", 1, 100),
        Option("max_extra_deals", "integer", lambda n: 2 * n, "Cap on extra deals in \"until_no_loo\".", 0, 1000,
               default_rule="2 * players"),
    )
    actions = {
        "stand": _declare_action("stand", "Keep your hand and play."),
        "take_miss": _declare_action("take_miss", "Throw in your hand and play Miss instead, sight unseen."),
        "pass": _declare_action("pass", "Throw in your hand; you neither win nor pay this deal."),
        "defend": Action("Dealer against a single stander: play Miss on behalf of the pool.",
                         example={"seat": 3, "action": "defend"}),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 0, "action": "play", "card": "AH"}),
    }
    sample_options = (
        {"unlimited": True, "end_mode": "until_no_loo", "rounds": 1, "first_dealer": 1},
        {"no_pass_on_single": True, "club_law": True, "lead_highest_trump": "always", "must_undertrump": False,
         "rounds": 1},
        {"end_mode": "bust", "starting_chips": 8, "ante": 2, "loo_amount": 6, "first_dealer": 2},
        {"end_mode": "until_no_loo", "rounds": 1, "max_extra_deals": 0, "loo_amount": 0, "ante": 4},
    )

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        declare = {verb: self.declare for verb in DECLARATIONS}
        return {"declare": declare, "play": {"play": self.play_card}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    # ----- the deal ---------------------------------------------------------------------
    def start(self, state: State) -> None:
        n = state["players"]
        state.update(deal_no=0, chips=[state["options"]["starting_chips"]] * n, pool=0)
        self.start_deal(state, [])

    def start_deal(self, state: State, events: list[Event]) -> None:
        """The ante, the deal, the turn-up; compulsory deals go straight to the play."""
        n, opts = state["players"], state["options"]
        state["deal_no"] += 1
        dealer = state["dealer"] = dealer_of(opts, n, state["deal_no"])
        state["chips"][dealer] -= opts["ante"]
        state["pool"] += opts["ante"]
        state["stake"] = state["pool"]
        deal = self.next_deal(state)
        rest = deal["rest"]
        state.update(hands=deal["hands"], miss=rest[:HAND], turn_up=rest[HAND], rest=rest[HAND + 1:],
                     thrown=[[] for _ in range(n)], declared=[None] * n, tricks=[], trick={"plays": []},
                     phase="declare")
        closing = is_closing(opts, n, state["deal_no"])
        forced = compulsory(opts, closing, state["turn_up"][1])
        if forced:
            state["declared"] = ["stand"] * n
            state["phase"] = "play"
        events.append({"type": "deal", "deal": state["deal_no"], "dealer": dealer, "pool": state["pool"],
                       "turn_up": state["turn_up"], "closing": closing, "compulsory": forced})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """One at a time, three rounds, eldest first, Miss right after the dealer (R11); then the turn-up."""
        n = state["players"]
        eldest = left(state["dealer"], n)
        step = n + 1  # a round: one card to each hand, eldest first, then one to Miss
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(n):
            hands[(eldest + i) % n] = cards[i:HAND * step:step]
        miss = cards[n:HAND * step:step]
        return {"hands": hands, "rest": miss + cards[HAND * step:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, STANDARD_PACK)

    # ----- whose turn -------------------------------------------------------------------
    def legal_moves(self, state: State) -> list[Move]:
        if state["phase"] == "declare":
            seat = declare_turn(state["players"], state["dealer"], state["declared"])
            if seat is None:
                return []
            facts = self.declaring(state, seat)
            return [{"seat": seat, "action": verb} for verb in DECLARATIONS if refusal(*facts, verb) is None]
        if state["phase"] == "play":
            seat = self.on_turn(state)
            hand = state["hands"][seat]
            return play_moves(seat, legal_cards(self.duties(state, hand), hand))
        return []

    def refusal(self, state: State, seat: int, verb: str) -> Refusal | None:
        """Why ``seat``, on turn, may not declare ``verb`` in the deal on the table; None if he may."""
        return refusal(*self.declaring(state, seat), verb)

    def declaring(self, state: State, seat: int) -> tuple[Options, bool, bool, bool, bool]:
        """The facts a declaration by ``seat`` depends on: the arguments of ``refusal`` but the verb."""
        n, opts = state["players"], state["options"]
        withdrawn = compulsory(opts, is_closing(opts, n, state["deal_no"]), state["turn_up"][1])
        return (opts, withdrawn, state["pool"] == opts["ante"], *situation(n, state["dealer"], state["declared"], seat))

    def on_turn(self, state: State) -> int:
        n, declared = state["players"], state["declared"]
        plays = state["trick"]["plays"]
        if plays:
            return next_active(plays[-1][0], n, declared)
        return state["tricks"][-1]["winner"] if state["tricks"] else next_active(state["dealer"], n, declared)

    def duties(self, state: State, hand: list[Card]) -> Ladder:
        opts, plays, turn_up = state["options"], state["trick"]["plays"], state["turn_up"]
        if plays:
            return FOLLOW[opts["must_undertrump"]].ladder(hand, plays, turn_up[1])
        active = playing(state["declared"])
        return lead_ladder(hand, not state["tricks"], active, turn_up, opts["lead_highest_trump"] == "always")

    # ----- moves ------------------------------------------------------------------------
    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat, verb = move["seat"], move["action"]
        n, dealer, declared = state["players"], state["dealer"], state["declared"]
        on_turn = declare_turn(n, dealer, declared)
        assert on_turn is not None  # a deal whose declarations are over is never left in 'declare'
        require_turn(move, on_turn)
        refused = self.refusal(state, seat, verb)
        if refused is not None:
            raise IllegalMove(*refused)
        declared[seat] = verb
        if verb != "stand":
            state["thrown"][seat] = state["hands"][seat]
            state["hands"][seat] = []
        if verb in ("take_miss", "defend"):
            state["hands"][seat], state["miss"] = state["miss"], []
        events.append({"type": "declaration", "seat": seat, "action": verb})
        if lone_winner(n, dealer, declared) is not None:
            self.finish_deal(state, events)
        elif all(declared[s] is not None for s in range(n)):
            state["phase"] = "play"
            events.append({"type": "play_begins", "leader": self.on_turn(state)})

    def play_card(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        require_turn(move, self.on_turn(state))
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        plays = state["trick"]["plays"]
        if plays:
            FOLLOW[state["options"]["must_undertrump"]].check(hand, plays, card, state["turn_up"][1])
        else:
            for allowed, reason in self.duties(state, hand):
                if card not in allowed:
                    raise IllegalMove(reason, explain_lead(reason, allowed, state["turn_up"]), card=card)
        hand.remove(card)
        plays.append([seat, card])
        if len(plays) == playing(state["declared"]):
            winner = FOLLOW[True].winner(plays, state["turn_up"][1])
            state["tricks"].append({"plays": plays, "winner": winner})
            state["trick"] = {"plays": []}
            events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
            if len(state["tricks"]) == TRICKS:
                self.finish_deal(state, events)

    # ----- settlement -------------------------------------------------------------------
    def finish_deal(self, state: State, events: list[Event]) -> None:
        n, opts = state["players"], state["options"]
        number = state["deal_no"]
        delta, pool, looed = self.settlement(state)
        state["chips"] = [c + d for c, d in zip(state["chips"], delta)]
        state["pool"] = pool
        events.append({"type": "settlement", "deal": number, "changes": delta, "looed": looed, "pool": pool})
        if not match_ends(opts, n, number, state["chips"], looed):
            self.start_deal(state, events)
            return
        share = final_share(n, state["dealer"], pool)
        state["chips"] = [c + s for c, s in zip(state["chips"], share)]
        state["pool"] = 0
        state["phase"] = OVER
        events.append({"type": "match_over", "pool_shared": share})

    def settlement(self, state: State) -> tuple[list[int], int, list[int]]:
        """The accounts of the (finished) deal on the table."""
        n, opts = state["players"], state["options"]
        won = [0] * n
        for t in state["tricks"]:
            won[t["winner"]] += 1
        first = state["tricks"][0]["winner"] if state["tricks"] else None
        return settle(opts, n, state["dealer"], state["stake"], state["declared"], won, first,
                      is_closing(opts, n, state["deal_no"]))

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, start = state["players"], state["options"]["starting_chips"]
        scores = list(state["chips"])
        return {"scores": scores, "payoffs": [c - start for c in scores],
                "ranking": rank_seats(n, lambda s: (-scores[s], s)), "deals": state["deal_no"],
                "pool_shared": final_share(n, state["dealer"], self.settlement(state)[1])}

    # ----- validation -------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], *state["thrown"], state["miss"], [state["turn_up"]], state["rest"], played]

    def validate(self, state: State) -> None:
        self.known_keys(state, KEYS)
        missing = [k for k in KEYS if k not in state]
        need(not missing, f"The state lacks '{missing[0]}'." if missing else "")
        n, opts, phase = state["players"], state["options"], state["phase"]
        over = phase == OVER
        need(phase in ("declare", "play", OVER), "Three-card Loo's phases are 'declare', 'play' and 'over'.")
        deal_no = need_int(state["deal_no"], "deal_no", 1)
        need(state["dealings"] == deal_no, "'dealings' must equal the deal number.")
        dealer = state["dealer"]
        need(is_int(dealer) and dealer == dealer_of(opts, n, deal_no), "'dealer' does not match the deal number.")
        chips = need_list(state["chips"], "chips", n)
        need(all(is_int(c) for c in chips), "'chips' must be whole numbers.")
        stake = need_int(state["stake"], "stake", opts["ante"])
        need_int(state["pool"], "pool", 0)
        need(state["pool"] == (0 if over else stake), "'pool' must be the stake during a deal and 0 at the end.")
        need(sum(chips) + state["pool"] == n * opts["starting_chips"], "Chips are not conserved.")
        need(deal_no > 1 or over or chips == [opts["starting_chips"] - (s == dealer) * opts["ante"]
                                               for s in range(n)], "The first deal's chips are wrong.")
        self.validate_cards(state, n)
        declared = need_list(state["declared"], "declared", n)
        need(all(r is None or r in DECLARATIONS for r in declared), "'declared' holds an unknown declaration.")
        status = declaration_status(opts, n, dealer, declared, stake == opts["ante"], is_closing(opts, n, deal_no),
                                    state["turn_up"][1])
        self.validate_holdings(state, n, declared)
        tricks = self.validate_tricks(state, n, declared, status)
        if status == "declaring":
            need(phase == "declare", "Declarations are unfinished but the phase is not 'declare'.")
        elif status == "lone":
            need(over, "A deal won without play must be settled at once.")
        else:
            need(phase == ("play" if tricks < TRICKS else OVER), "'phase' does not match the tricks played.")
        self.validate_schedule(state, n, deal_no, chips)

    def validate_schedule(self, state: State, n: int, deal_no: int, chips: list[int]) -> None:
        """The deal number fits the match's end mode; a finished match ended when it had to."""
        opts = state["options"]
        scheduled = opts["rounds"] * n
        last = scheduled + (opts["max_extra_deals"] if opts["end_mode"] == "until_no_loo" else 0)
        need(deal_no <= last, "The match has gone on past its last deal.")
        if state["phase"] == OVER:
            delta, pool, looed = self.settlement(state)
            share = final_share(n, state["dealer"], pool)
            settled = [c - s for c, s in zip(chips, share)]  # balances when the last deal was settled
            need(match_ends(opts, n, deal_no, settled, looed), "The match ended too early.")
        elif opts["end_mode"] == "bust" and deal_no > 1:
            before = [c + (s == state["dealer"]) * opts["ante"] for s, c in enumerate(chips)]
            need(min(before) > 0, "The match should have ended: a player was bust.")

    def validate_cards(self, state: State, n: int) -> None:
        for s, h in enumerate(need_list(state["hands"], "hands", n)):
            need_cards(h, f"hands[{s}]")
        for s, h in enumerate(need_list(state["thrown"], "thrown", n)):
            need(len(need_cards(h, f"thrown[{s}]")) in (0, HAND), f"'thrown[{s}]' must be empty or a whole hand.")
        need(len(need_cards(state["miss"], "miss")) in (0, HAND), "'miss' must be empty or a whole hand.")
        need(isinstance(state["turn_up"], str) and state["turn_up"] in STANDARD_PACK, "'turn_up' must be a card.")
        need(len(need_cards(state["rest"], "rest")) == STOCK - HAND * (n + 1), "'rest' must hold the unused stock.")

    def validate_holdings(self, state: State, n: int, declared: list[Any]) -> None:
        """Who holds what after the declarations: hands, thrown hands, Miss."""
        taken = [s for s in range(n) if declared[s] in ("take_miss", "defend")]
        need(len(state["miss"]) == (0 if taken else HAND), "'miss' must be empty exactly when Miss was taken.")
        for s, role in enumerate(declared):
            need(len(state["thrown"][s]) == (0 if role in (None, "stand") else HAND),
                 f"Seat {s}'s thrown-in hand does not match its declaration.")
            need(role in ACTIVE or len(state["hands"][s]) == (HAND if role is None else 0),
                 f"Seat {s} holds the wrong number of cards.")

    def validate_tricks(self, state: State, n: int, declared: list[Any], status: str) -> int:
        """Replay the deal's tricks: leaders, turn order, the legality of every card, winners. Returns the count."""
        opts, turn_up = state["options"], state["turn_up"]
        tricks = need_list(state["tricks"], "tricks")
        trick = need_dict(state["trick"], "trick", ("plays",))
        need_exact_keys(trick, "trick", ("plays",))
        active = playing(declared)
        need(len(tricks) <= TRICKS and (status == "play" or not tricks), "Too many tricks, or tricks before play.")
        for t in tricks:
            need_dict(t, "trick", ("plays", "winner"))
            need_exact_keys(t, "trick", ("plays", "winner"))
            need(len(need_plays(t["plays"], n, "tricks")) == active, "A completed trick needs one card per hand.")
            need(is_int(t["winner"], 0, n - 1), "A trick's winner must be a seat.")
        current = need_plays(trick["plays"], n, "trick")
        need(not current or (status == "play" and state["phase"] == "play" and len(current) < active),
             "The trick in progress is wrong.")
        rounds = [t["plays"] for t in tricks] + [current]
        holding = [list(h) for h in state["hands"]]
        for plays in rounds:
            for seat, card in plays:
                holding[seat].append(card)
        for s in range(n):
            need(declared[s] not in ACTIVE or len(holding[s]) == HAND, f"Seat {s} holds the wrong number of cards.")
        follow = FOLLOW[opts["must_undertrump"]]
        always = opts["lead_highest_trump"] == "always"
        leader = next_active(state["dealer"], n, declared) if status == "play" else None
        for k, plays in enumerate(rounds):
            seat = leader
            for i, (who, card) in enumerate(plays):
                need(who == seat, f"Trick {k + 1} was not played in turn.")
                steps = follow.ladder(holding[who], plays[:i], turn_up[1]) if i else lead_ladder(
                    holding[who], k == 0, active, turn_up, always)
                need(card in legal_cards(steps, holding[who]), f"Trick {k + 1} holds an illegal card {card}.")
                holding[who].remove(card)
                seat = next_active(who, n, declared)
            if k < len(tricks):
                leader = follow.winner(plays, turn_up[1])
                need(tricks[k]["winner"] == leader, f"Trick {k + 1} has the wrong winner.")
        return len(tricks)

    # ----- views ------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Besides the other hands: Miss while untaken, and every thrown-in hand but one's own."""
        out = super().view(state, seat)
        miss = out.pop("miss", None)
        out["miss_size"] = len(miss) if isinstance(miss, list) else 0
        thrown = state.get("thrown")
        if isinstance(thrown, list):
            out["thrown"] = [list(h) if s == seat else None for s, h in enumerate(thrown)]
        return out


# ----- the rules as functions of plain values --------------------------------------------
def dealer_of(opts: Options, n: int, number: int) -> int:
    return (opts["first_dealer"] + number - 1) % n


def is_closing(opts: Options, n: int, number: int) -> bool:
    return opts["end_mode"] == "closing_deal" and number == opts["rounds"] * n


def compulsory(opts: Options, closing: bool, trump: str) -> bool:
    """Everybody stands on his own hand and Miss is withdrawn: the closing deal, or Club Law with clubs."""
    return closing or (opts["club_law"] and trump == "C")


def declare_turn(n: int, dealer: int, declared: list[Any]) -> int | None:
    """The next seat to declare, eldest first; None when all have, or all but the dealer passed."""
    if lone_winner(n, dealer, declared) is not None:
        return None
    made = n - declared.count(None)  # declarations are made in turn: counting them finds who is next
    return (left(dealer, n) + made) % n if made < n else None


def lone_winner(n: int, dealer: int, declared: list[Any]) -> int | None:
    """The seat that wins the pool without play: the dealer when all others passed, or a lone Miss-taker."""
    if others_all_passed(n, dealer, declared):
        return dealer
    if declared[dealer] is None:
        return None
    active = [s for s in range(n) if declared[s] in ACTIVE]
    return active[0] if len(active) == 1 else None


def others_all_passed(n: int, dealer: int, declared: list[Any]) -> bool:
    """Has every seat but the dealer passed? (All the passes, less the dealer's own if he passed.)"""
    return declared.count("pass") - (declared[dealer] == "pass") == n - 1


def playing(declared: list[Any]) -> int:
    """How many hands play the deal: those that declared, less those that passed."""
    return len(declared) - declared.count(None) - declared.count("pass")


def next_active(seat: int, n: int, declared: list[Any]) -> int:
    """The next seat after ``seat``, clockwise, whose hand plays the deal."""
    for i in range(1, n + 1):
        s = (seat + i) % n
        if declared[s] in ACTIVE:
            return s
    raise AssertionError("no hand plays the deal")


def situation(n: int, dealer: int, declared: list[Any], seat: int) -> tuple[bool, bool]:
    """Has Miss been taken? Is ``seat`` the dealer facing a single player who stood without Miss?"""
    miss_taken = "take_miss" in declared or "defend" in declared
    if seat != dealer:
        return miss_taken, False
    players = [s for s in range(n) if s != dealer and declared[s] in ACTIVE]
    return miss_taken, len(players) == 1 and declared[players[0]] == "stand"


def refusal(opts: Options, withdrawn: bool, single: bool, miss_taken: bool, facing_one: bool,
            verb: str) -> Refusal | None:
    """Why a declaration is refused, checked in the spec's order; None if it is allowed.

    withdrawn: a compulsory deal (no Miss, no passing); single: the pool held nothing before the ante;
    facing_one: the declarer is the dealer and a single player stood without taking Miss.
    """
    if verb in ("take_miss", "defend") and (withdrawn or miss_taken):
        return ("miss_not_available", "Miss is withdrawn in this deal." if withdrawn
                else "Miss has already been taken.")
    if verb == "pass":
        if withdrawn or (opts["no_pass_on_single"] and single):
            return ("pass_not_allowed", "Nobody may pass in this deal.")
        if facing_one:
            return ("pass_not_allowed", "You may not pass against a single player: stand, take Miss or defend Miss.")
    if verb == "defend" and not facing_one:
        return ("defend_not_allowed", "Only the dealer, when a single player stands without Miss, may defend Miss.")
    return None


def declaration_status(opts: Options, n: int, dealer: int, declared: list[Any], single: bool, closing: bool,
                       trump: str) -> str:
    """Replay the declarations (InvalidState if any was illegal): 'declaring', 'lone' (won without play), 'play'."""
    if compulsory(opts, closing, trump):
        need(all(r == "stand" for r in declared), "In a compulsory deal everybody stands.")
        return "play"
    order = order_from(left(dealer, n), n)
    miss_taken, players = False, []  # the non-dealers who play
    for i, seat in enumerate(order):
        role = declared[seat]
        if seat == dealer and not players:
            need(role is None, "The dealer declared after everybody else passed.")
            return "lone"
        if role is None:
            need(all(declared[s] is None for s in order[i:]), "Declarations were made out of turn.")
            return "declaring"
        facing_one = seat == dealer and len(players) == 1 and declared[players[0]] == "stand"
        need(refusal(opts, False, single, miss_taken, facing_one, role) is None,
             f"Seat {seat}'s declaration '{role}' was not allowed.")
        miss_taken = miss_taken or role in ("take_miss", "defend")
        if seat != dealer and role in ACTIVE:
            players.append(seat)
    return "lone" if len(players) + (declared[dealer] in ACTIVE) == 1 else "play"


def lead_ladder(hand: list[Card], first: bool, active: int, turn_up: Card, always: bool) -> Ladder:
    """The lead duties (§5.1, §5.2), each with the reason a card outside it is refused."""
    trump = turn_up[1]
    trumps = sorted((c for c in hand if c[1] == trump), key=lambda c: -RANKS.index(c[0]))
    if first:
        if "A" + trump in hand:
            return [(["A" + trump], "must_lead_trump_ace")]
        if turn_up[0] == "A" and "K" + trump in hand:
            return [(["K" + trump], "must_lead_trump_king")]
        if len(trumps) < 2:
            return []
        highest = active == 2 or always
    else:
        if not trumps:
            return []
        highest = always and len(trumps) >= 2
    steps = [([c for c in hand if c[1] == trump], "must_lead_trump")]
    return steps + [([trumps[0]], "must_lead_highest_trump")] if highest else steps


def legal_cards(steps: Ladder, hand: list[Card]) -> list[Card]:
    return list(steps[-1][0]) if steps else list(hand)


def explain_lead(reason: str, allowed: list[Card], turn_up: Card) -> str:
    if reason == "must_lead_trump_ace":
        return "You must lead the ace of trumps: you hold it."
    if reason == "must_lead_trump_king":
        return "The ace of trumps is turned up, so you must lead the king of trumps."
    if reason == "must_lead_trump":
        return f"You must lead a trump ({suit_name(turn_up[1])}): you hold one."
    return f"You must lead your highest trump, the {card_name(allowed[0])}."


def settle(opts: Options, n: int, dealer: int, pool: int, roles: list[Any], won: list[int], first: int | None,
           closing: bool) -> tuple[list[int], int, list[int]]:
    """One deal's accounts (§6): each seat's chips won or paid, the pool carried on, the looed seats."""
    delta = [0] * n
    winner = lone_winner(n, dealer, roles)
    if winner is not None:
        delta[winner] = pool
        return delta, 0, []
    value, odd = divmod(pool, 3)
    loo = 0 if closing else (pool if opts["unlimited"] else opts["loo_amount"])
    looed = [s for s in range(n) if roles[s] in FOR_SELF and not won[s] and not closing]
    for s in range(n):
        if roles[s] in FOR_SELF and won[s]:
            delta[s] = value * won[s] + (odd if s == first else 0)
    for s in looed:
        delta[s] = -loo
    return delta, pool - sum(delta), looed


def match_ends(opts: Options, n: int, number: int, chips: list[int], looed: list[int]) -> bool:
    scheduled = opts["rounds"] * n
    if opts["end_mode"] == "closing_deal":
        return number == scheduled
    if opts["end_mode"] == "until_no_loo":
        return number >= scheduled and (not looed or number - scheduled >= opts["max_extra_deals"])
    return number >= scheduled or min(chips) <= 0


def final_share(n: int, dealer: int, pool: int) -> list[int]:
    """The pool left at the end, shared equally; odd chips one each from the last deal's eldest on."""
    shares = split_evenly(pool, order_from(left(dealer, n), n))
    return [shares[s] for s in range(n)]


GAME = ThreeCardLoo()
