"""Fuzzing the JSON a store or a client can hand the message layer.

Every input is either a clear `pydantic.ValidationError` or a correct load: never another exception, never
a hang, and never a silent downgrade (a record tagged with a known class's `role`/`msg_type` that loads
comes back as exactly that class). Seeds are the stored-record corpus of every version; hypothesis then
truncates them, swaps values for values of other types, renames roles and msg_types, blows up strings and
nests values deeply. `RELIABILITY_SOAK=1` (`make soak`) runs many more examples.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from tfrobot.schema.message import BaseMessage, Message, UserMessage, registered_classes

CORPUS = Path(__file__).parents[1] / "schema" / "message" / "corpus"
SEEDS: list[dict[str, Any]] = [json.loads(path.read_text())["record"] for path in sorted(CORPUS.glob("*/*.json"))]
EXAMPLES = 3000 if os.environ.get("RELIABILITY_SOAK") == "1" else 300
ONE = TypeAdapter(Message)
MANY = TypeAdapter(list[Message])
BASES = TypeAdapter(list[BaseMessage])
USERS = TypeAdapter(list[UserMessage])
ADAPTERS = (ONE, MANY, BASES, USERS)
KNOWN = registered_classes()
TAGS = sorted(KNOWN)

json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_value = st.recursive(
    json_leaf, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
)
roles = st.sampled_from(["user", "assistant", "system", "tool", "console", "function"]) | st.text(max_size=10)
msg_types = st.sampled_from(sorted({t.split(":", 1)[1] for t in TAGS})) | st.text(max_size=12) | st.none()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copied = json.loads(json.dumps(value))
    target = copied
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copied


@st.composite
def mutated_record(draw: st.DrawFn) -> Any:
    record: Any = json.loads(json.dumps(draw(st.sampled_from(SEEDS))))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["replace", "role", "msg_type", "drop", "extra", "huge", "deep"]))
        if kind == "replace":
            record = _replace(record, draw(st.sampled_from(_paths(record))), draw(json_value))
        elif isinstance(record, dict) and kind == "role":
            record["role"] = draw(roles)
        elif isinstance(record, dict) and kind == "msg_type":
            new = draw(msg_types)
            if new is None:
                record.pop("msg_type", None)
            else:
                record["msg_type"] = new
        elif isinstance(record, dict) and kind == "drop" and record:
            record.pop(draw(st.sampled_from(sorted(record))))
        elif isinstance(record, dict) and kind == "extra":
            record[draw(st.text(max_size=10))] = draw(json_value)
        elif kind == "huge":
            path = draw(st.sampled_from(_paths(record)))
            record = _replace(record, path, "x" * draw(st.sampled_from([10_000, 1_000_000])))
        elif kind == "deep":
            depth = draw(st.sampled_from([50, 200, 900]))
            nested: Any = "leaf"
            for _ in range(depth):
                nested = [nested] if depth % 2 else {"content": nested}
            record = _replace(record, draw(st.sampled_from(_paths(record))), nested)
    return json.dumps(record)  # text, so that hypothesis never pretty-prints a 2,000-deep structure


def _tag_of(record: Any) -> str | None:
    if isinstance(record, dict) and isinstance(record.get("msg_type"), str):
        tag = f"{record.get('role')}:{record['msg_type']}"
        return tag if tag in KNOWN else None
    return None


def _check(adapter: TypeAdapter[Any], record: Any, text: str) -> None:
    """One input: a ValidationError or a faithful load, quickly."""
    start = time.perf_counter()
    for load in (lambda: adapter.validate_json(text), lambda: adapter.validate_python(json.loads(text))):
        try:
            loaded = load()
        except ValidationError:
            continue
        except RecursionError:
            continue  # Python's json module, not ours, refuses the deepest inputs
        items = loaded if isinstance(loaded, list) else [loaded]
        records = record if isinstance(record, list) else [record]
        for item, source in zip(items, records, strict=True):
            assert isinstance(item, BaseMessage)
            tag = _tag_of(source)
            if tag is not None:
                assert type(item) is KNOWN[tag], f"{tag} loaded as {type(item).__name__}"
    assert time.perf_counter() - start < 5, "validation took more than 5 s"


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(text=mutated_record())
def test_mutated_records_load_faithfully_or_fail_clearly(text: str) -> None:
    record = json.loads(text)
    _check(ONE, record, text)
    _check(MANY, [record], json.dumps([record]))
    _check(BASES, [record], json.dumps([record]))


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.sampled_from(SEEDS), cut=st.floats(0, 1, exclude_max=True))
def test_truncated_records_are_validation_errors(seed: dict[str, Any], cut: float) -> None:
    text = json.dumps([seed])
    truncated = text[: int(len(text) * cut)]
    for adapter in ADAPTERS:
        with pytest.raises(ValidationError) as info:
            adapter.validate_json(truncated)
        assert info.value.errors()[0]["type"] in {"json_invalid", "list_type", "model_type", "model_attributes_type"}


@settings(max_examples=EXAMPLES, deadline=None)
@given(value=json_value)
def test_any_json_value_is_a_message_or_a_validation_error(value: Any) -> None:
    for adapter in ADAPTERS:
        for payload in (value, [value]):
            with contextlib.suppress(ValidationError):
                adapter.validate_json(json.dumps(payload))


def test_a_non_object_message_is_a_validation_error() -> None:
    """Regression: a string or number where a message should be raised KeyError('default')."""
    for adapter in ADAPTERS:
        for payload in ('"x"', "1", "null", '["x"]', "[1]", "[[1]]", "[null]"):
            try:
                adapter.validate_json(payload)
            except ValidationError:
                continue
            raise AssertionError(f"{payload} loaded")
    for payload in ("x", 1, None, ["x"]):
        try:
            ONE.validate_python(payload)
        except ValidationError:
            continue
        raise AssertionError(f"{payload!r} loaded")
