"""Type aliases shared across the schema package."""

from __future__ import annotations

from typing import TypeAlias

from pydantic import JsonValue

AttributeValue: TypeAlias = JsonValue
"""A metadata value: anything JSON can hold (the seed's `additional_kwargs` values, trace meta)."""
