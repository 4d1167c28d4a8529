"""The pure-Python floor: a random 4-player, 52-card trick playout with follow suit and no trumps,
written as plainly and quickly as Python allows. It is the yardstick for the engine's cost per move."""
from __future__ import annotations

import random


def playout(rng: random.Random) -> int:
    """One deal played to the end; returns the number of moves (52)."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[0:13], deck[13:26], deck[26:39], deck[39:52]]
    leader = 0
    rand = rng.random
    for _ in range(13):
        hand = hands[leader]
        card = hand.pop(int(rand() * len(hand)))
        led = card // 13
        best, winner = card, leader
        for k in (1, 2, 3):
            seat = (leader + k) & 3
            hand = hands[seat]
            follow = [i for i, c in enumerate(hand) if c // 13 == led]
            i = follow[int(rand() * len(follow))] if follow else int(rand() * len(hand))
            c = hand.pop(i)
            if c // 13 == led and c > best:
                best, winner = c, seat
        leader = winner
    return 52
