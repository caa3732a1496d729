"""Stored conversations and documents as MCP resources: `tfrobot://{robot}/{component}/{id}`.

Each conversations component (`ConversationsComponent`) and document memory (`DpeManageMixin`) of a
robot is a resource template (`tfrobot://demo/conversations/{conversationId}`,
`tfrobot://demo/memory/{docId}`). `resources/list` pages through them with the components' own
cursor actions (one source after the other; the MCP cursor is `<source index>:<the action's cursor>`),
and `resources/read` returns a conversation with all its messages and traces, or a document, as JSON.
Every read is a call of the component's read action through `invoke`, so scopes and isolation are
those of the HTTP API (a robot reads only its own rows; a token without `read` is refused).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from mcp import types
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.errors import ApiError
from tfrobotserver.app.invoke import invoke
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.conversations import ConversationsComponent
from tfrobotserver.robot.factory.brain.memory.dpe_manage_mixin import DpeManageMixin

SCHEME = "tfrobot"
RESOURCE_NOT_FOUND = -32002
"""The MCP specification's error code for a resource that does not exist."""
_JSON = "application/json"
_LIST_PAGE = 50
_READ_PAGE = 200


def resource_uri(robot: str, component: str, key: str) -> str:
    """The URI of one stored conversation or document (each part percent-encoded)."""
    return f"{SCHEME}://{quote(robot, safe='')}/{quote(component, safe='')}/{quote(key, safe='')}"


_ERROR_CODES = {403: types.INVALID_REQUEST, 404: RESOURCE_NOT_FOUND, 422: types.INVALID_PARAMS}


def _error(err: ApiError, codes: dict[int, int] = _ERROR_CODES) -> McpError:
    """An MCP error carrying the HTTP API's error body as its data (the code chosen by the HTTP status)."""
    data = err.body.model_dump(mode="json", exclude_none=True)
    return McpError(
        types.ErrorData(code=codes.get(err.status, types.INTERNAL_ERROR), message=err.body.message, data=data)
    )


_READ_CODES = {**_ERROR_CODES, 422: RESOURCE_NOT_FOUND}
"""Reading: a document id that is not a number, or not one of this memory's rows, is a missing resource."""


def _not_found(uri: str, why: str) -> McpError:
    return McpError(types.ErrorData(code=RESOURCE_NOT_FOUND, message=f"no resource {uri}: {why}", data={"uri": uri}))


Act = Callable[[str, str, dict[str, Any]], Awaitable[Any]]
"""Call a component's action with JSON params and return its JSON result (through `invoke`)."""


async def _read_conversation(act: Act, component: str, key: str) -> dict[str, Any] | None:
    """Every message of the conversation, oldest first, each user message with its turn's trace."""
    messages: list[Any] = []
    cursor: str | None = None
    while True:
        params = {"conversation_id": key, "cursor": cursor, "page_size": _READ_PAGE}
        page = await act(component, "aget_messages", params)
        messages.extend(page["items"])
        cursor = page.get("nextCursor")
        if cursor is None:
            return {"conversationId": key, "messages": messages} if messages else None


async def _read_document(act: Act, component: str, key: str) -> dict[str, Any] | None:
    document: dict[str, Any] = await act(component, "aget_doc", {"doc_id": key})
    return document


def _conversation(item: dict[str, Any]) -> tuple[str, str, str | None]:
    key = str(item["conversationId"])
    return key, item.get("title") or key, f"conversation {key}"


def _document(item: dict[str, Any]) -> tuple[str, str, str | None]:
    return str(item["docId"]), str(item["fileUri"]), item.get("excerpt") or None


@dataclass(frozen=True)
class _Kind:
    """How one kind of component lists and reads its stored rows."""

    noun: str
    variable: str
    """The template variable, named like the row's id on the wire."""
    list_action: str
    describe: Callable[[dict[str, Any]], tuple[str, str, str | None]]
    """A listed row → (its id, a title to show, a description)."""
    read: Callable[[Act, str, str], Awaitable[dict[str, Any] | None]]
    """(act, component, id) → the stored row as JSON, or None when there is none."""


_CONVERSATIONS = _Kind("conversation", "conversationId", "aget_conversations", _conversation, _read_conversation)
_DOCUMENTS = _Kind("document", "docId", "aget_docs_by_cursor", _document, _read_document)


