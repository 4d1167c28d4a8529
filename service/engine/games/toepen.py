"""Toepen: a Dutch last-trick drinking game. Rules: docs/games/toepen.md.

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

Carried from deal to deal: dealer (the last deal's winner deals next, so it cannot be worked out from the
deal's number), scores (penalty points), eliminated (the deal of each elimination, or null). Each deal has:
hands, rest (the stock, top first), exchanges ([{seat, cards, challenger}]), exchanger (whose exchange turn it
is), signals, poverty (the poverty player or null), stake, last_knocker, folded (the stake each folder owes, or
null), poll (a challenge, knock or poverty poll: {caller, answers}, or null), tricks, trick.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_pack_deal
from ..cards import Card, PIQUET_PACK
from ..checks import is_int, need, need_list
from ..end_of_deal import end_deal
from ..errors import InvalidDeal, InvalidOptions
from ..flow import Choices, Phase, Poll, Refusal, Step, anyone, each, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import order_from
from ..tricks import InDeal, TrickPlay, TrickRules, TrickTable

HAND = 4
ORDER = "JQKA789T"  # low to high
STRENGTH = MappingProxyType({r: i for i, r in enumerate(ORDER)})
TRICKS = TrickTable(TrickRules(order=ORDER))
HIGH = frozenset("T987")  # the ranks "higher than an Ace"
SIGNALS = ("none", "whistle", "stand")
MAX_INT = 2**53 - 1
# A deal's record must stay within the core's MAX_LOG moves: every knock is logged with up to 7 answers, and
# a stake can reach the target, so a deal holds at most ~100 + 8 * target moves (a knocking war included).
MAX_TARGET = 500


def still_in(state: State, seat: int) -> bool:
    """Neither eliminated from the match nor folded in this deal."""
    return state["eliminated"][seat] is None and state["folded"][seat] is None


STILL_IN = InDeal(still_in)  # play skips folded and eliminated players
IN_MATCH = InDeal(lambda state, seat: state["eliminated"][seat] is None)


def polled(state: State, caller: int) -> list[int]:
    """Who answers a poll: every other player still in when it was asked, clockwise from the caller's left
    (a player who folds in it has answered it)."""
    answered = state["poll"]["answers"]
    return [s for s in order_from(caller, state["players"])[1:]
            if state["eliminated"][s] is None and (state["folded"][s] is None or s in answered)]


# The three polls share the key "poll" (the phase says which is pending) and the order of answering.
CHALLENGE = Poll("poll", polled)  # after an exchange: the first challenge ends it
STAY_OR_FOLD = Poll("poll", polled, refusal_ends=False)  # after a knock, or for a poverty player
due_to_answer = STAY_OR_FOLD.due
ANSWERS = MappingProxyType({"exchange": ("challenge", "no_challenge"), "poverty": ("stay", "fold"),
                            "play": ("stay", "fold")})
POLL_VERBS = frozenset(("challenge", "no_challenge", "stay", "fold"))
ELIMINATED = Refusal("not_active", "You have been eliminated from the match.")
FOLDED = Refusal("not_active", "You have folded: you take no further part in this deal.")


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


def challenge_loser(exchange: dict[str, Any]) -> int:
    """A challenged hand with a card higher than an Ace costs the exchanger, else the challenger."""
    return int(exchange["seat"] if any(c[0] in HIGH for c in exchange["cards"]) else exchange["challenger"])


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
        Option("target", "integer", 10, "Penalty points that end the match (or eliminate, in last_survivor).", 2,
               MAX_TARGET),
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
    carried = ("dealer", "scores", "eliminated")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(table=lambda state: TRICKS, first_leader=self.first_leader,
                                deal_over=lambda state: len(state["tricks"]) == HAND, end_deal=self.end_deal,
                                next_seat=STILL_IN.next_seat, leader=self.leader, size=self.trick_size,
                                winner=lambda state, plays: trick_winner(list(plays), set(self.actives(state))))
        exchanger = one_seat(lambda state: state["exchanger"])
        answer = Step(one_seat(due_to_answer), Choices(verbs("stay", "fold")), self.answer, "answer")
        challenge = Step(one_seat(due_to_answer), Choices(verbs("challenge", "no_challenge")), self.challenge, "answer")
        exchange = Choices(verbs("exchange"), seat_refusal=self.exchange_refusal)
        knock = Choices(verbs("knock"), seat_refusal=self.knock_refusal)
        on_turn = self.tricks.on_turn
        return {
            "exchange": Phase("exchange", {"exchange": Step(exchanger, exchange, self.exchange, "exchange or keep"),
                                           "keep": Step(exchanger, Choices(verbs("keep")), self.keep,
                                                        "exchange or keep"),
                                           "challenge": challenge, "no_challenge": challenge},
                              lambda state: state["exchanger"], self.guard),
            "warnings": Phase("warnings", {"warn": Step(one_seat(self.warner), Choices(each(
                "warn", "signal", lambda state, seat: SIGNALS)), self.warn, "warn")}, self.warner, self.guard),
            "poverty": Phase("poverty", {"stay": answer, "fold": answer}, on_turn, self.guard),
            "play": Phase("play", {"play": self.tricks.step(), "knock": Step(anyone, knock, self.knock, "knock"),
                                   "stay": answer, "fold": answer}, on_turn, self.guard),
        }

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return PIQUET_PACK

    # ----- seats ------------------------------------------------------------------------
    def actives(self, state: State) -> list[int]:
        """The players still in this deal (neither eliminated nor folded), in seat order."""
        return [s for s in range(state["players"]) if still_in(state, s)]

    def order_of(self, state: State) -> list[int]:
        """The players in the match, clockwise from the dealer's left: the order of the deal."""
        n, eliminated = state["players"], state["eliminated"]
        return [s for s in order_from((state["dealer"] + 1) % n, n) if eliminated[s] is None]

    def leader(self, state: State, seat: int) -> int:
        """A folded player due to lead is replaced by the next player still in (4.4)."""
        return seat if still_in(state, seat) else STILL_IN.next_seat(state, seat)

    def first_leader(self, state: State) -> int:
        q = state["poverty"]
        return q if q is not None else self.order_of(state)[0]

    def trick_size(self, state: State) -> int:
        """A trick is complete when everyone still in has played to it (cards of folders stay in it)."""
        return STILL_IN.size(state) + sum(1 for p in state["trick"]["plays"] if not still_in(state, p[0]))

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        n = state["players"]
        state.update(dealer=state["options"]["first_dealer"], scores=[0] * n, eliminated=[None] * n)

    def deal(self, state: State, events: list[Event]) -> None:
        n = state["players"]
        dealt = self.next_deal(state)
        hands, rest = dealt["hands"], dealt["rest"]
        for s in range(n):
            if state["eliminated"][s] is not None:
                rest += hands[s]  # a board made for the full table: the hand goes under the stock unseen (3)
                hands[s] = []
            elif not hands[s]:
                raise InvalidDeal(f"Deal {state['dealings']}: seat {s} is still in the match and must be dealt "
                                  "four cards.")
        state.update(hands=hands, rest=rest, exchanges=[], exchanger=None, signals=[None] * n, poverty=None,
                     stake=1, last_knocker=None, folded=[None] * n, poll=None, tricks=[], trick={"plays": []})
        state["poverty"] = self.find_poverty(state)
        if state["poverty"] is not None:
            state["stake"] = 2
        events.append({"type": "deal_started", "deal": state["dealings"], "dealer": state["dealer"],
                       "stock": len(rest), "poverty": state["poverty"], "stake": state["stake"]})
        self.exchange_from(state, 0, events)

    def find_poverty(self, state: State) -> int | None:
        """The first player from eldest exactly one point short of the target (4.3), with the option."""
        opts = state["options"]
        if opts["poverty"]:
            for s in self.order_of(state):
                if state["scores"][s] == opts["target"] - 1:
                    return s
        return None

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Two batches of two, clockwise from eldest to the dealer; the rest is the stock (R12)."""
        order = self.order_of(state)
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

    # ----- who may do what now (4) --------------------------------------------------------
    def guard(self, state: State, seat: int, action: str) -> Refusal | None:
        """The spec's own reasons before the shared ones: not_active, then poll_pending (4)."""
        if state["eliminated"][seat] is not None:
            return ELIMINATED
        if state["folded"][seat] is not None:
            return FOLDED
        poll = state["poll"]
        if poll is not None:
            if action not in ANSWERS[state["phase"]] or seat != due_to_answer(state):
                what = "the challenge" if state["phase"] == "exchange" else "whether to stay or fold"
                return Refusal("poll_pending", lambda: f"Wait: seat {due_to_answer(state)} must first answer {what}.",
                               {"seat": seat})
        elif action in POLL_VERBS:
            return Refusal("wrong_phase", f"'{action}' answers a poll, and nobody is being polled now.")
        return None

    # ----- exchanges (4.1) --------------------------------------------------------------
    def exchange_refusal(self, state: State, seat: int) -> Refusal | None:
        """Why ``seat`` may not exchange now (the exchange turn also skips such a seat), or None."""
        if len(state["rest"]) < HAND:
            return Refusal("exchange_not_possible", "You cannot exchange: the stock holds fewer than four cards.")
        most = state["options"]["max_exchanges"]
        if most is not None and sum(1 for e in state["exchanges"] if e["seat"] == seat) >= most:
            return Refusal("exchange_not_possible", "You have already made every exchange allowed this deal.")
        return None

    def exchange_from(self, state: State, index: int, events: list[Event]) -> None:
        """The exchange turn goes to the first player from ``index`` (in deal order) able to exchange."""
        for seat in self.order_of(state)[index:]:
            if self.exchange_refusal(state, seat) is None:
                state["phase"], state["exchanger"] = "exchange", seat
                return
        state["exchanger"] = None
        if state["options"]["warnings"]:
            state["phase"] = "warnings"
        else:
            self.after_warnings(state, events)

    def exchange(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        state["exchanges"].append({"seat": seat, "cards": state["hands"][seat], "challenger": None})
        state["hands"][seat], state["rest"] = state["rest"][:HAND], state["rest"][HAND:]
        CHALLENGE.open(state, seat)
        events.append({"type": "exchange", "seat": seat})

    def keep(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "keep", "seat": move["seat"]})
        self.exchange_from(state, self.order_of(state).index(move["seat"]) + 1, events)

    def challenge(self, state: State, move: Move, events: list[Event]) -> None:
        seat, exchanger = move["seat"], state["poll"]["caller"]
        challenged = move["action"] == "challenge"
        CHALLENGE.answer(state, seat, not challenged)
        if challenged:
            record = state["exchanges"][-1]
            record["challenger"] = seat
            loser = challenge_loser(record)
            state["scores"][loser] += 1
            events.append({"type": "challenge", "seat": seat, "exchanger": exchanger, "cards": list(record["cards"]),
                           "penalised": loser})
        else:
            events.append({"type": "no_challenge", "seat": seat})
        if not CHALLENGE.pending(state):
            self.exchange_from(state, self.order_of(state).index(exchanger), events)

    # ----- warnings (4.2) and poverty (4.3) ---------------------------------------------
    def warner(self, state: State) -> int:
        return next(s for s in self.order_of(state) if state["signals"][s] is None)

    def warn(self, state: State, move: Move, events: list[Event]) -> None:
        state["signals"][move["seat"]] = move["signal"]
        events.append({"type": "warn", "seat": move["seat"], "signal": move["signal"]})
        if all(state["signals"][s] is not None for s in self.order_of(state)):
            self.after_warnings(state, events)

    def after_warnings(self, state: State, events: list[Event]) -> None:
        q = state["poverty"]
        if q is None:
            state["phase"] = "play"
            return
        state["phase"] = "poverty"
        STAY_OR_FOLD.open(state, q)
        events.append({"type": "poverty", "seat": q, "stake": state["stake"]})

    # ----- knocking (4.5) ---------------------------------------------------------------
    def knock_refusal(self, state: State, seat: int) -> Refusal | None:
        """Why ``seat`` (still in, no poll pending) may not knock now, or None."""
        if state["last_knocker"] == seat:
            return Refusal("knock_twice_in_succession",
                           "You made the last knock: someone else must knock before you may knock again.")
        raised, score, target = state["stake"] + 1, state["scores"][seat], state["options"]["target"]
        if score + raised > target:
            return Refusal("knock_over_limit", f"You may not knock: with {score} penalty points, losing at "
                           f"stake {raised} would take you above {target}.")
        return None

    def knock(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        state["stake"] += 1
        state["last_knocker"] = seat
        STAY_OR_FOLD.open(state, seat)
        events.append({"type": "knock", "seat": seat, "stake": state["stake"]})

    def answer(self, state: State, move: Move, events: list[Event]) -> None:
        """Stay or fold in a knock or poverty poll; a folder owes the stake before the knock (1 in poverty)."""
        seat, fold = move["seat"], move["action"] == "fold"
        done = STAY_OR_FOLD.answer(state, seat, not fold)
        if fold:
            state["folded"][seat] = state["stake"] - 1
            events.append({"type": "fold", "seat": seat, "owes": state["folded"][seat]})
        else:
            events.append({"type": "stay", "seat": seat})
        if not done:
            return
        state["phase"] = "play"
        plays = state["trick"]["plays"]
        if len(self.actives(state)) == 1:
            self.end_deal(state, events)
        elif plays and len(plays) == self.trick_size(state):
            self.tricks.complete(state, events)

    # ----- settlement (6) and the match (2) ---------------------------------------------
    def warned_hand(self, state: State, seat: int) -> list[Card]:
        played = [p[1] for t in [*state["tricks"], state["trick"]] for p in t["plays"] if p[0] == seat]
        return played + list(state["hands"][seat])

    def end_deal(self, state: State, events: list[Event]) -> None:
        """Penalties: the stake for everyone still in but the winner, what each folder owed, 1 per wrong
        warning; ``changes`` also counts this deal's challenge penalties (already added)."""
        n, opts = state["players"], state["options"]
        actives = self.actives(state)
        winner = actives[0] if len(actives) == 1 else int(state["tricks"][-1]["winner"])
        changes, wrong = [0] * n, []
        for e in state["exchanges"]:
            if e["challenger"] is not None:
                changes[challenge_loser(e)] += 1
        for s in self.order_of(state):
            owed = state["folded"][s]
            penalty = 0 if s == winner else owed if owed is not None else state["stake"]
            signal = state["signals"][s]
            if signal is not None and not warning_correct(signal, self.warned_hand(state, s)):
                penalty += 1
                wrong.append(s)
            state["scores"][s] += penalty
            changes[s] += penalty
        events.append({"type": "deal_settled", "deal": state["dealings"], "dealer": state["dealer"],
                       "winner": winner, "changes": changes, "unit": "points", "stake": state["stake"],
                       "wrong_warnings": [{"seat": s, "signal": state["signals"][s],
                                           "hand": self.warned_hand(state, s)} for s in wrong]})
        scores, target = state["scores"], opts["target"]
        if opts["match_end"] == "last_survivor":
            for s in self.order_of(state):
                if scores[s] >= target:
                    state["eliminated"][s] = state["dealings"]
                    events.append({"type": "eliminated", "seat": s, "score": scores[s]})
            over = sum(1 for e in state["eliminated"] if e is None) <= 1
        else:
            over = max(scores) >= target
        end_deal(self, state, events, over, between=lambda s: self.pass_deal(s, winner))

    def pass_deal(self, state: State, winner: int) -> None:
        """The winner deals next, or the next survivor clockwise from him (2)."""
        state["dealer"] = winner if state["eliminated"][winner] is None else IN_MATCH.next_seat(state, winner)

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, scores, elim = state["players"], state["scores"], state["eliminated"]
        if state["options"]["match_end"] == "first_to_target":
            worst = max(scores)
            losers = [s for s in range(n) if scores[s] == worst]
            return {"scores": list(scores), "payoffs": [-1 if s in losers else 0 for s in range(n)],
                    "ranking": sorted(range(n), key=lambda s: (scores[s], s)), "losers": losers}
        winners = [s for s in range(n) if elim[s] is None]
        if not winners:
            last = [s for s in range(n) if elim[s] == state["dealings"]]
            best = min(scores[s] for s in last)
            winners = [s for s in last if scores[s] == best]
        shares = split_evenly(n, winners)
        rest = sorted((s for s in range(n) if s not in winners), key=lambda s: (-elim[s], scores[s], s))
        return {"scores": list(scores), "payoffs": [shares.get(s, 0) - 1 for s in range(n)],
                "ranking": winners + rest, "winners": winners, "eliminated": list(elim)}

    def zero_sum(self, options: Options) -> bool:
        return bool(options["match_end"] == "last_survivor")

    def forfeit_result(self, state: State, seat: int) -> dict[str, Any]:
        """To the first target the forfeiting seat is the one loser (it pays, the others pay nothing, as in a
        played match); as last survivor the core's rule holds."""
        if state["options"]["match_end"] != "first_to_target":
            return super().forfeit_result(state, seat)
        n = state["players"]
        return {"scores": list(state["scores"]), "payoffs": [-1 if s == seat else 0 for s in range(n)],
                "ranking": [*(s for s in range(n) if s != seat), seat], "losers": [seat]}

    # ----- what a seat sees (3) ---------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = super().view(state, seat)
        out["exchanges"] = [{"seat": e["seat"], "challenger": e["challenger"],
                             "cards": list(e["cards"]) if e["challenger"] is not None or e["seat"] == seat else None}
                            for e in state["exchanges"]]
        out["stock_size"] = len(state["rest"])
        return out

    # ----- the totals carried between deals -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in [*state["tricks"], state["trick"]] for p in t["plays"]]
        return [*state["hands"], state["rest"], played, *(e["cards"] for e in state["exchanges"])]

    def check_carried(self, state: State) -> None:
        """Before a deal: whole penalty totals, below the target for the players still in the match and at
        it or above for those eliminated (only in last_survivor, in an earlier deal); at least two players
        left; the dealer one of them, and ``first_dealer`` for the first deal."""
        n, opts, dealings = state["players"], state["options"], state["dealings"]
        scores = need_list(state["scores"], "scores", n)
        eliminated = need_list(state["eliminated"], "eliminated", n)
        need(all(is_int(s, 0, MAX_INT) for s in scores), "'scores' must be whole numbers of at least 0.")
        need(all(e is None or is_int(e, 1, dealings) for e in eliminated),
             "'eliminated' must hold null or the deal of each elimination.")
        need(opts["match_end"] == "last_survivor" or all(e is None for e in eliminated),
             "Nobody is eliminated when the match ends at the first target.")
        playing = [s for s in range(n) if eliminated[s] is None]
        need(len(playing) >= 2, "A deal needs at least two players.")
        need(all((scores[s] < opts["target"]) == (s in playing) for s in range(n)),
             "'scores' and 'eliminated' disagree about who has reached the target.")
        need(is_int(state["dealer"], 0, n - 1) and state["dealer"] in playing, "The dealer must be in the match.")
        need(dealings > 0 or state["dealer"] == opts["first_dealer"], "The first deal is dealt by 'first_dealer'.")


GAME = Toepen()
