"""Toepen: a Dutch last-trick drinking game. Spec: shared/rules/toepen.md.

3 to 8 players, each for himself, four cards each (two batches of two) from a 32-card pack ranking
T 9 8 7 A K Q J in every suit; no trumps. Followers must follow suit if they can; the highest card of
the suit led among the players still in wins the trick. Only the fourth trick counts: its winner wins
the deal, takes no penalty and deals next; everybody else still in takes the stake in penalty points.

A deal: exchanges (in turn from eldest, lay the hand down and take four from the stock; each is
followed by a challenge poll, and the hand shown decides who takes a penalty), warnings (stand for
four Tens, whistle for three; wrong or missing warnings cost 1 at the end of the deal), an optional
poverty poll, then play. During play any player still in may knock, in or out of turn, raising the
stake by 1; the others answer in turn from the knocker's left, stay or fold (owing the stake before the
knock). Match: until someone reaches ``target`` (the highest total "buys the round"), or in
``last_survivor`` until at most one player is left (the others are eliminated as they reach it).

State keys besides the core: dealer, totals, eliminated (deal of elimination or null), hands, rest
(the stock, top first), exchanges ([{seat, cards, challenger}]), turn (exchange turn), signals,
poverty (the poverty player or null), knocks ([{seat, trick, played}]: who knocked, and when),
folded (stake owed, or null), poll ({kind, by, waiting} or null), tricks (completed), trick.
"""
from __future__ import annotations

from typing import Any

from ..base import (OVER, Deal, Event, Game, Handler, State, need_pack_deal, play_moves, require_in_hand)
from ..cards import PIQUET_PACK, Card
from ..checks import is_int, need, need_cards, need_dict, need_exact_keys, need_int, need_list, need_plays, need_seat
from ..errors import IllegalMove, InvalidDeal, InvalidOptions
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import next_matching, order_from
from ..tricks import TrickRules, TrickTable

HAND = 4
ORDER = "JQKA789T"  # low to high
STRENGTH = {r: i for i, r in enumerate(ORDER)}
TRICKS = TrickTable(TrickRules(order=ORDER))
HIGH = frozenset("T987")  # the ranks "higher than an Ace"
SIGNALS = ("none", "whistle", "stand")
ANSWERS = {"challenge": ("challenge", "no_challenge"), "knock": ("stay", "fold"), "poverty": ("stay", "fold")}
POLL_VERBS = frozenset(a for pair in ANSWERS.values() for a in pair)
PACK = frozenset(PIQUET_PACK)
KEYS = ("dealer", "totals", "eliminated", "hands", "rest", "exchanges", "turn", "signals", "poverty", "knocks",
        "folded", "poll", "tricks", "trick")


def parse_max_exchanges(raw: Any, n: int) -> int | None:
    if raw is None or (is_int(raw, 1)):
        return raw  # type: ignore[no-any-return]
    raise InvalidOptions("Option 'max_exchanges' must be a whole number of at least 1, or null.",
                         option="max_exchanges")


def warning_correct(signal: str, hand: list[Card]) -> bool:
    """The seed's table: four Tens stand, three Tens whistle (both compulsory); four Jacks may do
    anything, three Jacks may whistle or keep quiet; anyone else must keep quiet."""
    tens = sum(1 for c in hand if c[0] == "T")
    jacks = sum(1 for c in hand if c[0] == "J")
    if tens == 4:
        return signal == "stand"
    if tens == 3:
        return signal == "whistle"
    if jacks == 4:
        return True
    if jacks == 3:
        return signal in ("whistle", "none")
    return signal == "none"


def trick_winner(plays: list[Any], active: set[int]) -> int:
    """The highest card of the suit led among players still in; if none of them followed (the leader
    folded), the suit of the earliest card of a player still in (section 5)."""
    live = [p for p in plays if p[0] in active]
    suit = plays[0][1][1]
    if not any(p[1][1] == suit for p in live):
        suit = live[0][1][1]
    return int(max((p for p in live if p[1][1] == suit), key=lambda p: STRENGTH[p[1][0]])[0])


