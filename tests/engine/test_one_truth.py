"""Every step's legality is written once: the legal-move list and the refusal of a move come from the same rule.

A game states each step's rule as a value of the core (``flow.Choices``, ``flow.Judged``, ``flow.Flagged``,
``flow.Refuses`` or the trick ladder ``tricks.TrickPlay``): the core lists the moves the rule lets through and
raises the refusal the rule gives, so no game module writes a legal list beside a refusal. A game module never
raises ``IllegalMove`` itself (its handlers only change the state), and the phase lists a seat's action exactly
when the phase's own refusals before the parameters (``Phase.route``) let it through.
"""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from service import engine
from service.engine import flow, tricks
from service.engine.errors import IllegalMove

from .playout import concrete

GAMES = Path(__file__).resolve().parents[2] / "service" / "engine" / "games"
CORE_RULES = (flow.Choices, flow.Judged, flow.Flagged, flow.Refuses, tricks.TrickPlay)
RULE_METHODS = {"legal", "refuses"}


def game_modules() -> list[Path]:
    return sorted(p for p in GAMES.glob("*.py") if p.name != "__init__.py")


def rules_of(rule: object) -> list[object]:
    """A rule and the rules it is made of (a flagged rule wraps another)."""
    return [rule, *rules_of(rule.rule)] if isinstance(rule, flow.Flagged) else [rule]


@pytest.mark.parametrize("game_id", sorted(engine.all_games()))
def test_every_step_has_one_rule_of_the_core(game_id: str) -> None:
    """Each step's rule is a value of the core's rule types (not a game's own class), and no phase carries a
    legal-move function of its own: its list is the core's, from its steps' rules."""
    game = engine.get_game(game_id)
    for name, phase in game.phases.items():
        assert type(phase) is flow.Phase, f"{game_id}/{name}: a phase is a flow.Phase"
        for action, step in phase.steps.items():
            assert type(step) is flow.Step, f"{game_id}/{name}/{action}: a step is a flow.Step"
            for rule in rules_of(step.rule):
                assert type(rule) in CORE_RULES, (
                    f"{game_id}/{name}/{action}: the rule is a {type(rule).__name__}, not one of the core's")


@pytest.mark.parametrize("path", game_modules(), ids=lambda p: p.name)
def test_no_game_module_refuses_outside_its_rules(path: Path) -> None:
    """A game module names no ``IllegalMove`` and raises no refusal: its refusals are ``flow.Refusal`` values
    returned by its rules, and only the core turns them into errors. So a handler cannot refuse a move the
    legal list offers, nor a legal list offer a move a handler refuses."""
    tree = ast.parse(path.read_text(), filename=str(path))
    offences = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "IllegalMove":
            offences.append(f"line {node.lineno}: IllegalMove")
        elif isinstance(node, ast.alias) and node.name in ("IllegalMove", "refuse"):
            offences.append(f"line {node.lineno}: imports {node.name}")
        elif isinstance(node, ast.Attribute) and node.attr in ("error", "refuses") and isinstance(node.ctx, ast.Load):
            offences.append(f"line {node.lineno}: .{node.attr}")
    assert not offences, f"{path.name} refuses outside its rules: {offences}"


@pytest.mark.parametrize("path", game_modules(), ids=lambda p: p.name)
def test_no_game_module_defines_a_rule_of_its_own(path: Path) -> None:
    """A class with both ``legal`` and ``refuses`` would be a second way to state a rule (and could list one
    thing and refuse another); a game uses the core's. A trick table may override its ranking and its ladder,
    which lists and refuses at once."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
            assert not RULE_METHODS <= methods, f"{path.name}: class {node.name} is a rule of its own"
            assert not bases & {c.__name__ for c in CORE_RULES}, f"{path.name}: class {node.name} extends a rule"


def playout_states(game_id: str, options: dict, seed: str, every: int) -> list[engine.State]:
    state = engine.new_match(game_id, None, options, seed)
    rng = random.Random(seed)
    states = []
    for k in range(600):
        if engine.is_finished(state):
            break
        if k % every == 0:
            states.append(engine.clone(state))
        state, _ = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
    return states


def option_sets(game_id: str) -> list[dict]:
    return [{}, *(dict(o) for o in engine.get_game(game_id).sample_options)]


@pytest.mark.parametrize("game_id", sorted(engine.all_games()))
def test_a_phase_lists_what_its_route_and_rules_let_through(game_id: str) -> None:
    """For every seat and action of the phase: the route refuses it and nothing of it is listed, or the route
    lets it through and the list holds exactly the moves its step's rule lets through, each of which the rule
    then accepts as it is posted."""
    game = engine.get_game(game_id)
    checked = 0
    for i, options in enumerate(option_sets(game_id)):
        try:
            states = playout_states(game_id, options, f"{i:x}1e9a1", every=3)
        except engine.InvalidOptions:
            continue
        for state in states:
            phase = game.phases[state["phase"]]
            listed = phase.legal(state)
            for seat in range(state["players"]):
                for action, step in phase.steps.items():
                    mine = [m for m in listed if m["seat"] == seat and m["action"] == action]
                    try:
                        assert phase.route(state, seat, action) is step
                    except IllegalMove:
                        assert not mine, f"{game_id}: {action} by seat {seat} is listed but routed to a refusal"
                        continue
                    own = [m for m in step.rule.legal(state, [seat]) if m["action"] == action]
                    assert mine == own, f"{game_id}: the list of {action} by seat {seat} is not its rule's"
                    for move in mine:
                        posted = {k: v for k, v in move.items() if k != "ranges"}
                        assert step.rule.refuses(state, posted) is None, f"{game_id}: listed {move} is refused"
                        checked += 1
    assert checked
