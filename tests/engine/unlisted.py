"""Moves that ``legal_moves`` does not list, of every action a game has, for the playout property.

At a point of play, ``unlisted_moves`` makes plausible moves of each action of the game's vocabulary: by the
seats that may act and one other, with values drawn from what the table offers (the seat's hand and the pack for
cards, parts of the hand for card lists and runs, the declared bounds, the listed range and one past it for
numbers, every choice of a string, both booleans), and the seat's listed moves with one value changed (a card
dropped, added or swapped for one it does not hold, a number one past its range). It keeps those that no listed
entry stands for (``covered``: equal values, a ranged value inside its range, a list of cards in any order) and
draws a few of each action.
"""
from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.engine import Game, State
from service.engine.moves import Action, Param

Move = dict[str, Any]
SUIT_LETTERS = "CDHS"
FRESH = 4  # moves of fresh values per seat and action; and up to two listed moves changed


def unlisted_moves(game: Game, state: State, legal: list[Move], rng: random.Random, per_action: int) -> list[Move]:
    """Up to ``per_action`` moves of each action of ``game`` that no entry of ``legal`` covers."""
    acting = sorted({m["seat"] for m in legal})
    seats = dict.fromkeys([*acting, rng.randrange(state["players"])])
    out: list[Move] = []
    for action, spec in game.actions.items():
        found: dict[str, Move] = {}
        for seat in seats:
            for move in candidates(game, state, legal, seat, action, rng):
                if not covered(move, legal, spec):
                    found.setdefault(json.dumps(move, sort_keys=True), move)
        out += rng.sample(list(found.values()), min(per_action, len(found)))
    return out


def covered(move: Move, legal: list[Move], spec: Action) -> bool:
    """Whether an entry of ``legal`` stands for ``move`` as it is written (docs/events.md, "Legal moves")."""
    return any(entry["seat"] == move["seat"] and entry["action"] == move["action"] and covers(entry, move, spec)
               for entry in legal)


def covers(entry: Move, move: Move, spec: Action) -> bool:
    ranges: Mapping[str, Any] = entry.get("ranges") or {}
    for name, param in spec.params.items():
        if name in ranges:
            if name not in move or not in_range(ranges[name], move[name]):
                return False
        elif (name in entry) != (name in move):
            return False
        elif name in move and not same_value(param, entry[name], move[name]):
            return False
    return True


def in_range(span: Mapping[str, Any], value: Any) -> bool:
    if "choose" in span:
        return (isinstance(value, list) and len(value) == span["choose"] and len(set(value)) == len(value)
                and all(c in span["from"] for c in value))
    return type(value) is int and span["min"] <= value <= span["max"]


def same_value(param: Param, listed: Any, value: Any) -> bool:
    """The same choice: a list of cards (or of runs of cards) in any order is the same set."""
    if param.kind == "cards" and isinstance(value, list):
        return sorted(listed) == sorted(value)
    if param.kind == "runs" and isinstance(value, list) and all(isinstance(r, list) for r in value):
        return sorted(map(sorted, listed)) == sorted(map(sorted, value))
    return type(listed) is type(value) and bool(listed == value)


# ----- candidates ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Offer:
    """What a seat's values of one parameter are drawn from: its hand, the pack, the chips in play, and the
    values and ranges its listed moves of the action carry."""

    hand: list[str]
    pack: list[str]
    big: int
    listed: list[Any]
    spans: list[Mapping[str, Any]]


def candidates(game: Game, state: State, legal: list[Move], seat: int, action: str,
               rng: random.Random) -> Iterator[Move]:
    """Moves of ``action`` by ``seat``: fresh combinations of plausible values, and the seat's listed moves of
    this action with one value changed."""
    params = game.actions[action].params
    mine = [m for m in legal if m["seat"] == seat and m["action"] == action]
    values = {name: plausible(param, offer(game, state, seat, mine, name), rng) for name, param in params.items()}
    base: Move = {"seat": seat, "action": action}
    if not params:
        yield base
        return
    for _ in range(FRESH):
        yield {**base, **{name: rng.choice(values[name]) for name, param in params.items()
                          if not (param.optional and rng.random() < 0.3)}}
    for entry in rng.sample(mine, min(2, len(mine))):
        name = rng.choice(list(params))
        yield {**{k: v for k, v in entry.items() if k != "ranges"}, name: rng.choice(values[name])}


