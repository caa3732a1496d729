"""Polymorphic dispatch of messages on `role:msg_type`, with no list to keep in sync.

The seed dispatches with a callable discriminator over a hand-written `Message` union, and warns that a
container annotated `list[BaseMessage]` silently downgrades every subclass (TFROB-299) and that every new
subclass must be added to the union by hand ("容易遗漏"). Here both holes are closed by construction:

* Every concrete message class registers its tag when it is defined (`register`), anywhere.
* A message class used as a *type* (``list[BaseMessage]``, ``dict[str, UserMessage]``, a TypeAdapter, a
  field) compiles to a tagged union of its registered descendants at Rust speed, with the class itself as
  the fallback branch (the seed's `DEFAULT_TAG`): unknown `msg_type`s from newer versions load there with
  every field kept.
* JSON input is first dispatched on plain keys (`role`, then `msg_type`), which pydantic-core reads without
  building Python objects; only what that cannot decide (legacy records without `msg_type`, unknown or
  late types, invalid data) reaches the callable discriminator, which would otherwise convert every
  message - its whole trace included - to Python dicts just to compute its tag (`_fast_union`).
* A class registered after a union was compiled is still restored as itself through the `late` branch,
  which looks the registry up at validation time (slower, never lossy). The package rebuilds its own
  models once all built-in classes exist, so only third-party subclasses take that path.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Annotated, Any, Final, Literal, TypeAlias, cast, get_args, get_origin

from pydantic import BaseModel, GetCoreSchemaHandler, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from tfrobot.schema.message.never_held import drop_never_held, never_held

_MessageModel: TypeAlias = BaseModel
"""What this module dispatches: `base.BaseMessage` and its subclasses, which import this module to register
themselves. Only the pydantic model API is used here, so naming the pydantic base keeps the import one-way
(base -> discriminator) rather than a circle back to `base` for the annotations."""

DEFAULT_TAG: Final = "default"
"""Tag of the fallback branch: system/tool/console/function messages and unknown `msg_type`s."""

_LATE_TAG: Final = "late"

_MESSAGE_CLASSES: set[type[_MessageModel]] = set()
"""Every message class, abstract ones included."""
_UNION_REFS: dict[str, type[_MessageModel]] = {}
"""Public ref -> class, for every union compiled so far."""
_REGISTRY: dict[str, type[_MessageModel]] = {}
"""tag -> concrete message class."""
_TAG_OF: dict[type[_MessageModel], str] = {}
"""concrete message class -> tag (the reverse of `_REGISTRY`)."""

_LEGACY_USER_TAGS: Final = {
    "image": "user:image",
    "audio": "user:audio",
    "video": "user:video",
    "file": "user:attachment",
}


def fixed_literal(cls: type[_MessageModel], name: str) -> str | None:
    """The one value field `name` of `cls` can hold (`role`/`msg_type` of a concrete class), else None."""
    field = cls.model_fields.get(name)
    if field is None or get_origin(field.annotation) is not Literal:
        return None
    values = get_args(field.annotation)
    return str(values[0]) if len(values) == 1 else None


def register(cls: type[_MessageModel]) -> None:
    """Give `cls` its `role:msg_type` tag; abstract classes (no single-literal role and msg_type) get none.

    Two classes sharing a tag would make one of them come back as the other after a round trip, so that
    is refused here, at definition time.
    """
    _MESSAGE_CLASSES.add(cls)
    role, msg_type = fixed_literal(cls, "role"), fixed_literal(cls, "msg_type")
    if role is None or msg_type is None:
        return
    tag = f"{role}:{msg_type}"
    owner = _REGISTRY.get(tag)
    if owner is not None and owner is not cls:
        raise TypeError(
            f"{cls.__module__}.{cls.__qualname__} would be stored with the tag {tag!r}, which already "
            f"belongs to {owner.__module__}.{owner.__qualname__}; a record of it would load as the other class. "
            f"Fix: declare its own `msg_type: Literal['<new_type>'] = '<new_type>'`."
        )
    _REGISTRY[tag] = cls
    _TAG_OF[cls] = tag
    adapter.cache_clear()


def registered_classes() -> dict[str, type[_MessageModel]]:
    """A snapshot of tag -> class for every concrete message class defined so far."""
    return dict(_REGISTRY)


def _legacy_tag(role: object, content: object) -> str:
    """The tag an old record without `msg_type` should load as, judged from its content."""
    if role == "assistant":
        return "assistant:text"
    if role != "user":
        return DEFAULT_TAG
    if isinstance(content, list):
        is_history = bool(content) and all(isinstance(item, dict) and "role" in item for item in content)
        return "user:history" if is_history else "user:multipart"
    if isinstance(content, dict):
        if "uid" in content:
            return "user:contact"
        return _LEGACY_USER_TAGS.get(str(content.get("type")), DEFAULT_TAG)
    return "user:text"


def get_discriminator_value(v: Any) -> str:
    """The compound key `role:msg_type` of a message dict or instance; `DEFAULT_TAG` when it has none.

    Unlike the seed's version, a user/assistant record written without `msg_type` gets the tag its
    content implies (so it stays usable for the next LLM request), and a tag no class has registered
    (a newer version's `msg_type`) falls back to `DEFAULT_TAG`, keeping its fields.
    """
    if isinstance(v, dict):
        role = v.get("role")
        msg_type = v.get("msg_type")
        tag = _legacy_tag(role, v.get("content")) if msg_type is None else f"{role}:{msg_type}"
        return tag if tag in _REGISTRY else DEFAULT_TAG
    return _TAG_OF.get(type(v), DEFAULT_TAG)


DISPATCH: Final = "tfrobot:dispatch"
"""`Annotated` marker that keeps pydantic from short-cutting a bare model class to its own validator.

`TypeAdapter(SomeModel)` reuses the model's own validator, which knows no subclasses; wrapping the class
as ``Annotated[cls, DISPATCH]`` makes pydantic generate the schema, so the union applies.
"""


@cache
def adapter(cls: type[_MessageModel]) -> TypeAdapter[Any]:
    """The cached TypeAdapter that validates a record of `cls` (or a descendant) as its own class."""
    return TypeAdapter(cast(Any, Annotated[cls, DISPATCH]))


def _late_branch(cls: type[_MessageModel]) -> CoreSchema:
    """Validate/serialize a class registered after this union was compiled, through the live registry; also
    a record that gives fields its class never holds (`never_held.py`: a record written before v3)."""

    def validate(value: Any, info: core_schema.ValidationInfo) -> Any:
        if isinstance(value, cls):
            return value
        target = _REGISTRY[get_discriminator_value(value)]
        if info.mode == "json":
            msg = adapter(target).validate_json(json.dumps(value), context=info.context)
            drop_never_held(msg, refuse=False)  # (Python input: the class's own check drops or refuses them)
            return msg
        return adapter(target).validate_python(value, context=info.context)

    def serialize(value: Any, info: core_schema.SerializationInfo) -> Any:
        dump: Callable[..., Any] = value.model_dump
        return dump(
            mode=info.mode,
            by_alias=info.by_alias,
            exclude_unset=info.exclude_unset,
            exclude_defaults=info.exclude_defaults,
            exclude_none=info.exclude_none,
            round_trip=info.round_trip,
        )

    return core_schema.with_info_plain_validator_function(
        validate,
        serialization=core_schema.plain_serializer_function_ser_schema(serialize, info_arg=True),
        json_schema_input_schema=core_schema.any_schema(),
    )


_OWN_BUILD: ContextVar[frozenset[type[Any]]] = ContextVar("_OWN_BUILD", default=frozenset())


@contextmanager
def own_build(cls: type[Any]) -> Iterator[None]:
    """Mark that `cls`'s own model schema is being built, so its union does not replace it.

    Message classes defer their build (fast import), so every own build goes through `model_rebuild`,
    which wraps itself in this.
    """
    token = _OWN_BUILD.set(_OWN_BUILD.get() | {cls})
    try:
        yield
    finally:
        _OWN_BUILD.reset(token)


def _built(cls: type[_MessageModel]) -> CoreSchema:
    """`cls`'s own core schema, building it first if it was deferred."""
    schema = cls.__dict__.get("__pydantic_core_schema__")
    if not isinstance(schema, dict):
        cls.model_rebuild()
        schema = cls.__dict__["__pydantic_core_schema__"]
    return cast(CoreSchema, schema)


def has_descendants(cls: type[_MessageModel]) -> bool:
    return any(sub is not cls and issubclass(sub, cls) for sub in _REGISTRY.values())


_VALIDATOR_WRAPPERS: Final = frozenset({"function-after", "function-before", "function-wrap"})


def _model_class(node: CoreSchema) -> Any:
    """The class of the model `node` defines, seen through model validators (a model with one is a
    function node that carries the ref and wraps the model node; `_checks_for_python_only` puts a
    json-or-python node above them); None when it defines no model."""
    while True:
        kind = node.get("type")
        if kind == "json-or-python":
            node = cast(CoreSchema, node.get("python_schema"))
        elif kind in _VALIDATOR_WRAPPERS:
            node = cast(CoreSchema, node.get("schema"))
        else:
            break
    return node.get("cls") if node.get("type") == "model" else None


def _model_ref(schema: CoreSchema, cls: type[Any]) -> str:
    """The definition ref of `cls`'s model node in its own built schema."""
    nodes = [schema]
    if schema["type"] == "definitions":
        nodes = [schema["schema"], *schema["definitions"]]
    for node in nodes:
        if "ref" in node and _model_class(node) is cls:
            return str(node["ref"])
    raise AssertionError(f"no model node for {cls.__qualname__} in its own core schema")


def _dispatching_class(node: CoreSchema) -> type[_MessageModel] | None:
    """The message class whose public ref `node` defines, if that class dispatches to descendants."""
    owner = _UNION_REFS.get(str(node.get("ref")))
    if owner is None:
        owner = _model_class(node)
    if owner is not None and owner in _MESSAGE_CLASSES and has_descendants(owner):
        return owner
    return None


def _own_schema_copy(
    cls: type[_MessageModel],
) -> tuple[str, CoreSchema, list[CoreSchema], set[type[_MessageModel]]]:
    """`cls`'s own model schema under a private ref, plus the definitions it needs.

    The class's public ref is taken by its union, so that every other use of the class as a type in the
    same schema (nested messages, a second field) resolves to the union, never to the bare model; inner
    references to that ref inside the copy (`BaseMessage.content` holding messages) thus dispatch too.
    Definitions of other dispatching classes are left out (they may be stale: built before a descendant
    existed); the caller defines them afresh. They are returned as the last element.
    """
    built = copy.deepcopy(_built(cls))
    ref = _model_ref(built, cls)
    path, _, ident = ref.rpartition(":")
    own_ref = f"{path}Fallback:{ident}"  # its JSON Schema def is then named e.g. "BaseMessageFallback"
    nodes = [built["schema"], *built["definitions"]] if built["type"] == "definitions" else [built]
    definitions: list[CoreSchema] = []
    needed: set[type[_MessageModel]] = set()
    for node in nodes:
        if node.get("type") == "definition-ref":
            continue
        if node.get("ref") == ref:
            cast(dict[str, Any], node)["ref"] = own_ref
        elif (owner := _dispatching_class(node)) is not None:
            needed.add(owner)
            continue
        definitions.append(node)
    return ref, core_schema.definition_reference_schema(own_ref), definitions, needed


def _publish_union(schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
    """The union as JSON Schema: `anyOf` the classes (the fallback overlaps them, so not `oneOf`).

    The late branch accepts classes registered after compilation; a schema cannot name them and its
    empty schema would accept anything, so it is left out."""
    json_schema = handler(schema)
    target = handler.resolve_ref_schema(json_schema)
    target["anyOf"] = [choice for choice in target.pop("oneOf", []) if choice]
    return json_schema


def message_union_schema(cls: type[_MessageModel], handler: GetCoreSchemaHandler) -> CoreSchema:
    """The core schema of `cls` used as a type: itself, or the tagged union of it and its descendants."""
    if cls in _OWN_BUILD.get() or not has_descendants(cls):
        # The class's own model schema is being built, or nothing can dispatch below it.
        return _checks_for_python_only(handler(cls))
    ref, fallback, definitions, needed = _own_schema_copy(cls)
    _UNION_REFS[ref] = cls
    choices: dict[str, CoreSchema] = {_LATE_TAG: _late_branch(cls)}
    compiled: dict[type[_MessageModel], str] = {}
    for tag, sub in _REGISTRY.items():
        if sub is cls or not issubclass(sub, cls):
            continue
        if has_descendants(sub):
            _, choices[tag], sub_definitions, sub_needed = _own_schema_copy(sub)
            definitions.extend(sub_definitions)
            needed |= sub_needed
        else:
            choices[tag] = handler.generate_schema(sub)
        compiled[sub] = tag
    choices[DEFAULT_TAG] = fallback
    for other in needed - {cls}:
        handler.generate_schema(other)

    def discriminate(v: Any) -> str:
        if isinstance(v, dict):
            tag = get_discriminator_value(v)
            target = _REGISTRY.get(tag)
            if target is None or target is cls or not issubclass(target, cls):
                return DEFAULT_TAG
            return tag if tag in choices and never_held(target).isdisjoint(v) else _LATE_TAG
        kind = type(v)
        if kind in compiled:
            return compiled[kind]
        if kind is not cls and kind in _TAG_OF and issubclass(kind, cls):
            return _LATE_TAG
        return DEFAULT_TAG  # the class itself, or not a message at all: the fallback model reports it

    exact = core_schema.tagged_union_schema(choices, discriminator=discriminate)
    from_json = core_schema.union_schema(
        [(_fast_union(cls, choices, compiled), "fast"), (exact, "dispatch")], mode="left_to_right"
    )

    def json_schema(_: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return _publish_union(exact, handler)  # the published JSON Schema is that of the exact union

    # Written by inference, in Rust: each message by its own class's serializer, as pydantic's `SerializeAsAny`
    # writes. The tagged union's serializer called `discriminate` in Python for every message, then checked the
    # chosen class's every field in strict mode; an `isinstance` check in Python first (`written_by_own_class`,
    # which results keep) still cost a tenth of a conversation's dump. A value that is no message is written as
    # it is, without pydantic's warning: only code that bypasses validation (`records.append`) can put one there.
    union = core_schema.json_or_python_schema(
        json_schema=from_json,
        python_schema=exact,
        ref=ref,
        metadata={"pydantic_js_functions": [json_schema]},
        serialization=core_schema.simple_ser_schema("any"),
    )
    return core_schema.definitions_schema(union, definitions) if definitions else union


_PYTHON_ONLY: Final = "__tfrobot_python_only__"
"""Attribute that marks a model validator as needed for Python input only (see `_checks_for_python_only`)."""


def python_only(check: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a message's model validator (under `@model_validator(mode="after")` or `mode="wrap"`) as one that JSON
    input cannot fail, so the class's schema runs it for Python input only."""
    setattr(check, _PYTHON_ONLY, True)
    return check


def _checks_for_python_only(schema: CoreSchema) -> CoreSchema:
    """`schema` (a message class's own) with its outer after and wrap validators marked `python_only` run for
    Python input only.

    Every JSON message validated went through them, two Python frames each, to return at once: the check of
    `storable.py` looks for what JSON cannot hold. The JSON branch is the model node under them; the ref
    moves to the new node, so every reference to the class reaches both branches."""
    node = cast(dict[str, Any], schema)
    inner = node
    while inner.get("type") in ("function-after", "function-wrap") and getattr(
        inner["function"]["function"], _PYTHON_ONLY, False
    ):
        inner = inner["schema"]
    if inner is node:
        return schema
    python = {key: value for key, value in node.items() if key != "ref"}
    return core_schema.json_or_python_schema(
        json_schema=cast(CoreSchema, inner), python_schema=cast(CoreSchema, python), ref=node.get("ref")
    )


def _by_ref(schema: CoreSchema) -> CoreSchema:
    ref = schema.get("ref")
    return core_schema.definition_reference_schema(str(ref)) if ref is not None else schema


def _fast_union(
    cls: type[_MessageModel], choices: dict[str, CoreSchema], compiled: dict[type[_MessageModel], str]
) -> CoreSchema:
    """The common case dispatched on plain keys (`role`, then `msg_type`), which pydantic-core reads in place.

    A callable discriminator makes pydantic-core convert each JSON message (its whole trace included) to
    Python objects before calling it; key lookups do not. This branch only accepts records whose role and
    `msg_type` name a class compiled into this union, or a role with no compiled class and no `msg_type` (the
    fallback class, as `discriminate` decides too). Anything else - legacy records without `msg_type`,
    unknown or late-registered types, invalid data - fails here on the tag and goes to the exact branch,
    which decides it as before.
    """
    by_role: dict[str, dict[Hashable, CoreSchema]] = {}
    never_by_role: dict[str, set[str]] = {}
    for sub, tag in compiled.items():
        role, msg_type = tag.split(":", 1)
        by_role.setdefault(role, {})[msg_type] = _by_ref(choices[tag])
        never_by_role.setdefault(role, set()).update(never_held(sub))
    # A record that has a key its class never holds (`never_held.py`: every record written before v3) reads that
    # key's value as its tag: a null names no class, so the record fails here and goes to the exact branch. A
    # value that happens to be a `msg_type` string must then be the record's own `msg_type` too (review R21: a
    # legacy record without one would load as the class that string names), so each class sits behind a second
    # dispatch on `msg_type` alone.
    inner: dict[Hashable, CoreSchema] = {}
    for role, types in by_role.items():
        never = sorted(never_by_role[role])
        if not never:
            inner[role] = core_schema.tagged_union_schema(types, discriminator="msg_type")
            continue
        paths: list[list[str | int]] = [[name] for name in never]
        paths.append(["msg_type"])
        own_type: dict[Hashable, CoreSchema] = {
            tag: core_schema.tagged_union_schema({tag: schema}, discriminator="msg_type")
            for tag, schema in types.items()
        }
        inner[role] = core_schema.tagged_union_schema(own_type, discriminator=paths)
    roles = get_args(cls.model_fields["role"].annotation) if fixed_literal(cls, "role") is None else ()
    for role in map(str, roles):
        if role in ("user", "assistant") or role in by_role:
            continue
        # A role no compiled class has: a record without `msg_type` is the fallback class whatever registers
        # later (`_legacy_tag` maps it to DEFAULT_TAG), so read `msg_type` and, when absent, the role itself.
        msg_type_or_role: list[list[str | int]] = [["msg_type"], ["role"]]
        inner[role] = core_schema.tagged_union_schema(
            {role: _by_ref(choices[DEFAULT_TAG])}, discriminator=msg_type_or_role
        )
    return core_schema.tagged_union_schema(inner, discriminator="role")