class Toepen(Game):
    id = "toepen"
    name = "Toepen"
    summary = ("Dutch last-trick drinking game: exchange, warn, knock to raise the stake, stay or fold; "
               "avoid reaching the penalty target.")
    min_players = 3
    max_players = 8
    default_players = 4
    options = (
        Option("target", "integer", 10, "Penalty points that end the match (or eliminate, in last_survivor).", 2),
        Option("match_end", "choice", "first_to_target", "\"first_to_target\": the match ends when someone reaches "
               "the target; \"last_survivor\": players reaching it are eliminated until one is left.",
               choices=("first_to_target", "last_survivor")),
        Option("warnings", "boolean", True, "Standing/whistling warnings and their penalties."),
        Option("max_exchanges", "custom", None, "Exchanges allowed per player per deal (null: while the stock "
               "lasts).", parse=parse_max_exchanges,
               schema={"type": ["integer", "null"], "minimum": 1, "default": None}),
        Option("poverty", "boolean", False, "Poverty rule: a player one point short of the target starts the "
               "deal at stake 2 and the others must stay or fold."),
    )
    actions = {
        "exchange": Action("Lay your hand face down and take the top four cards of the stock.",
                           example={"seat": 0, "action": "exchange"}),
        "keep": Action("End your exchange turn.", example={"seat": 0, "action": "keep"}),
        "challenge": Action("Challenge the exchange just made.", example={"seat": 1, "action": "challenge"}),
        "no_challenge": Action("Let the exchange just made pass.", example={"seat": 1, "action": "no_challenge"}),
        "warn": Action("Your one warning of the deal.",
                       {"signal": Param("string", "\"none\", \"whistle\" or \"stand\"", choices=SIGNALS)},
                       {"seat": 2, "action": "warn", "signal": "none"}),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 1, "action": "play", "card": "TH"}),
        "knock": Action("Raise the stake by one (in or out of turn).", example={"seat": 3, "action": "knock"}),
        "stay": Action("Play on at the new stake.", example={"seat": 0, "action": "stay"}),
        "fold": Action("Drop out of the deal, owing the stake before the knock.",
                       example={"seat": 0, "action": "fold"}),
    }
    sample_options = (
        {"match_end": "last_survivor"},
        {"target": 5, "poverty": True, "max_exchanges": 1, "first_dealer": 2},
        {"match_end": "last_survivor", "warnings": False, "poverty": True, "target": 6, "first_dealer": 1},
        {"target": 15, "max_exchanges": 2},
    )

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        return {"exchange": {"exchange": self.exchange, "keep": self.keep, "challenge": self.challenge,
                             "no_challenge": self.challenge},
                "warnings": {"warn": self.warn},
                "poverty": {"stay": self.answer, "fold": self.answer},
                "play": {"play": self.play_card, "knock": self.knock, "stay": self.answer, "fold": self.answer}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return PIQUET_PACK

    # ----- seats ------------------------------------------------------------------------
    @staticmethod
    def in_match(state: State, seat: int) -> bool:
        return state["eliminated"][seat] is None

    def actives(self, state: State) -> list[int]:
        """The players still in this deal (neither eliminated nor folded), in seat order."""
        eliminated, folded = state["eliminated"], state["folded"]
        return [s for s in range(state["players"]) if eliminated[s] is None and folded[s] is None]

    def order_of(self, state: State, dealer: int) -> list[int]:
        """The players in the match, clockwise from ``dealer``'s left."""
        n, eliminated = state["players"], state["eliminated"]
        return [s for s in order_from((dealer + 1) % n, n) if eliminated[s] is None]

    def others_from(self, state: State, seat: int) -> list[int]:
        """Every other active player, clockwise from ``seat``'s left: the order of a poll."""
        active = self.actives(state)
        return [s for s in order_from(seat, state["players"])[1:] if s in active]

    @staticmethod
    def base_stake(state: State) -> int:
        return 1 if state["poverty"] is None else 2

    def stake(self, state: State) -> int:
        return self.base_stake(state) + len(state["knocks"])

    @staticmethod
    def last_knocker(state: State) -> int | None:
        return state["knocks"][-1]["seat"] if state["knocks"] else None

    # ----- the deal ---------------------------------------------------------------------
    def start(self, state: State) -> None:
        n = state["players"]
        state.update(dealer=state["options"]["first_dealer"], totals=[0] * n, eliminated=[None] * n)
        self.begin_deal(state, [])

    def begin_deal(self, state: State, events: list[Event]) -> None:
        n = state["players"]
        deal = self.next_deal(state)
        for s in range(n):
            if bool(deal["hands"][s]) != self.in_match(state, s):
                raise InvalidDeal(f"Deal {state['dealings']}: seat {s} must be dealt "
                                  + ("four cards." if self.in_match(state, s) else "no cards (eliminated)."))
        state.update(hands=deal["hands"], rest=deal["rest"], exchanges=[], turn=None, signals=[None] * n,
                     knocks=[], folded=[None] * n, poll=None, tricks=[], trick={"plays": []})
        state["poverty"] = self.find_poverty(state, state["totals"])
        events.append({"type": "deal", "deal": state["dealings"], "dealer": state["dealer"],
                       "stock": len(state["rest"]), "poverty": state["poverty"]})
        self.exchange_from(state, 0, events)

    def find_poverty(self, state: State, start_totals: list[int]) -> int | None:
        opts = state["options"]
        if not opts["poverty"]:
            return None
        for s in self.order_of(state, state["dealer"]):
            if start_totals[s] == opts["target"] - 1:
                return s
        return None

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Two batches of two, clockwise from eldest to the dealer; the rest is the stock (R12)."""
        order = self.order_of(state, state["dealer"])
        k = len(order)
        hands: list[list[Card]] = [[] for _ in range(state["players"])]
        for i, seat in enumerate(order):
            hands[seat] = cards[2 * i:2 * i + 2] + cards[2 * k + 2 * i:2 * k + 2 * i + 2]
        return {"hands": hands, "rest": cards[HAND * k:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        sizes = [len(h) for h in deal["hands"]]
        allowed = (HAND, 0) if options["match_end"] == "last_survivor" else (HAND,)
        for s, size in enumerate(sizes):
            if size not in allowed:
                raise InvalidDeal(f"Seat {s} must be dealt 4 cards" + (" (or none if eliminated)" if 0 in allowed
                                                                       else "") + f", not {size}.")
        players = sum(1 for x in sizes if x)
        if players < 2:
            raise InvalidDeal("At least two players must be dealt in.")
        if len(deal["rest"]) != 32 - HAND * players:
            raise InvalidDeal(f"The stock ('rest') must hold the {32 - HAND * players} undealt cards.")
        need_pack_deal(deal, PIQUET_PACK)

    # ----- exchanges (4.1) --------------------------------------------------------------
    def exchanges_of(self, state: State, seat: int) -> int:
        return sum(1 for e in state["exchanges"] if e["seat"] == seat)

    def can_exchange(self, state: State, seat: int) -> bool:
        most = state["options"]["max_exchanges"]
        return len(state["rest"]) >= HAND and (most is None or self.exchanges_of(state, seat) < most)

    def exchange_from(self, state: State, index: int, events: list[Event]) -> None:
        """The exchange turn goes to the first player from ``index`` (in deal order) able to exchange."""
        for seat in self.order_of(state, state["dealer"])[index:]:
            if self.can_exchange(state, seat):
                state["phase"], state["turn"] = "exchange", seat
                return
        state["turn"] = None
        if state["options"]["warnings"]:
            state["phase"] = "warnings"
        else:
            self.after_warnings(state, events)

    def exchange(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        if len(state["rest"]) < HAND:
            raise IllegalMove("exchange_not_possible", "You cannot exchange: the stock holds fewer than four cards.")
        if not self.can_exchange(state, seat):
            raise IllegalMove("exchange_not_possible", "You have already made every exchange allowed this deal.")
        state["exchanges"].append({"seat": seat, "cards": state["hands"][seat], "challenger": None})
        state["hands"][seat], state["rest"] = state["rest"][:HAND], state["rest"][HAND:]
        state["poll"] = {"kind": "challenge", "by": seat, "waiting": self.others_from(state, seat)}
        events.append({"type": "exchange", "seat": seat, "stock": len(state["rest"])})

    def keep(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "keep", "seat": move["seat"]})
        self.exchange_from(state, self.order_of(state, state["dealer"]).index(move["seat"]) + 1, events)

    def challenge(self, state: State, move: Move, events: list[Event]) -> None:
        poll, seat = state["poll"], move["seat"]
        poll["waiting"].pop(0)
        exchanger = poll["by"]
        if move["action"] == "challenge":
            record = state["exchanges"][-1]
            record["challenger"] = seat
            loser = exchanger if any(c[0] in HIGH for c in record["cards"]) else seat
            state["totals"][loser] += 1
            events.append({"type": "challenge", "seat": seat, "exchanger": exchanger, "cards": list(record["cards"]),
                           "penalised": loser, "total": state["totals"][loser]})
        else:
            events.append({"type": "no_challenge", "seat": seat})
            if poll["waiting"]:
                return
        state["poll"] = None
        self.exchange_from(state, self.order_of(state, state["dealer"]).index(exchanger), events)

    # ----- warnings (4.2) and poverty (4.3) ---------------------------------------------
    def warner(self, state: State) -> int:
        return next(s for s in self.order_of(state, state["dealer"]) if state["signals"][s] is None)

    def warn(self, state: State, move: Move, events: list[Event]) -> None:
        state["signals"][move["seat"]] = move["signal"]
        events.append({"type": "warn", "seat": move["seat"], "signal": move["signal"]})
        if all(state["signals"][s] is not None for s in self.order_of(state, state["dealer"])):
            self.after_warnings(state, events)

    def after_warnings(self, state: State, events: list[Event]) -> None:
        q = state["poverty"]
        if q is None:
            state["phase"] = "play"
            return
        state["phase"] = "poverty"
        state["poll"] = {"kind": "poverty", "by": q, "waiting": self.others_from(state, q)}
        events.append({"type": "poverty", "seat": q, "stake": self.stake(state)})

    # ----- whose turn -------------------------------------------------------------------
    def first_leader(self, state: State) -> int:
        q = state["poverty"]
        return q if q is not None else self.order_of(state, state["dealer"])[0]

    def on_turn(self, state: State, active: list[int]) -> int:
        """Who plays next: clockwise from the last card, skipping folded players (not in ``active``)
        and those who played."""
        n, plays = state["players"], state["trick"]["plays"]
        if plays:
            played = {p[0] for p in plays}
            nxt = next_matching(plays[-1][0], n, lambda s: s in active and s not in played)
            assert nxt is not None
            return nxt
        tricks = state["tricks"]
        lead = tricks[-1]["winner"] if tricks else self.first_leader(state)
        if lead in active:
            return lead
        nxt = next_matching(lead, n, active.__contains__)
        assert nxt is not None
        return nxt

    def knockers(self, state: State, active: list[int]) -> list[int]:
        """Who may knock now: a player still in, not the last knocker, whose total at the raised stake
        would not pass the target."""
        last, raised = self.last_knocker(state), self.stake(state) + 1
        totals, target = state["totals"], state["options"]["target"]
        return [s for s in active if s != last and totals[s] + raised <= target]

    def may_act(self, state: State, seat: int) -> bool:
        """Has ``seat`` a legal move while no poll is pending? (``seat in to_act(state)``, without
        listing every move.)"""
        phase = state["phase"]
        if phase == "exchange":
            return seat == state["turn"]
        if phase == "warnings":
            return seat == self.warner(state)
        active = self.actives(state)
        return seat == self.on_turn(state, active) or seat in self.knockers(state, active)

    def legal_moves(self, state: State) -> list[Move]:
        phase, poll = state["phase"], state["poll"]
        if phase == OVER:
            return []
        if poll is not None:
            seat = poll["waiting"][0]
            return [{"seat": seat, "action": a} for a in ANSWERS[poll["kind"]]]
        if phase == "exchange":
            seat = state["turn"]
            return [{"seat": seat, "action": "exchange"}, {"seat": seat, "action": "keep"}]
        if phase == "warnings":
            seat = self.warner(state)
            return [{"seat": seat, "action": "warn", "signal": sig} for sig in SIGNALS]
        active = self.actives(state)
        seat = self.on_turn(state, active)
        moves = play_moves(seat, TRICKS.legal_cards(state["hands"][seat], state["trick"]["plays"]))
        return moves + [{"seat": s, "action": "knock"} for s in self.knockers(state, active)]

    # ----- the order of the checks (4) --------------------------------------------------
    def dispatch(self, state: State, move: Move, events: list[Event]) -> None:
        """not_active, poll_pending, not_your_turn, wrong_phase, then the handler's own reasons."""
        seat, action, phase, poll = move["seat"], move["action"], state["phase"], state["poll"]
        if not self.in_match(state, seat):
            raise IllegalMove("not_active", "You have been eliminated from the match.")
        if state["folded"][seat] is not None:
            raise IllegalMove("not_active", "You have folded: you take no further part in this deal.")
        if poll is not None:
            due = poll["waiting"][0]
            if seat != due or action not in ANSWERS[poll["kind"]]:
                what = "the challenge" if poll["kind"] == "challenge" else "whether to stay or fold"
                raise IllegalMove("poll_pending", f"Wait: seat {due} must first answer {what}.", seat=seat)
            self.phases[phase][action](state, move, events)
            return
        if action in POLL_VERBS:
            raise IllegalMove("wrong_phase", f"'{action}' answers a poll, and nobody is being polled now.")
        if not (action == "knock" and phase == "play") and not self.may_act(state, seat):
            raise IllegalMove("not_your_turn", f"It is not your turn: seat {self.to_act(state)[0]} is to act.",
                              seat=seat)
        super().dispatch(state, move, events)

    # ----- play (4.4, 4.5) --------------------------------------------------------------
    def play_card(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        active = self.actives(state)
        turn = self.on_turn(state, active)
        if seat != turn:
            raise IllegalMove("not_your_turn", f"It is seat {turn}'s turn to play; you may only knock.", seat=seat)
        hand, plays = state["hands"][seat], state["trick"]["plays"]
        require_in_hand(hand, card)
        TRICKS.check(hand, plays, card)
        hand.remove(card)
        plays.append([seat, card])
        events.append({"type": "play", "seat": seat, "card": card})
        if self.trick_complete(state, active):
            self.finish_trick(state, active, events)

    def trick_complete(self, state: State, active: list[int]) -> bool:
        """Has every player still in (``active``) played to the trick?"""
        played = {p[0] for p in state["trick"]["plays"]}
        return bool(played) and all(s in played for s in active)

    def finish_trick(self, state: State, active: list[int], events: list[Event]) -> None:
        plays = state["trick"]["plays"]
        winner = trick_winner(plays, set(active))
        state["tricks"].append({"plays": plays, "winner": winner})
        state["trick"] = {"plays": []}
        events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
        if len(state["tricks"]) == HAND:
            self.end_deal(state, events)

    def knock(self, state: State, move: Move, events: list[Event]) -> None:
        seat, target = move["seat"], state["options"]["target"]
        if self.last_knocker(state) == seat:
            raise IllegalMove("knock_twice_in_succession",
                              "You made the last knock: someone else must knock before you may knock again.")
        new_stake = self.stake(state) + 1
        if state["totals"][seat] + new_stake > target:
            raise IllegalMove("knock_over_limit", f"You may not knock: with {state['totals'][seat]} penalty points, "
                              f"losing at stake {new_stake} would take you above {target}.")
        state["knocks"].append({"seat": seat, "trick": len(state["tricks"]), "played": len(state["trick"]["plays"])})
        state["poll"] = {"kind": "knock", "by": seat, "waiting": self.others_from(state, seat)}
        events.append({"type": "knock", "seat": seat, "stake": new_stake})

    def answer(self, state: State, move: Move, events: list[Event]) -> None:
        """Stay or fold in a knock or poverty poll; a folder owes the stake before the knock (1 in poverty)."""
        seat, poll = move["seat"], state["poll"]
        poll["waiting"].pop(0)
        if move["action"] == "fold":
            state["folded"][seat] = self.stake(state) - 1
            events.append({"type": "fold", "seat": seat, "owes": state["folded"][seat]})
        else:
            events.append({"type": "stay", "seat": seat})
        if poll["waiting"]:
            return
        state["poll"] = None
        state["phase"] = "play"
        left = self.actives(state)
        if len(left) == 1:
            self.end_deal(state, events)
        elif self.trick_complete(state, left):
            self.finish_trick(state, left, events)

    # ----- settlement (6) and the match (2) ---------------------------------------------
    def deal_winner(self, state: State) -> int:
        left = self.actives(state)
        return left[0] if len(left) == 1 else int(state["tricks"][-1]["winner"])

    def warned_hand(self, state: State, seat: int) -> list[Card]:
        played = [p[1] for t in [*state["tricks"], state["trick"]] for p in t["plays"] if p[0] == seat]
        return played + state["hands"][seat]

    def settlement(self, state: State) -> tuple[int, list[int], list[int]]:
        """The deal's winner, each seat's penalties for the deal, and the seats with a warning penalty."""
        n, winner, stake = state["players"], self.deal_winner(state), self.stake(state)
        pens, wrong = [0] * n, []
        for s in self.order_of(state, state["dealer"]):
            if s != winner:
                pens[s] = state["folded"][s] if state["folded"][s] is not None else stake
            signal = state["signals"][s]
            if signal is not None and not warning_correct(signal, self.warned_hand(state, s)):
                pens[s] += 1
                wrong.append(s)
        return winner, pens, wrong

    def end_deal(self, state: State, events: list[Event]) -> None:
        n, opts = state["players"], state["options"]
        winner, pens, wrong = self.settlement(state)
        state["totals"] = [t + p for t, p in zip(state["totals"], pens)]
        events.append({"type": "deal_over", "winner": winner, "penalties": pens, "totals": list(state["totals"]),
                       "warning_penalties": [{"seat": s, "signal": state["signals"][s],
                                              "hand": self.warned_hand(state, s)} for s in wrong]})
        if opts["match_end"] == "last_survivor":
            for s in self.order_of(state, state["dealer"]):
                if state["totals"][s] >= opts["target"]:
                    state["eliminated"][s] = state["dealings"]
                    events.append({"type": "eliminated", "seat": s, "total": state["totals"][s]})
            over = sum(1 for s in range(n) if self.in_match(state, s)) <= 1
        else:
            over = max(state["totals"]) >= opts["target"]
        if over:
            state["phase"] = OVER
            events.append({"type": "match_over"})
            return
        dealer = winner if self.in_match(state, winner) else next_matching(winner, n, lambda s: self.in_match(state, s))
        assert dealer is not None
        state["dealer"] = dealer
        self.begin_deal(state, events)

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, totals, elim = state["players"], state["totals"], state["eliminated"]
        if state["options"]["match_end"] == "first_to_target":
            worst = max(totals)
            losers = [s for s in range(n) if totals[s] == worst]
            return {"scores": list(totals), "payoffs": [-1 if s in losers else 0 for s in range(n)],
                    "ranking": sorted(range(n), key=lambda s: (totals[s], s)), "losers": losers}
        winners = [s for s in range(n) if elim[s] is None]
        if not winners:
            last = [s for s in range(n) if elim[s] == state["dealings"]]
            best = min(totals[s] for s in last)
            winners = [s for s in last if totals[s] == best]
        shares = split_evenly(n, winners)
        rest = sorted((s for s in range(n) if s not in winners), key=lambda s: (-elim[s], totals[s], s))
        return {"scores": list(totals), "payoffs": [shares.get(s, 0) - 1 for s in range(n)],
                "ranking": winners + rest, "winners": winners, "eliminated": list(elim)}

    def zero_sum(self, options: Options) -> bool:
        return bool(options["match_end"] == "last_survivor")

    # ----- what a seat sees (3) ---------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = super().view(state, seat)
        out["exchanges"] = [{"seat": e["seat"], "challenger": e["challenger"],
                             "cards": list(e["cards"]) if e["challenger"] is not None or e["seat"] == seat else None}
                            for e in state["exchanges"]]
        out["stock_size"] = len(state["rest"])
        out["stake"] = self.stake(state)
        out["last_knocker"] = self.last_knocker(state)
        return out

    # ----- validation -------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in [*state["tricks"], state["trick"]] for p in t["plays"]]
        return [*state["hands"], state["rest"], played, *(e["cards"] for e in state["exchanges"])]

    def validate(self, state: State) -> None:
        self.known_keys(state, KEYS)
        n, opts, phase = state["players"], state["options"], state["phase"]
        over = phase == OVER
        deal_no = need_int(state["dealings"], "dealings", 1)
        totals = need_list(state["totals"], "totals", n)
        need(all(is_int(t, 0) for t in totals), "'totals' must be whole numbers of at least 0.")
        elim = need_list(state["eliminated"], "eliminated", n)
        need(all(e is None or is_int(e, 1, deal_no if over else deal_no - 1) for e in elim),
             "'eliminated' must hold null or the deal of each elimination.")
        need(opts["match_end"] == "last_survivor" or all(e is None for e in elim),
             "Nobody is eliminated when the match ends at the first target.")
        # While the deal is validated, finished-deal eliminations count as still in (restored below).
        playing = [s for s in range(n) if elim[s] is None or elim[s] == deal_no]
        need(len(playing) >= 2, "A deal needs at least two players.")
        view = dict(state, eliminated=[None if s in playing else 1 for s in range(n)])
        dealer = need_seat(state["dealer"], n, "dealer")
        need(dealer in playing, "The dealer must be in the match.")
        need(deal_no > 1 or dealer == opts["first_dealer"], "The first deal is dealt by 'first_dealer'.")
        hands = need_list(state["hands"], "hands", n)
        for s, h in enumerate(hands):
            need_piquet(h, f"hands[{s}]")
            need(s in playing or not h, f"Seat {s} is eliminated and cannot hold cards.")
            need(phase in ("play", OVER) or s not in playing or len(h) == HAND, f"Seat {s} must hold four cards.")
        need_piquet(state["rest"], "rest")
        poll = state["poll"]
        need(poll is None or (isinstance(poll, dict) and set(poll) == {"kind", "by", "waiting"}
                              and poll["kind"] in ANSWERS and is_int(poll["by"], 0, n - 1)
                              and isinstance(poll["waiting"], list) and all(is_int(w) for w in poll["waiting"])),
             "'poll' must be null or {kind, by, waiting}.")
        self.validate_exchanges(view, playing)
        self.validate_signals(view, playing)
        self.validate_folds(view, playing)
        tricks = need_list(state["tricks"], "tricks")
        for t in tricks:
            need(isinstance(t, dict) and set(t) == {"plays", "winner"}, "A completed trick has 'plays' and 'winner'.")
            need_piquet([p[1] for p in need_plays(t["plays"], n, "tricks")], "tricks")
            need(is_int(t["winner"], 0, n - 1), "A trick's winner must be a seat.")
        need(isinstance(state["trick"], dict) and set(state["trick"]) == {"plays"}, "'trick' must be {plays}.")
        need_piquet([p[1] for p in need_plays(state["trick"]["plays"], n, "trick")], "trick")
        need(phase in ("play", OVER) or (not tricks and not state["trick"]["plays"] and not state["knocks"]),
             "Nobody plays or knocks before the play phase.")
        ended = self.replay(view, playing) if phase in ("play", OVER) else False
        need(over == (ended or len(tricks) == HAND), "The deal is over but the match goes on, or the reverse.")
        # totals: during play they are the totals at the deal's start plus the challenge penalties
        during = list(totals)
        if over:
            during = [a - b for a, b in zip(during, self.settlement(view)[1])]
        target = opts["target"]
        for i, k in enumerate(state["knocks"]):
            need(during[k["seat"]] + self.base_stake(state) + i + 1 <= target, f"Knock {i + 1} was over the limit.")
        start = list(during)
        for e in state["exchanges"]:
            if e["challenger"] is not None:
                start[e["seat"] if any(c[0] in HIGH for c in e["cards"]) else e["challenger"]] -= 1
        need(all(t >= 0 for t in start), "'totals' are lower than this deal's penalties.")
        need(all(start[s] < target for s in playing), "A player at the target was dealt in.")
        need(all(totals[s] >= target for s in range(n) if s not in playing), "An eliminated player is below target.")
        need(state["poverty"] == self.find_poverty(view, start), "'poverty' is not the poverty player of this deal.")
        if over and opts["match_end"] == "first_to_target":
            need(max(totals) >= target, "The match is over but nobody reached the target.")
        if opts["match_end"] == "last_survivor":
            for s in playing:
                need((elim[s] == deal_no) == (over and totals[s] >= target), "'eliminated' does not match 'totals'.")
            need(not over or sum(1 for e in elim if e is None) <= 1, "The match is over with several survivors.")

    def validate_exchanges(self, state: State, playing: list[int]) -> None:
        phase, poll, most = state["phase"], state["poll"], state["options"]["max_exchanges"]
        order = self.order_of(state, state["dealer"])
        exchanges = need_list(state["exchanges"], "exchanges")
        last = 0
        for e in exchanges:
            need(isinstance(e, dict) and set(e) == {"seat", "cards", "challenger"},
                 "An exchange is {seat, cards, challenger}.")
            seat = need_seat(e["seat"], state["players"], "exchange seat")
            need(seat in playing and len(need_piquet(e["cards"], "exchange cards")) == HAND,
                 "An exchange lays down four cards of a player in the deal.")
            need(e["challenger"] is None or (is_int(e["challenger"]) and e["challenger"] in playing
                                             and e["challenger"] != seat), "A challenger must be another player.")
            need(order.index(seat) >= last, "Exchanges are taken in turn from eldest.")
            last = order.index(seat)
        need(most is None or all(self.exchanges_of(state, s) <= most for s in playing), "Too many exchanges.")
        need(len(state["rest"]) == 32 - HAND * len(playing) - HAND * len(exchanges), "The stock has the wrong size.")
        turn = state["turn"]
        if phase != "exchange":
            need(turn is None and (poll is None or poll.get("kind") != "challenge"), "The exchanges are over.")
            return
        need(is_int(turn) and turn in playing and order.index(turn) >= last, "'turn' is not a player's exchange turn.")
        if poll is None:
            need(self.can_exchange(state, turn), "A player who cannot exchange is skipped.")
            return
        poll = need_dict(poll, "poll")
        need_exact_keys(poll, "poll", ("kind", "by", "waiting"))
        need(poll.get("kind") == "challenge" and poll.get("by") == turn and bool(exchanges)
             and exchanges[-1]["seat"] == turn and exchanges[-1]["challenger"] is None,
             "A challenge poll follows its exchange.")
        self.need_suffix(state, poll, [s for s in order_from(turn, state["players"])[1:] if s in playing], [])

    @staticmethod
    def need_suffix(state: State, poll: dict[str, Any], order: list[int], folders: list[int]) -> None:
        """A pending poll: the players still to answer are the end of its order, those answered the start."""
        waiting = need_list(poll.get("waiting"), "poll.waiting")
        k = len(order) - len(waiting)
        need(bool(waiting) and k >= 0 and order[k:] == waiting, "'poll.waiting' is not the rest of the poll's order.")
        need(all(f in order[:k] for f in folders), "A player folded before being polled.")

    def validate_signals(self, state: State, playing: list[int]) -> None:
        signals = need_list(state["signals"], "signals", state["players"])
        need(all(x is None or x in SIGNALS for x in signals), "'signals' holds an unknown signal.")
        need(all(signals[s] is None for s in range(state["players"]) if s not in playing), "An eliminated seat warned.")
        order = self.order_of(state, state["dealer"])
        given = [signals[s] is not None for s in order]
        phase = state["phase"]
        if not state["options"]["warnings"] or phase == "exchange":
            need(not any(given), "No warning is made now.")
        elif phase == "warnings":
            k = given.count(True)
            need(given == [True] * k + [False] * (len(order) - k) and k < len(order),
                 "Warnings are made in turn from eldest.")
        else:
            need(all(given), "Every player warns before play.")

    def validate_folds(self, state: State, playing: list[int]) -> None:
        n, phase, poverty = state["players"], state["phase"], state["poverty"]
        folded = need_list(state["folded"], "folded", n)
        knocks = need_list(state["knocks"], "knocks")
        for k in knocks:
            need(isinstance(k, dict) and set(k) == {"seat", "trick", "played"}, "A knock is {seat, trick, played}.")
            need(is_int(k["seat"], 0, n - 1) and is_int(k["trick"], 0, HAND - 1) and is_int(k["played"], 0, n),
                 "A knock names its seat and when it was made.")
        need(poverty is None or (is_int(poverty, 0, n - 1) and poverty in playing), "'poverty' must be a player.")
        base = self.base_stake(state)
        low = 1 if poverty is not None else base
        for s, owed in enumerate(folded):
            need(owed is None or (s in playing and is_int(owed, low, base + len(knocks) - 1)
                                   and not (s == poverty and owed == 1)),
                 "'folded' must hold the stake each folder owes.")
        need(phase in ("poverty", "play", OVER) or all(f is None for f in folded), "Nobody folds before play.")
        poll = state["poll"]
        if phase == "poverty":
            need(poverty is not None and isinstance(poll, dict) and set(poll) == {"kind", "by", "waiting"}
                 and poll["kind"] == "poverty" and poll["by"] == poverty, "The poverty poll is pending.")
            self.need_suffix(state, poll, [s for s in order_from(poverty, n)[1:] if s in playing],
                             [s for s in range(n) if folded[s] is not None])
        elif phase == "warnings" or phase == OVER:
            need(poll is None, "No poll is pending now.")
        elif phase == "play":
            need(poll is None or (isinstance(poll, dict) and set(poll) == {"kind", "by", "waiting"}
                                  and poll["kind"] == "knock" and bool(knocks) and poll["by"] == knocks[-1]["seat"]),
                 "Only a knock poll can be pending in play.")

    def replay(self, state: State, playing: list[int]) -> bool:
        """Replay the play of the deal: every lead, turn, card, knock, fold and trick winner. True if the
        deal ended because everyone else folded."""
        n, knocks, poll = state["players"], state["knocks"], state["poll"]
        base, folded = self.base_stake(state), state["folded"]
        tricks = state["tricks"]
        need(len(tricks) <= HAND, "A deal has four tricks.")
        current = state["trick"]["plays"]
        need(len(tricks) < HAND or not current, "A fifth trick was started.")
        rounds = [t["plays"] for t in tricks] + ([current] if len(tricks) < HAND else [])
        holding = {s: list(state["hands"][s]) for s in playing}
        for plays in rounds:
            for seat, card in plays:
                need(seat in holding, "A seat out of the deal played a card.")
                holding[seat].append(card)
        need(all(len(h) == HAND for h in holding.values()), "A player holds the wrong number of cards.")
        by_poll: dict[int, list[int]] = {}
        for s in playing:
            if folded[s] is not None:
                by_poll.setdefault(folded[s] - base, []).append(s)
        by_poll.pop(-1, None)  # the poverty poll, answered before the first lead
        active = {s for s in playing if folded[s] is None or folded[s] - base >= 0}
        ki, last = 0, None
        ended = len(active) == 1
        for t, plays in enumerate(rounds):
            complete_at = None
            for p in range(len(plays) + 1):
                played = {q[0] for q in plays[:p]}
                if p and active <= played:
                    complete_at = p
                    break
                while not ended and ki < len(knocks) and (knocks[ki]["trick"], knocks[ki]["played"]) == (t, p):
                    seat = knocks[ki]["seat"]
                    need(seat in active and seat != last, f"Knock {ki + 1} was not allowed.")
                    folders = by_poll.pop(ki, [])
                    need(all(f in active and f != seat for f in folders), "A player folded who could not.")
                    order = [s for s in order_from(seat, n)[1:] if s in active]
                    if poll is not None and ki == len(knocks) - 1:
                        need((t, p) == (len(tricks), len(current)), "The pending knock is not the latest event.")
                        self.need_suffix(state, poll, order, folders)
                        return False
                    active -= set(folders)
                    last, ki = seat, ki + 1
                    ended = len(active) == 1
                if ended:
                    need(t == len(rounds) - 1 and p == len(plays) and ki == len(knocks) and t == len(tricks),
                         "Play went on after the deal was won by folds.")
                    break
                if p and active <= played:
                    complete_at = p
                    break
                if p == len(plays):
                    break
                seat, card = plays[p]
                if p == 0:
                    lead = tricks[t - 1]["winner"] if t else self.first_leader(state)
                    turn = lead if lead in active else next_matching(lead, n, lambda s: s in active)
                else:
                    turn = next_matching(plays[p - 1][0], n, lambda s: s in active and s not in played)
                need(seat == turn, f"Trick {t + 1} was not played in turn.")
                need(card in TRICKS.legal_cards(holding[seat], plays[:p]), f"Trick {t + 1} holds an illegal card.")
                holding[seat].remove(card)
            if ended:
                break
            if t < len(tricks):
                need(complete_at == len(plays), f"Trick {t + 1} is not complete.")
                need(tricks[t]["winner"] == trick_winner(plays, active), f"Trick {t + 1} has the wrong winner.")
            else:
                need(complete_at is None, "The trick in progress is complete.")
        need(ki == len(knocks) and not by_poll, "A knock or fold is out of place.")
        need(poll is None, "A poll is pending without its knock.")
        return ended


def need_piquet(value: Any, label: str) -> list[Card]:
    cards = need_cards(value, label)
    need(all(c in PACK for c in cards), f"'{label}' holds a card that is not in the 32-card pack.")
    return cards


GAME = Toepen()
