"""`SaverLoader`: one persistence protocol for every Pydantic object.

Seed: "SaverLoader 提供通用的 Pydantic 持久化协议，消息系统通过它落盘".

Messages, traces and robot configurations are saved as their `model_dump_json` text and loaded back through a
`TypeAdapter` of the type the caller names, so a message comes back as the class its `role:msg_type` tag names —
never a degraded `BaseMessage` (TFROB-299) — whether the bytes went to a file, a queue or the SQL store. A message
class gets the dispatching adapter (the `Message` union below it), because pydantic's `TypeAdapter(SomeModel)`
short-cuts to the model's own validator, which knows no subclasses.

The schema layer does no I/O of its own: a file is written only where the caller says, and "the SQL store" is
anything that implements `DocumentStore` (`tfrobot.brain.memory.SQLMessageStore` does), so nothing here imports
the layers above.
"""

from __future__ import annotations

import os
import uuid
from os import PathLike
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, overload

from pydantic import BaseModel, TypeAdapter, ValidationError

from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.discriminator import adapter as message_adapter

T = TypeVar("T")

__all__ = ["DocumentStore", "SaverLoader", "SaverLoaderError"]


class SaverLoaderError(ValueError):
    """Stored data that does not validate as the type it is loaded as; names where it came from and the fix."""


class DocumentStore(Protocol):
    """A place that keeps JSON documents by `(kind, key)`: the SQL store, or any other backend.

    `payload` is JSON text and is returned as JSON text: the store never parses it, so the type-aware loading
    stays in one place (here).
    """

    async def put_document(self, kind: str, key: str, payload: str) -> None:
        """Insert or replace the document `(kind, key)` in one transaction."""
        ...

    async def get_document(self, kind: str, key: str) -> str | None:
        """The JSON text stored under `(kind, key)`, or None."""
        ...


def _type_name(type_: Any) -> str:
    return getattr(type_, "__qualname__", None) or repr(type_)


def _adapter_for(type_: Any) -> TypeAdapter[Any]:
    if isinstance(type_, type) and issubclass(type_, BaseMessage):
        return message_adapter(type_)
    return TypeAdapter(type_)


class SaverLoader(Generic[T]):
    """Save and load objects of one type to bytes, a file or a `DocumentStore`, losslessly and type-preserving.

    ``SaverLoader(TextMessage)``, ``SaverLoader(list[Message])`` or ``SaverLoader(RobotConfig)``: the type decides
    how the JSON is validated on the way back. `kind` names the type in a document store (default: its name).
    """

    @overload
    def __init__(self: SaverLoader[T], type_: type[T], *, kind: str | None = None) -> None: ...

    @overload
    def __init__(self: SaverLoader[Any], type_: Any, *, kind: str | None = None) -> None: ...

    def __init__(self, type_: Any, *, kind: str | None = None) -> None:
        self.type: Any = type_
        self.kind = kind or _type_name(type_)
        self._adapter = _adapter_for(type_)

    def __repr__(self) -> str:
        return f"SaverLoader({_type_name(self.type)}, kind={self.kind!r})"

    def dumps(self, obj: T) -> bytes:
        """The JSON of `obj`: `model_dump_json` for a model (the seed's persistence path), the adapter otherwise."""
        if isinstance(self.type, type) and not isinstance(obj, self.type):
            raise TypeError(
                f"{self!r} cannot save a {type(obj).__qualname__}: it would load back as {_type_name(self.type)} "
                f"and fail. Fix: use SaverLoader({type(obj).__qualname__}) or a union type that includes it."
            )
        if isinstance(obj, BaseModel):
            return obj.model_dump_json().encode()
        return self._adapter.dump_json(obj)

    def loads(self, data: str | bytes | bytearray, *, source: str = "<bytes>") -> T:
        """Validate JSON as the type; `source` names where it came from in the error."""
        try:
            loaded: T = self._adapter.validate_json(data)
        except ValidationError as exc:
            raise SaverLoaderError(
                f"{source}: not a valid {_type_name(self.type)} ({exc.error_count()} errors):\n{exc}\n"
                f"Fix: load it with the type (and TFRobot version) that saved it, or repair the data."
            ) from exc
        return loaded

    def save(self, obj: T, path: str | PathLike[str]) -> Path:
        """Write `obj` to `path` atomically (a crash leaves the old file or the new one, never half of one).

        Parent directories are created. Returns the path written.
        """
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = self.dumps(obj)
        tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        try:
            with tmp.open("wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            tmp.replace(target)
        finally:
            tmp.unlink(missing_ok=True)
        return target

    def load(self, path: str | PathLike[str]) -> T:
        """Read and validate the file at `path` (FileNotFoundError names the path when it is missing)."""
        target = Path(path)
        return self.loads(target.read_bytes(), source=str(target))

    async def asave(self, obj: T, store: DocumentStore, key: str) -> None:
        """Store `obj` under `(self.kind, key)` in `store`, replacing any previous version."""
        await store.put_document(self.kind, key, self.dumps(obj).decode())

    async def aload(self, store: DocumentStore, key: str) -> T:
        """Load the document `(self.kind, key)` from `store`; KeyError names both when it is absent."""
        payload = await store.get_document(self.kind, key)
        if payload is None:
            raise KeyError(f"no {self.kind!r} document with key {key!r} in {store!r}; save it first with asave()")
        return self.loads(payload, source=f"{store!r} [{self.kind}/{key}]")
