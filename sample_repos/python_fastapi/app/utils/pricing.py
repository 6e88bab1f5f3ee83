"""Price arithmetic for orders."""

from decimal import ROUND_HALF_UP, Decimal
from typing import overload

from app.models.order import OrderItem

CENT = Decimal("0.01")


@overload
def to_money(amount: float) -> Decimal: ...


@overload
def to_money(amount: str) -> Decimal: ...


def to_money(amount: float | str) -> Decimal:
    """Round a float (or a decimal string such as ``"9.995"``) to whole cents."""
    return Decimal(str(amount)).quantize(CENT, rounding=ROUND_HALF_UP)


def compute_total(items: list[OrderItem]) -> Decimal:
    """Sum of quantity x unit price over all lines."""
    total = Decimal("0")
    for item in items:
        total += to_money(item.unit_price) * item.quantity
    return total


def apply_discount(total: Decimal, percent: float) -> Decimal:
    """``total`` reduced by ``percent`` (0-100), never below zero."""
    if percent <= 0:
        return total
    reduced = total * (Decimal(1) - Decimal(str(percent)) / 100)
    return max(to_money(float(reduced)), Decimal("0"))
