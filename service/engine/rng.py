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
from collections.abc import Iterator, Sequence

from .cards import Card

_TWO64 = 1 << 64


def seed_bytes(seed: str) -> bytes:
    """The seed's bytes; raises ValueError when it is not hex."""
    if len(seed) % 2:
        seed = "0" + seed
    return bytes.fromhex(seed)


def _stream(seed: str, label: str) -> Iterator[int]:
    prefix = seed_bytes(seed) + b"|" + label.encode() + b"|"
    block = 0
    while True:
        digest = hashlib.sha256(prefix + block.to_bytes(8, "big")).digest()
        yield from struct.unpack(">4Q", digest)
        block += 1


def shuffled(cards: Sequence[Card], seed: str, label: str) -> list[Card]:
    """A copy of ``cards`` in the order the seeded shuffle gives for this seed and label."""
    out = list(cards)
    numbers = _stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        m = i + 1
        limit = _TWO64 - (_TWO64 % m)
        x = next(numbers)
        while x >= limit:
            x = next(numbers)
        j = x % m
        out[i], out[j] = out[j], out[i]
    return out
