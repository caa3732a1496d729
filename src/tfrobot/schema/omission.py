"""When a stored field carries no information: the `exclude_if` tests of the message models.

A message is stored as its JSON dump, and most of its fields hold their default in most messages (a tool
result has no `tool_calls`, a reply no `creator`). Writing them cost a third of every record's bytes, and
every read parsed them back. A field whose value equals its default is left out instead: on load the default
comes back, so the record is equal to the one written. Each test matches exactly the field's default (None,
or the empty value of its type): a value that only looks empty (an empty list where the default is None) is
still written, since leaving it out would load as something else.

The tests are C callables (`functools.partial(operator.is_, None)`, `operator.not_`), not lambdas: pydantic-core
calls them once per field of every message it dumps, and a Python frame each time costs a quarter more.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import partial
from typing import Any, Final

IS_NONE: Final[Callable[[Any], bool]] = partial(operator.is_, None)
"""For a field whose default is None."""

IS_EMPTY: Final[Callable[[Any], bool]] = operator.not_
"""For a field whose default is the empty value of its only type: "", 0, False, [] or {} (never for a field
that may also hold None: None is empty too, and would load as the empty value)."""
