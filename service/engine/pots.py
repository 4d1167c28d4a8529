"""Chip arithmetic shared by the games: exact integers only, every chip accounted for."""
from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

from .checks import is_int, need, need_list

SAFE_MAX = 2**53 - 1  # the largest integer every JSON client reads exactly: no count may pass +-SAFE_MAX


def share_by_weights(total: int, weights: Sequence[int]) -> list[int]:
    """Share ``total`` among places by weight, one place after another, each share rounded up.

    Every rounding favours the earlier place and the shares always add up to ``total``.

    >>> share_by_weights(700, [4, 2, 1, 1])
    [350, 175, 88, 87]
    """
    shares: list[int] = []
    rem = total
    for k in range(len(weights) - 1):
        w_rest = sum(weights[k:])
        share = 0 if w_rest == 0 else (rem * weights[k] + w_rest - 1) // w_rest
        shares.append(share)
        rem -= share
    shares.append(rem)
    return shares


def split_evenly(total: int, seats_in_order: Sequence[int]) -> dict[int, int]:
    """Share ``total`` equally; the odd chips go one each to the seats listed first.

    >>> split_evenly(7, [2, 0, 1])
    {2: 3, 0: 2, 1: 2}
    """
    count = len(seats_in_order)
    base, odd = divmod(total, count)
    return {s: base + (1 if i < odd else 0) for i, s in enumerate(seats_in_order)}


def payoffs_balance(payoffs: Sequence[int]) -> bool:
    return sum(payoffs) == 0


def pay_by_tricks(pot: int, winners: Sequence[int], n: int, paid: Container[int]) -> list[int]:
    """A pot paid out by tricks: each trick's winner gets ``pot div tricks``, and the odd chips
    (``pot mod tricks``) go to the winner of the first trick. A winner not in ``paid`` (a hand played
    for the pot, such as a defended one) takes nothing: its share, odd chips included, stays in the pot.
    ``winners`` are the deal's trick winners in order; the answer is each of the ``n`` seats' share.

    >>> pay_by_tricks(7, [0, 3, 3], 4, {0})
    [3, 0, 0, 0]
    """
    shares = [0] * n
    if not winners:
        return shares
    value, odd = divmod(pot, len(winners))
    for seat in winners:
        if seat in paid:
            shares[seat] += value
    if winners[0] in paid:
        shares[winners[0]] += odd
    return shares


def within_limit(chips: Sequence[int], pot: int, margin: int = 0) -> bool:
    """Do the balances and the pot leave room for ``margin`` more chips to move (the next deal's ante) and
    then for the whole pot to go to the richest seat, every count staying within +-SAFE_MAX?

    Checked after a deal's settlement, it guarantees that the next deal, settled without loo payments,
    cannot pass the bound (games whose pot can double, such as Unlimited Loo, end the match before that).
    """
    return max(0, *chips) + pot + margin <= SAFE_MAX and min(chips) - margin >= -SAFE_MAX


def check_chip_totals(state: dict[str, Any], last_deal: int) -> None:
    """The totals a pot game carries into a deal (``deal_no``, ``chips``, ``pot``), raising InvalidState:
    a deal number the match can reach (below ``last_deal``), one dealing per deal, whole balances and pot
    within +-SAFE_MAX that add up to the starting chips and leave room for the deal's ante, the starting
    chips before the first deal, and (``end_mode`` "bust") nobody bust before a later one."""
    n, opts = state["players"], state["options"]
    deal_no, pot, start = state["deal_no"], state["pot"], opts["starting_chips"]
    need(is_int(deal_no, 0, last_deal - 1), "'deal_no' is out of range.")
    need(state["dealings"] == deal_no, "'dealings' must equal the number of deals dealt.")
    chips = need_list(state["chips"], "chips", n)
    need(all(is_int(c, -SAFE_MAX, SAFE_MAX) for c in chips), "'chips' must be whole numbers within the bound.")
    need(is_int(pot, 0, SAFE_MAX), "'pot' must be a whole number within the bound.")
    need(sum(chips) + pot == n * start, "Chips are not conserved (balances plus pot).")
    need(within_limit(chips, pot, opts["ante"]), "The balances leave no room for the next deal.")
    need(deal_no > 0 or (chips == [start] * n and pot == 0), "The match did not start with these chips.")
    need(opts.get("end_mode") != "bust" or deal_no == 0 or min(chips) > 0, "A seat is bust: the match is over.")
