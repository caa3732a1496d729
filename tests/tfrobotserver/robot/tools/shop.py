"""Python tools a robot file names as `module:function` or `module:*` (the README's example uses them)."""

from __future__ import annotations

from tfrobot.drive import tool

__all__ = ["lookup_order", "refund_order"]

ORDERS = {"A-1": "2 books, shipped", "B-2": "1 lamp, packing"}
REFUNDED: list[str] = []


def lookup_order(order_id: str) -> str:
    """The state of an order."""
    return f"{order_id}: {ORDERS.get(order_id, 'unknown order')}"


@tool(confirm=True)
def refund_order(order_id: str) -> str:
    """Refund an order (asks the user first)."""
    REFUNDED.append(order_id)
    return f"refunded {order_id}"


def _helper() -> None:
    """Not a tool: not in __all__."""


NOT_CALLABLE = 42
