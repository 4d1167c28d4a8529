"""Jewel's hand searches on adversarial and random hands: ``python -m bench.jewel_bench [--quick] [--json PATH]``.

Times the four searches of service/engine/games/jewel_hands.py that run while a deal is played or scored:

    check         is_valid_declaration (16 cards; the declaration check of spec 5.5)
    declarer      declarer_arrangement (16 cards; the declarer's best bonus, 5.5)
    valid_list    valid_declarations (17 cards; which discards declare, 4.5)
    best          best_arrangement (16 cards; a non-declarer's best arrangement, 6.1)

over three sets of hands:

    built     hands made to be hard: the most compulsory sequences a hand can hold, every wild card in the pack,
              duplicated overlapping runs, wild cards with no auxiliary triple possible (the search must exhaust)
    random    hands dealt from the 162-card pack, and "dense" hands drawn from two suits, six ranks and every
              wild card (where runs, sets and jewels crowd together)
    searched  the slowest hands a seeded hill climb finds: starting from dense hands, it swaps one card at a time
              for another card of the pack and keeps the swap when the search gets slower

Each hand's time is the median of several calls (each call builds its search from scratch; nothing is cached
between calls); the report gives, per function, the median and the worst hand over all sets, and which hand was
worst. Target (issue 18): the worst case under 5 ms for the check, the valid-declarations list and the best
arrangement. Nothing is asserted: the numbers are reported (docs/performance.md, "Jewel's hand searches").
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from service.engine.cards import JOKER, RANKS, SUITS  # noqa: E402
from service.engine.games.jewel_hands import (best_arrangement, declarer_arrangement,  # noqa: E402
                                        is_valid_declaration, valid_declarations)
from service.engine.games.jewel_melds import JEWEL_PACK, DealRules  # noqa: E402

TARGET_MS = 5.0
Hand = tuple[str, ...]
Case = tuple[str, DealRules, Hand]          # name, rules, 17 cards (the 16-card searches use the first 16)

FUNCTIONS: dict[str, tuple[Callable[[Sequence[str], DealRules], Any], int]] = {
    "check": (is_valid_declaration, 16),
    "declarer": (declarer_arrangement, 16),
    "valid_list": (valid_declarations, 17),
    "best": (best_arrangement, 16),
}
TARGETED = ("check", "valid_list", "best")

BUILT: list[tuple[str, str, str]] = [   # name, open card, 17 cards
    ("ten compulsory sequences", "AS", "2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D 6D 7D 8D JK"),
    ("ten sequences, jewel as itself", "7D", "2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D 6D 7D 8D 7S"),
    ("ten sequences, no wild card", "AS", "2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D 6D 7D 8D 9D"),
    ("doubled run 2-9", "7D", "2C 3C 4C 5C 6C 7C 8C 9C 2C 3C 4C 5C 6C 7C 8C 9C JK"),
    ("doubled run with jewels", "7D", "2C 3C 4C 5C 6C 7S 8C 9C 2C 3C 4C 5C 6C 7C JK JK 7S"),
    ("tripled run with jokers", "TD", "4H 5H 6H 7H 4H 5H 6H 7H 4H 5H 6H 7H JK JK JK TS TC"),
    ("all twelve wild cards", "7D", "JK JK JK JK JK JK 7C 7C 7C 7S 7S 7S 2H 3H 4H 5H 6H"),
    ("wild cards, no auxiliary", "7D", "JK JK JK JK JK JK 7C 7S 2H 3H 4H 5H 9D JC QS 5C 2D"),
    ("jewels among runs", "9H", "7C 8C 9C TC 7S 8S 9S TS 9C 9S 6C 6S 8C 8S JK JK 9C"),
    ("super sequences and sets", "2S", "AS 2S 3S AS 2S 3S 4S 5S 6S 7S 2D 2H 2D 2H JK 3C 3D"),
    ("honours, marriages", "AS", "JC QC KC AC JC QC KC AC QS KS JS JD JH AH AD JK QC"),
    ("mixed seed-like", "TD", "2C 3C 4C 5C 8D 9D TD JD JS JH JK JK 8C 5S 5H 5C TS"),
]


def built_cases() -> list[Case]:
    return [(name, DealRules(open_card), tuple(text.split())) for name, open_card, text in BUILT]


def pack_without(open_card: str) -> list[str]:
    pack = list(JEWEL_PACK)
    pack.remove(open_card)
    return pack


def dense_pool(rng: random.Random, rules: DealRules) -> list[str]:
    """Two suits and six ranks of the pack, plus every joker, jewel and super-sequence card."""
    suits = rules.open_card[1] + rng.choice([s for s in SUITS if s != rules.open_card[1]])
    low = rng.randrange(0, 8)
    window = RANKS[low:low + 6]
    return [c for c in pack_without(rules.open_card) if c == JOKER or rules.is_jewel(c)
            or c in rules.super_sequence or (c[1] in suits and c[0] in window)]


def random_open_card(rng: random.Random) -> str:
    return rng.choice([c for c in JEWEL_PACK if c != JOKER])


def random_cases(rng: random.Random, count: int) -> list[Case]:
    cases: list[Case] = []
    for i in range(count):
        rules = DealRules(random_open_card(rng))
        pool = pack_without(rules.open_card) if i % 2 else dense_pool(rng, rules)
        cases.append((f"{'uniform' if i % 2 else 'dense'} #{i}", rules, tuple(rng.sample(pool, 17))))
    return cases


def time_calls(fn: Callable[[Sequence[str], DealRules], Any], hand: Sequence[str], rules: DealRules,
               repeats: int) -> list[float]:
    """Milliseconds of each of `repeats` calls."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(hand, rules)
        samples.append((time.perf_counter() - start) * 1e3)
    return samples