def offer(game: Game, state: State, seat: int, mine: list[Move], name: str) -> Offer:
    hands = state.get("hands")
    hand = hands[seat] if isinstance(hands, list) and isinstance(hands[seat], list) else []
    chips = [v for v in (state.get("pot"), *(state.get("chips") or [])) if type(v) is int]
    return Offer(hand=list(hand), pack=sorted(set(game.pack(state["players"], state["options"]))),
                 big=max([10, *chips]), listed=[m[name] for m in mine if name in m],
                 spans=[m["ranges"][name] for m in mine if name in (m.get("ranges") or {})])


def plausible(param: Param, offered: Offer, rng: random.Random) -> list[Any]:
    """A few values of the parameter's kind, in and around what the table offers."""
    if param.kind == "card":
        return [*rng.sample(offered.hand, min(3, len(offered.hand))), rng.choice(offered.pack), *offered.listed[:2]]
    if param.kind == "cards":
        return card_lists(offered, rng)
    if param.kind == "runs":
        return [[], *([run] for run in runs_in(offered.hand)), [rng.sample(offered.pack, 3)], *offered.listed[:1]]
    if param.kind == "integer":
        return integers(param, offered, rng)
    if param.kind == "boolean":
        return [True, False]
    if param.kind == "strings":
        return [rng.sample(SUIT_LETTERS, rng.randint(1, 3)), [rng.choice(SUIT_LETTERS)] * 2,
                *(list(reversed(v)) for v in offered.listed[:2])]
    return list(param.choices) or [""]


def card_lists(offered: Offer, rng: random.Random) -> list[list[str]]:
    """Lists of cards: none, a random part of the hand, one with a card not held, a card twice, one card short
    of a ranged choice and one over, and listed lists with a card dropped, swapped for one not held, or added."""
    hand, pack = offered.hand, offered.pack
    outside = [c for c in pack if c not in hand] or pack
    out: list[list[str]] = [[], rng.sample(hand, rng.randint(0, len(hand))),
                            [*rng.sample(hand, min(2, len(hand))), rng.choice(outside)]]
    if hand:
        out.append([rng.choice(hand)] * 2)
    for span in offered.spans[:1]:
        out.append(rng.sample(span["from"], max(0, span["choose"] - 1)))
        out.append(rng.sample(span["from"], min(len(span["from"]), span["choose"] + 1)))
    for listed in offered.listed[:3]:
        if listed:
            out += [listed[1:], [*listed[:-1], rng.choice(outside)]]
        spare = [c for c in hand if c not in listed]
        if spare:
            out.append([*listed, rng.choice(spare)])
    return out


def runs_in(hand: Sequence[str]) -> list[list[str]]:
    """Every three cards of one suit next to each other in the hand's order: some are runs, most are not."""
    by_suit: dict[str, list[str]] = {}
    for card in hand:
        by_suit.setdefault(card[-1], []).append(card)
    return [cards[i:i + 3] for cards in by_suit.values() for i in range(len(cards) - 2)]


def integers(param: Param, offered: Offer, rng: random.Random) -> list[int]:
    """Numbers at the declared bounds, the listed values, each listed range's ends and one past them, a few
    others; all within the declared bounds (outside them the parameter itself is malformed)."""
    low = param.minimum if param.minimum is not None else -1
    high = param.maximum if param.maximum is not None else 2 * offered.big
    out = [low, high, rng.randint(low, high), *(v for v in offered.listed if type(v) is int)]
    for span in offered.spans:
        out += [span["min"] - 1, span["min"], span["max"], span["max"] + 1]
    return [v for v in out if low <= v <= high] or [low]
