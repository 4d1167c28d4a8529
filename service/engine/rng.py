"""The seeded shuffle: the same deal for the same seed on every machine and Python version.

Algorithm (documented in docs/fair-dealing.md so anyone can re-implement it):

* The seed is a string of hex digits; its bytes are ``bytes.fromhex(seed)`` (an odd-length seed
  gets a leading ``0``).
* A *label* names each dealing, for example ``"femkort/3"`` for the fourth dealing of a Femkort match.
* A stream of 64-bit numbers: block ``i`` (i = 0, 1, ...) is
  ``SHA-256(seed_bytes || b"|" || label_utf8 || b"|" || i as 8 bytes big-endian)``, read as four
  big-endian unsigned 64-bit integers in order.
* ``below(m)`` draws the next number ``x`` and rejects it while ``x >= 2**64 - (2**64 % m)``; it
  returns ``x % m``. This is exactly uniform.
* Fisher-Yates: for ``i`` from ``len(cards) - 1`` down to ``1``, ``j = below(i + 1)``, swap
  positions ``i`` and ``j``.
"""
from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from functools import lru_cache

from .cards import Card

_TWO64 = 1 << 64


def seed_bytes(seed: str) -> bytes:
    """The seed's bytes; raises ValueError when it is not hex."""
    if len(seed) % 2:
        seed = "0" + seed
    return bytes.fromhex(seed)


_SUFFIXES = tuple(block.to_bytes(8, "big") for block in range(64))  # enough for any pack here, without a rejection


def _blocks(prefix: bytes, first: int, count: int) -> list[int]:
    """The numbers of blocks ``first`` .. ``first + count - 1`` of the stream, in order."""
    sha256 = hashlib.sha256
    digests = [sha256(prefix + (_SUFFIXES[b] if b < 64 else b.to_bytes(8, "big"))).digest()
               for b in range(first, first + count)]
    return list(struct.unpack(f">{4 * count}Q", b"".join(digests)))


def shuffled(cards: Sequence[Card], seed: str, label: str) -> list[Card]:
    """A copy of ``cards`` in the order the seeded shuffle gives for this seed and label."""
    return list(_shuffled(tuple(cards), seed, label))


@lru_cache(maxsize=512)
def _shuffled(cards: tuple[Card, ...], seed: str, label: str) -> tuple[Card, ...]:
    """The shuffle, remembered: every request about a deal deals it again to check the state (the deal's
    record is replayed), so the same seed and label come back for every move of a deal."""
    return tuple(_shuffle(cards, seed, label))


def _shuffle(cards: Sequence[Card], seed: str, label: str) -> list[Card]:
    out = list(cards)
    prefix = seed_bytes(seed) + b"|" + label.encode() + b"|"
    numbers = _blocks(prefix, 0, (len(out) + 2) // 4)  # one draw per swap, unless a draw is rejected
    surely_accepted = _TWO64 - len(out)  # below(m) accepts every x < 2**64 - m, and m <= len(cards)
    for i, x in zip(range(len(out) - 1, 0, -1), numbers):
        if x >= surely_accepted:  # about one shuffle in 2**52: follow the rule to the letter instead
            return _shuffled_by_the_rule(list(cards), prefix)
        j = x % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def _shuffled_by_the_rule(out: list[Card], prefix: bytes) -> list[Card]:
    """The shuffle exactly as documented, rejections included (``shuffled`` takes a faster path when no draw
    comes near a rejection)."""
    numbers: list[int] = []
    k = 0
    for i in range(len(out) - 1, 0, -1):
        m = i + 1
        while True:
            if k == len(numbers):
                numbers += _blocks(prefix, len(numbers) // 4, 1)
            x = numbers[k]
            k += 1
            if x < _TWO64 - _TWO64 % m:
                break
        j = x % m
        out[i], out[j] = out[j], out[i]
    return out
