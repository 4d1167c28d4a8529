"""Random legal play for tests: drive any game to the end while checking the invariants."""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from service import engine
from service.engine import IllegalMove, State
from service.engine.cards import ALL_CODES

from .unlisted import unlisted_moves

Check = Callable[[State, State, dict[str, Any]], None]
UNLISTED_PER_ACTION = 3  # unlisted moves of each action posted at a probed point


def cards_in(value: Any) -> Iterator[str]:
    """Every card code anywhere in a JSON value (dict values and list items, recursively)."""
    if isinstance(value, str):
        if value in ALL_CODES:
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from cards_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from cards_in(item)


def leaks(view: Any, secret_cards: set[str]) -> set[str]:
    """Every card code of ``secret_cards`` that appears anywhere in ``view``."""
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if x in secret_cards:
                found.add(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(view)
    return found


def hidden_copies_shown(view: Any, hidden: Counter[str], pack: Counter[str], own: Counter[str] | None = None) -> set[str]:
    """The codes of which ``view`` shows more copies than are outside ``hidden`` (other seats' hands, the stock):
    with one pack, any hidden code shown at all; with several (Jewel), a seat may show its own copy of a code
    another seat also holds. A flat list naming only the seat's own cards (``own``; Jewel's
    ``valid_declarations``) repeats what it already sees and is not counted again."""
    own = own or Counter()

    def repeats_own(value: Any) -> bool:
        return (isinstance(value, list) and bool(value) and all(isinstance(c, str) for c in value)
                and not Counter(cards_in(value)) - own)
    parts = view.items() if isinstance(view, dict) else [(None, view)]
    shown = Counter(cards_in([v for _k, v in parts if not (own and repeats_own(v))]))
    return {c for c in hidden if shown[c] > pack[c] - hidden[c]}


def hidden_from(state: State, viewer: int | None) -> tuple[Counter[str], Counter[str]]:
    """The card copies ``viewer`` (None: a spectator) may not see in ``state``: the undealt rest and stock, and
    the other seats' hands but for any card shown to it (``Game.seen_cards``); and its own hand."""
    hands = state.get("hands") or []
    seen = engine.get_game(state["game"]).seen_cards(state, viewer)
    hidden = Counter(state.get("rest") or []) + Counter(state.get("stock") or []) + Counter(
        c for s, hand in enumerate(hands) if s != viewer for c in hand if c not in seen)
    own = Counter(hands[viewer]) if viewer is not None and hands else Counter()
    return hidden, own


def play_to_end(game_id: str, players: int, options: dict[str, Any], seed: str, rng: random.Random,
                max_moves: int = 20000, check_every: int = 1, probe: float = 0.0,
                posted: Counter[tuple[str, str]] | None = None) -> tuple[State, int]:
    """Play random legal moves to the end, checking the invariants after each move; at a random ``probe``
    share of the points of play, also every listed move and unlisted moves of every kind
    (``check_every_kind``), the refused ones counted in ``posted``."""
    state = engine.new_match(game_id, players, options, seed)
    game = engine.get_game(game_id)
    checked = engine.check_state(game_id, state)
    pack = Counter(game.pack(players, state["options"]))
    in_play = conserved_cards(game, state, pack, None)
    moves = 0
    while not engine.is_finished(state):
        legal = engine.legal_moves(state)
        assert legal, f"no legal move before the end (phase {state['phase']})"
        assert sorted({m["seat"] for m in legal}) == engine.to_act(state), "to_act differs from the seats in legal_moves"
        if moves % check_every == 0:
            check_rejections(state, legal, rng)
        if probe and rng.random() < probe:
            check_every_kind(state, legal, rng, Counter() if posted is None else posted)
        move = concrete(rng.choice(legal), rng)
        state, _ = engine.apply(state, move)
        moves += 1
        if moves % check_every == 0:  # as the API checks a match's states: carried on from the last one
            sent = engine.clone(state)
            checked = engine.resume(checked, sent) or engine.check_state(game_id, sent)
            assert checked == state
            conserved_cards(game, state, pack, in_play)
        assert moves < max_moves, "the match does not end"
    engine.check_state(game_id, state)
    assert engine.legal_moves(state) == [] and engine.to_act(state) == []
    res = engine.result(state)
    assert res is not None and len(res["payoffs"]) == players
    assert all(isinstance(p, int) for p in res["payoffs"])
    if game.zero_sum(state["options"]):
        assert sum(res["payoffs"]) == 0, f"payoffs do not balance: {res}"
    assert sorted(res["ranking"]) == list(range(players))
    assert game.card_groups(state) is not None
    return state, moves


def conserved_cards(game: Any, state: State, pack: Counter[str], count: int | None) -> int:
    """Every card the game's ``card_groups`` place (hands, tricks, stock...) is a card of the pack, none more
    often than the pack holds it, and as many of them as at the start of the match."""
    cards = [c for group in game.card_groups(state) for c in group]
    assert not Counter(cards) - pack, f"cards duplicated or not of the pack: {sorted((Counter(cards) - pack).elements())}"
    assert count is None or len(cards) == count, f"{count} cards in play became {len(cards)}"
    return len(cards)


def check_rejections(state: State, legal: list[dict[str, Any]], rng: random.Random) -> None:
    """A sample of other listed moves is accepted; plays not listed are refused with a reason."""
    for m in rng.sample(legal, min(3, len(legal))):
        engine.apply(state, concrete(m, rng))
    acting = {m["seat"] for m in legal}
    n = state["players"]
    idle = [s for s in range(n) if s not in acting]
    for m in legal:
        if m["action"] != "play":
            continue
        if idle:
            wrong = dict(m, seat=rng.choice(idle))
            expect_illegal(state, wrong)
        hand = state.get("hands", [[]] * n)[m["seat"]] if isinstance(state.get("hands"), list) else []
        listed = {x.get("card") for x in legal if x["seat"] == m["seat"] and x["action"] == "play"}
        for card in hand:
            if isinstance(card, str) and card not in listed:
                expect_illegal(state, dict(m, card=card))
        break
    expect_illegal(state, {"seat": legal[0]["seat"], "action": "no_such_action"}, "unknown_action")


def check_every_kind(state: State, legal: list[dict[str, Any]], rng: random.Random,
                     posted: Counter[tuple[str, str]]) -> None:
    """Every listed move is accepted; moves of every action the game has that no entry lists (``unlisted_moves``)
    are refused with IllegalMove, never another error, and leave the state as it was. A move accepted though
    no entry lists it as written must be a listed move in other words (an optional parameter left out for its
    default, or given as false): the same state and events as a listed move of its seat and action.
    ``posted`` counts the refused moves by action and reason."""
    for move in legal:
        engine.apply(state, concrete(move, rng))
    before = engine.clone(state)
    for move in unlisted_moves(engine.get_game(state["game"]), state, legal, rng, UNLISTED_PER_ACTION):
        try:
            after = engine.apply(state, move)
        except IllegalMove as exc:
            assert exc.reason and exc.message
            posted[move["action"], exc.reason] += 1
        except Exception as exc:
            raise AssertionError(f"{move}: {type(exc).__name__} ({exc}) instead of IllegalMove") from exc
        else:
            same = [m for m in legal if m["seat"] == move["seat"] and m["action"] == move["action"]]
            assert any(same_outcome(after, engine.apply(state, m)) for m in same), f"unlisted move accepted: {move}"
        assert state == before, f"{move}: the state it was posted to changed"


def same_outcome(a: tuple[State, list[dict[str, Any]]], b: tuple[State, list[dict[str, Any]]]) -> bool:
    """Two moves did the same: the same events and state, but for how the log wrote the move."""
    (state_a, events_a), (state_b, events_b) = a, b
    return events_a == events_b and {**state_a, "log": None} == {**state_b, "log": None}


def concrete(move: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A listed move as a bot would post it: where the entry has ``ranges`` (docs/events.md), each ranged
    parameter takes a random value of its range; the ``ranges`` key itself is posted back too (it is ignored)."""
    ranges = move.get("ranges")
    if not ranges:
        return move
    out = dict(move)
    for key, span in ranges.items():
        out[key] = value_in(span, rng)
    return out


def apply_checked(state: State, *moves: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    """Apply ``moves`` in turn; the events of all of them, and the end state, which must pass ``check_state``."""
    events: list[dict[str, Any]] = []
    for move in moves:
        state, more = engine.apply(state, move)
        events += more
    assert engine.check_state(state["game"], engine.clone(state)) == state
    return state, events


def value_in(span: dict[str, Any], rng: random.Random) -> Any:
    """A random value of a range: a number from ``min`` to ``max``, or ``choose`` cards out of ``from``."""
    if "choose" in span:
        return rng.sample(span["from"], span["choose"])
    return rng.randint(span["min"], span["max"])


def expect_illegal(state: State, move: dict[str, Any], reason: str | None = None) -> str:
    try:
        engine.apply(state, move)
    except IllegalMove as exc:
        assert exc.reason and exc.message
        if reason is not None:
            assert exc.reason == reason, f"{move}: expected {reason}, got {exc.reason}"
        return exc.reason
    raise AssertionError(f"illegal move accepted: {move}")


SAFE_MAX = 2**53 - 1


def play_to_the_limit(game_id: str, state: State, choose: Callable[[State], dict[str, Any]],
                      scheduled: int) -> tuple[State, list[dict[str, Any]]]:
    """Play ``choose``'s moves to the end of a pot game's match that reaches the safe-integer bound before its
    ``scheduled`` last deal, checking every state and that no chip count, pot or change passes +-(2^53 - 1);
    then that the match ended at the limit: the deal settled as a closing deal (no loo paid, the dealer's
    ante the only loss), played for a pot that a loo or two would have taken past the bound, and a result in
    range. Returns the final state and the moves."""
    moves: list[dict[str, Any]] = []
    limit: list[dict[str, Any]] = []
    stake = 0
    while not engine.is_finished(state):
        move = choose(state)
        stake = state["pot"]
        state, events = engine.apply(state, move)
        moves.append(move)
        engine.check_state(game_id, state)
        assert all(abs(c) <= SAFE_MAX for c in state["chips"]) and 0 <= state["pot"] <= SAFE_MAX
        for e in events:
            assert all(abs(v) <= SAFE_MAX for v in e.get("changes", []))
            if e["type"] == "limit_reached":
                limit = events
    assert limit, "the match should have reached the bound"
    assert state["deal_no"] < scheduled
    assert [e["type"] for e in limit][-3:] == ["limit_reached", "deal_settled", "match_over"]
    assert limit[-2]["looed"] == [] and min(limit[-2]["changes"]) >= -state["options"]["ante"]
    assert stake > SAFE_MAX // 8
    res = engine.result(state)
    assert res is not None and sum(res["payoffs"]) == 0 and max(map(abs, res["scores"])) <= SAFE_MAX
    return state, moves


def first_state_with(game_id: str, players: int, action: str, seed: str = "c0ffee",
                     options: dict[str, Any] | None = None) -> tuple[State, dict[str, Any]]:
    """Random legal play from a new match until some seat may make ``action``: that state and the legal move."""
    rng = random.Random(seed)
    state = engine.new_match(game_id, players, options, seed)
    for _ in range(5000):
        legal = engine.legal_moves(state)
        assert legal, f"{game_id}: the match ended before any '{action}'"
        found = [m for m in legal if m["action"] == action]
        if found:
            return state, found[0]
        state, _ = engine.apply(state, concrete(rng.choice(legal), rng))
    raise AssertionError(f"{game_id}: no '{action}' in 5000 moves")


def hidden_after(state: State, move: dict[str, Any]) -> list[str]:
    """The parameters of ``move`` (legal in ``state``) that the public log withholds: what a session asks."""
    seen = engine.in_public_view(state)
    after, _ = engine.apply(state, move)
    return engine.hidden_params(move, seen, after)


def outside_code_then_not_held(game_id: str, players: int, action: str, key: str, code: str) -> None:
    """The contract's precedence, in the first state where ``action`` is legal: ``code`` (no card of the game's
    pack) in ``key`` is a bad parameter even after the turn is checked; a card of the pack the seat does not
    hold is ``card_not_in_hand``."""
    state, move = first_state_with(game_id, players, action)
    expect_illegal(state, dict(move, **{key: code}), "invalid_parameters")
    held = set(state["hands"][move["seat"]])
    not_held = next(c for c in engine.get_game(game_id).pack(players, state["options"]) if c not in held)
    expect_illegal(state, dict(move, **{key: not_held}), "card_not_in_hand")


def later_deal(game_id: str, players: int, options: dict[str, Any], deals: list[dict[str, Any]],
               carried: dict[str, Any], earlier: int = 1, seed: str = "5eed") -> State:
    """A match in its deal ``earlier + 1``, dealt ``deals[0]`` (``deals[1:]`` the next ones), into which the
    earlier deals carried ``carried`` (the values its ``before`` records, the game's deal counter included where
    it keeps one). Totals carried into the first deal must be the starting ones, so a scenario that starts
    from other totals starts here. The earlier dealings were explicit deals too (copies of ``deals[0]``: only
    their number matters); the dealer is what the game derives from the options and the carried values."""
    state = engine.new_match(game_id, players, options, seed, deals=[deals[0]] * earlier + deals)
    state["before"].update(engine.clone({"dealings": earlier, **carried}))
    return engine.check_state(game_id, engine.rebuild(state))
