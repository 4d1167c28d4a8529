"""Engine costs from seeded random playouts, beside the pure-Python floor (bench/floor.py).

- ``costs``: for every game (its default player count and options), microseconds per move (legal_moves +
  choosing one at random + apply in place, as the API does), per state validation (check_state) and per view
  (seat 0 and spectator), plus the ratio of the per-move cost to the floor. The ratio is measured in rounds:
  each round times the floor and then every game for the same short while, so both see the same machine load;
  the reported ratio is the median over rounds.
- ``growth``: the longest matches (many rounds or deals): per-move time, validation time, state size and
  /move response size in the first, middle and last tenth of the match.
"""
from __future__ import annotations

import random
import statistics
import time
from typing import Any

import orjson

from service import engine

from .floor import playout as floor_playout

# The longest matches: (game, players, options) for the full and the short mode.
LONG_MATCHES = {
    "full": [("davoserjazz", 4, {"rounds": 8}), ("femkort", 4, {"deals": 200}), ("zwikken", 3, {"deals": 99}),
             ("irish_loo", 4, {"rounds": 8}), ("toepen", 4, {"target": 30})],
    "short": [("davoserjazz", 4, {"rounds": 2}), ("femkort", 4, {"deals": 40}), ("zwikken", 3, {"deals": 21})],
}