def _kind_of(component: TFSComponent) -> _Kind | None:
    if isinstance(component, ConversationsComponent):
        return _CONVERSATIONS
    if isinstance(component, DpeManageMixin):
        return _DOCUMENTS
    return None


class RobotResources:
    """The resources of one robot: templates, a paged listing, and reads."""

    def __init__(self, runtime: Runtime, robot: Robot) -> None:
        self._runtime = runtime
        self._robot = robot.name
        self._sources = [(name, kind) for name, comp in robot.components.items() if (kind := _kind_of(comp))]

    def _act(self, principal: Principal) -> Act:
        async def act(component: str, action: str, params: dict[str, Any]) -> Any:
            body = json.dumps(params).encode()
            return json.loads(await invoke(self._runtime, principal, self._robot, component, action, body))

        return act

    def templates(self) -> list[types.ResourceTemplate]:
        """One template per conversations component and document memory."""
        robot = quote(self._robot, safe="")
        return [
            types.ResourceTemplate(
                name=f"{component}-{kind.noun}",
                title=f"{self._robot} {component}: one {kind.noun}",
                uriTemplate=f"{SCHEME}://{robot}/{quote(component, safe='')}/{{{kind.variable}}}",
                description=f"A stored {kind.noun} of the {component!r} component of robot {self._robot!r}, as JSON.",
                mimeType=_JSON,
            )
            for component, kind in self._sources
        ]

    def _position(self, cursor: str | None) -> tuple[int, str | None]:
        if cursor is None:
            return 0, None
        index, _, inner = cursor.partition(":")
        if not (index.isascii() and index.isdigit()) or int(index) >= len(self._sources):
            raise McpError(
                types.ErrorData(
                    code=types.INVALID_PARAMS,
                    message=f"cursor {cursor!r} is not one this server returned; list again without a cursor",
                    data={"cursor": cursor},
                )
            )
        return int(index), inner or None

    async def list(self, principal: Principal, cursor: str | None) -> types.ListResourcesResult:
        """One page of stored rows, source after source; `nextCursor` goes on where this page stopped."""
        index, inner = self._position(cursor)
        act = self._act(principal)
        while index < len(self._sources):
            component, kind = self._sources[index]
            try:
                page = await act(component, kind.list_action, {"cursor": inner, "page_size": _LIST_PAGE})
            except ApiError as err:
                raise _error(err) from None
            resources = []
            for item in page["items"]:
                key, title, description = kind.describe(item)
                uri = AnyUrl(resource_uri(self._robot, component, key))
                resources.append(
                    types.Resource(uri=uri, name=key, title=title, description=description, mimeType=_JSON)
                )
            inner = page.get("nextCursor")
            if inner is None:
                index, inner = index + 1, None  # this source is done: the next page starts the next one
            after = f"{index}:{inner or ''}" if index < len(self._sources) else None
            if resources or after is None:
                return types.ListResourcesResult(resources=resources, nextCursor=after)
        return types.ListResourcesResult(resources=[])

    async def read(self, principal: Principal, uri: str) -> types.ReadResourceResult:
        """The conversation (with every message and trace) or document behind `uri`, as JSON."""
        parts = urlsplit(uri)
        segments = parts.path.split("/")
        if parts.scheme != SCHEME or unquote(parts.netloc) != self._robot or len(segments) != 3 or segments[0]:
            raise _not_found(uri, f"this server's resources are {SCHEME}://{quote(self._robot, safe='')}/COMPONENT/ID")
        component, key = unquote(segments[1]), unquote(segments[2])
        kind = dict(self._sources).get(component)
        if kind is None:
            known = [name for name, _ in self._sources]
            raise _not_found(uri, f"robot {self._robot!r} keeps conversations or documents in {known}")
        try:
            content = await kind.read(self._act(principal), component, key)
        except ApiError as err:
            raise _error(err, _READ_CODES) from None
        if content is None:
            raise _not_found(uri, f"{component!r} has no {kind.noun} {key!r}")
        text = types.TextResourceContents(uri=AnyUrl(uri), mimeType=_JSON, text=json.dumps(content, ensure_ascii=False))
        return types.ReadResourceResult(contents=[text])