def time_call(fn: Callable[[Sequence[str], DealRules], Any], hand: Sequence[str], rules: DealRules,
              repeats: int) -> float:
    """A hand's time: the median of `repeats` calls (one call preempted by another process does not count)."""
    return statistics.median(time_calls(fn, hand, rules, repeats))


def cost(case: Case, repeats: int) -> float:
    """What the hill climb maximises: the slowest targeted search on this hand, each its fastest of `repeats`
    calls (the least disturbed by other processes, so that the climb follows the search, not the machine's noise)."""
    _name, rules, hand = case
    return max(min(time_calls(FUNCTIONS[f][0], hand[:FUNCTIONS[f][1]], rules, repeats)) for f in TARGETED)


def mutate(rng: random.Random, rules: DealRules, hand: Hand) -> Hand:
    """Swap one card for another card of the pack that the hand does not already hold in all copies."""
    available = Counter(pack_without(rules.open_card))
    available.subtract(hand)
    choices = [c for c, n in available.items() if n > 0]
    if rng.random() < 0.7:                        # mostly stay near the hand's suits, ranks and wild cards
        near = {c[1] for c in hand if c != JOKER} | {"W"}
        choices = [c for c in choices if c == JOKER or rules.is_wild_card(c) or c[1] in near] or choices
    out = list(hand)
    out[rng.randrange(17)] = rng.choice(choices)
    return tuple(out)


def searched_cases(rng: random.Random, restarts: int, steps: int, repeats: int) -> list[Case]:
    """Seeded hill climbs towards the slowest hands (see the module docstring)."""
    found: list[Case] = []
    for r in range(restarts):
        rules = DealRules(random_open_card(rng))
        hand = tuple(rng.sample(dense_pool(rng, rules), 17))
        current = cost(("", rules, hand), repeats)
        for _ in range(steps):
            candidate = mutate(rng, rules, hand)
            value = cost(("", rules, candidate), repeats)
            if value > current:
                hand, current = candidate, value
        found.append((f"climb #{r}", rules, hand))
    return found


def measure(cases: list[Case], repeats: int) -> dict[str, list[tuple[float, str, str, str]]]:
    """Per function, one row per hand: (median ms, hand name, open card, cards)."""
    return {fname: [(time_call(fn, hand[:size], rules, repeats), name, rules.open_card, " ".join(hand[:size]))
                    for name, rules, hand in cases]
            for fname, (fn, size) in FUNCTIONS.items()}


def summary(rows: list[tuple[float, str, str, str]], fname: str) -> dict[str, Any]:
    worst = max(rows)
    return {"median_ms": statistics.median(t for t, *_ in rows), "worst_ms": worst[0], "worst_hand": worst[1],
            "worst_open_card": worst[2], "worst_cards": worst[3], "hands": len(rows),
            "target_ms": TARGET_MS if fname in TARGETED else None}


def run(quick: bool, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    repeats = 3 if quick else 7
    load_start = os.getloadavg()[0]
    started = time.perf_counter()
    sets = {
        "built": built_cases(),
        "random": random_cases(rng, 20 if quick else 400),
        "searched": searched_cases(rng, restarts=1 if quick else 12, steps=10 if quick else 300, repeats=3),
    }
    rows = {name: measure(cases, repeats) for name, cases in sets.items()}
    per_set = {name: {f: summary(r, f) for f, r in by_function.items()} for name, by_function in rows.items()}
    overall = {f: summary([row for by_function in rows.values() for row in by_function[f]], f) for f in FUNCTIONS}
    return {"seed": seed, "quick": quick, "python": platform.python_version(), "repeats": repeats,
            "cpus": os.cpu_count(), "load_average": [load_start, os.getloadavg()[0]],
            "seconds": time.perf_counter() - started,
            "sets": {name: len(cases) for name, cases in sets.items()}, "per_set": per_set, "overall": overall}


def table(results: dict[str, Any]) -> str:
    lines = ["| function | hands | median ms | worst ms | worst hand (set: name, open card) | target |",
             "|---|---|---|---|---|---|"]
    for fname, row in results["overall"].items():
        where = next(s for s, rows in results["per_set"].items() if rows[fname]["worst_ms"] == row["worst_ms"])
        target = f"< {row['target_ms']:g} ms" if row["target_ms"] else "-"
        lines.append(f"| {fname} | {row['hands']} | {row['median_ms']:.3f} | {row['worst_ms']:.3f} | "
                     f"{where}: {row['worst_hand']}, O = {row['worst_open_card']} | {target} |")
    lines += ["", "| function | " + " | ".join(f"{s} worst ms" for s in results["per_set"]) + " |",
              "|---|" + "---|" * len(results["per_set"])]
    for fname in FUNCTIONS:
        lines.append(f"| {fname} | " + " | ".join(f"{rows[fname]['worst_ms']:.3f}"
                                                  for rows in results["per_set"].values()) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few hands and a short climb (seconds)")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args(argv)
    results = run(args.quick, args.seed)
    print(f"Python {results['python']}, {results['cpus']} CPUs, load average {results['load_average'][0]:.2f} at the "
          f"start and {results['load_average'][1]:.2f} at the end, {results['seconds']:.0f} s; each hand's time is the "
          f"median of {results['repeats']} calls.\n")
    print(table(results))
    for fname, row in results["overall"].items():
        print(f"worst {fname}: O = {row['worst_open_card']}: {row['worst_cards']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