def concrete(move: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A listed move with each parameter named in its ``ranges`` (docs/events.md) set to a random value of it."""
    ranges = move.get("ranges")
    if ranges is None:
        return move
    out = dict(move)
    for key, span in ranges.items():  # a number from min to max, or (Stýrivolt's discard) ``choose`` of ``from``
        out[key] = rng.sample(span["from"], span["choose"]) if "choose" in span else rng.randint(span["min"], span["max"])
    return out


def floor_us_per_move(seconds: float, rng: random.Random) -> float:
    moves, start, perf = 0, time.thread_time(), time.thread_time
    while perf() - start < seconds:
        for _ in range(20):
            moves += floor_playout(rng)
    return (perf() - start) / moves * 1e6


def playout_us_per_move(game_id: str, players: int, options: dict[str, Any], seconds: float,
                        rng: random.Random, tag: int) -> tuple[float, int]:
    """Whole random matches for ``seconds``; only the move loop is timed (not new_match). Per move, like
    the floor: list the legal moves, pick one at random, apply it."""
    legal_moves, apply, choice, perf = engine.legal_moves, engine.apply, rng.choice, time.thread_time
    total, moves, m = 0.0, 0, 0
    while total < seconds:
        state = engine.new_match(game_id, players, options, f"{tag:x}{m:04x}")
        m += 1
        n = 0
        t0 = perf()
        while state["phase"] != engine.base.OVER:
            state, _ = apply(state, concrete(choice(legal_moves(state)), rng))
            n += 1
        total += perf() - t0
        moves += n
    return total / moves * 1e6, moves


def detail(game_id: str, players: int, options: dict[str, Any], matches: int, seed: int) -> dict[str, Any]:
    """Per-move timings (median and p90), validation and view times on every 5th state, and sizes."""
    rng = random.Random(seed)
    perf = time.perf_counter
    move_t: list[float] = []
    check_t: list[float] = []
    view_t: list[float] = []
    spect_t: list[float] = []
    sizes: list[int] = []
    for m in range(matches):
        state = engine.new_match(game_id, players, options, f"d{seed:x}{m:04x}")
        k = 0
        while not engine.is_finished(state):
            t0 = perf()
            move = concrete(rng.choice(engine.legal_moves(state)), rng)
            state, _ = engine.apply(state, move)
            move_t.append(perf() - t0)
            k += 1
            if k % 5 == 0:
                check_t.append(_time(engine.check_state, game_id, state))
                view_t.append(_time(engine.view, state, 0))
                spect_t.append(_time(engine.view, state, None))
                sizes.append(len(orjson.dumps(state)))
    return {"move_us_median": _us(statistics.median(move_t)), "move_us_p90": _us(_pct(move_t, 90)),
            "validate_us": _us(statistics.median(check_t)), "view_us": _us(statistics.median(view_t)),
            "view_spectator_us": _us(statistics.median(spect_t)), "state_bytes_median": int(statistics.median(sizes)),
            "detail_moves": len(move_t), "moves_per_match": round(len(move_t) / matches, 1)}


def costs(mode: str, log: Any = print) -> dict[str, Any]:
    """The engine table: every game's per-move cost beside the floor, measured in interleaved rounds."""
    short = mode == "short"
    rounds, slice_s = (3, 0.25) if short else (7, 1.0)
    games = engine.all_games()
    rng = random.Random(7)
    floor_runs: list[float] = []
    runs: dict[str, list[float]] = {g: [] for g in games}
    ratios: dict[str, list[float]] = {g: [] for g in games}
    moves: dict[str, int] = {g: 0 for g in games}
    floor_playout(rng)
    for r in range(rounds):
        f = floor_us_per_move(slice_s, rng)
        floor_runs.append(f)
        for gid, game in games.items():
            us, n = playout_us_per_move(gid, game.default_players, {}, slice_s, rng, 1000 * r + 1)
            runs[gid].append(us)
            ratios[gid].append(us / f)
            moves[gid] += n
        log(f"  engine round {r + 1}/{rounds}: floor {f:.2f} us/move")
    out_games = []
    for i, (gid, game) in enumerate(games.items()):
        d = detail(gid, game.default_players, {}, 4 if short else 30, seed=11 + i)
        out_games.append({"game": gid, "players": game.default_players, "options": "defaults",
                          "move_us": round(statistics.median(runs[gid]), 2),
                          "ratio_to_floor": round(statistics.median(ratios[gid]), 2),
                          "ratio_runs": [round(x, 2) for x in ratios[gid]], "timed_moves": moves[gid], **d})
    return {"floor": {"what": "bench/floor.py: 4 players, 52 cards, follow suit, no trumps, random legal play",
                      "us_per_move": round(statistics.median(floor_runs), 3),
                      "runs": [round(x, 3) for x in floor_runs]},
            "rounds": rounds, "seconds_per_slice": slice_s, "games": out_games}


def growth(mode: str) -> list[dict[str, Any]]:
    """Start, middle and end of the longest matches: per-move and validation time, state and response size."""
    out = []
    for i, (gid, players, options) in enumerate(LONG_MATCHES[mode]):
        rng = random.Random(100 + i)
        # At least 3 matches, and more of the shorter ones (up to 12) until about 2,500 moves are recorded, so
        # that each tenth holds enough samples for a stable median.
        least, moves_wanted = (2, 0) if mode == "short" else (3, 2500)
        records: list[list[tuple[float, float, int, int]]] = []
        m = 0
        while m < least or (sum(len(r) for r in records) < moves_wanted and m < 12):
            state = engine.new_match(gid, players, options, f"9{i:x}{m:04x}")
            rec: list[tuple[float, float, int, int]] = []
            while not engine.is_finished(state):
                t0 = time.perf_counter()
                move = concrete(rng.choice(engine.legal_moves(state)), rng)
                state, events = engine.apply(state, move)
                dt = time.perf_counter() - t0
                if len(rec) % 3 == 0:  # every third move: validation time (best of 3), state and response sizes
                    vt = min(_time(engine.check_state, gid, state) for _ in range(3))
                    env = {"state": state, "to_act": engine.to_act(state), "legal_moves": engine.legal_moves(state),
                           "events": events, "finished": engine.is_finished(state), "result": engine.result(state)}
                    rec.append((dt, vt, len(orjson.dumps(state)), len(orjson.dumps(env))))
                else:
                    rec.append((dt, -1.0, -1, -1))
            records.append(rec)
            m += 1
        matches = len(records)
        phases: dict[str, dict[str, Any]] = {}
        for name in ("start", "middle", "end"):
            chunk = [x for rec in records for x in _tenth(rec, name)]
            phases[name] = {"move_us": _us(statistics.median(x[0] for x in chunk)),
                            "validate_us": _us(statistics.median(x[1] for x in chunk if x[1] >= 0)),
                            "state_bytes": int(statistics.median(x[2] for x in chunk if x[2] >= 0)),
                            "response_bytes": int(statistics.median(x[3] for x in chunk if x[3] >= 0))}
        s, e = phases["start"], phases["end"]
        out.append({"game": gid, "players": players, "options": options,
                    "matches": matches, "moves_per_match": round(sum(len(r) for r in records) / matches),
                    **phases,
                    "end_over_start": {k: round(e[k] / s[k], 2) for k in ("move_us", "validate_us", "state_bytes",
                                                                           "response_bytes")}})
    return out


def _tenth(rec: list[Any], where: str) -> list[Any]:
    n = len(rec)
    t = max(n // 10, 3)
    if where == "start":
        return rec[:t]
    if where == "end":
        return rec[-t:]
    return rec[n // 2 - t // 2:n // 2 - t // 2 + t]


def _time(fn: Any, *args: Any) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p / 100))]


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 2)
