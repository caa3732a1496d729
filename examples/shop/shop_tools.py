"""The shop robot's own tools (`shop.yaml` names them as `shop_tools:lookup_order`, `shop_tools:refund_order`).

A plain typed function is a tool as it is; `@tool` (from `tfrobot.drive`) adds options such as
`confirm=True`, `timeout=` or `name=`.
"""

from __future__ import annotations

from tfrobot.drive import tool

ORDERS = {"A-1": "2 books, shipped", "B-2": "1 lamp, packing"}


def lookup_order(order_id: str) -> str:
    """The state of an order."""
    return f"{order_id}: {ORDERS.get(order_id, 'unknown order')}"


@tool(confirm=True)
def refund_order(order_id: str) -> str:
    """Refund an order (asks the user first)."""
    return f"refunded {order_id}"
