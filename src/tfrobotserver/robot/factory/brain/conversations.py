"""The conversations component: what a robot said, with every turn's trace, over its `SQLMessageStore`.

The store is the robot's memory (the agent loop writes there); its URL is configuration, and by
default it is the server's own database. The server opens it at start-up (`aopen_store`), in the
robot's own scope: the actions list, read and delete this robot's conversations only, and another
robot's conversation id is a 404 like an unknown one, whatever database the robots share.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Final

from pydantic import AfterValidator, Field, PrivateAttr

from tfrobot.brain.memory import ConversationNotFound, SQLMessageStore
from tfrobot.brain.memory.tables import ID_CHARS
from tfrobot.schema.message import BaseMessage, UserMessage
from tfrobot.schema.message.base import content_text
from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError, ActionNotFoundError
from tfrobotserver.dtos.factory.brain.conversation import ChatMessageItem, ConversationItem
from tfrobotserver.dtos.pageable import CursorPageableList, PageSize


def no_nul(value: str) -> str:
    """Refuse text with a NUL character: PostgreSQL keeps none in text or JSONB (a 422, not a 500 later)."""
    if "\x00" in value:
        raise ValueError("contains a NUL character (\\u0000), which the conversation store cannot keep; remove it")
    return value


ConversationId = Annotated[
    str,
    Field(min_length=1, max_length=ID_CHARS, json_schema_extra={"x-ref": "conversationId"}),
    AfterValidator(no_nul),
]
"""A conversation id as the store keeps it: 1 to 255 characters, no NUL."""
StoreOpener = Callable[[str, str], Awaitable[SQLMessageStore]]
"""`(url, scope) -> store`: how the server hands a component its store (one per database, shared)."""


_TRACE_RECORDS: Final = {"intermediate_trace": {"records"}}
"""Left out of a row's `message`: the records are its `trace` already (in order), and sending them twice
doubled what a long conversation's pages weigh. The failure stays in `message.intermediate_trace`."""


def _failed(msg: BaseMessage) -> str | None:
    """The one line a table shows for a failed turn: its kind, what failed, the fix."""
    failure = msg.intermediate_trace.failure if isinstance(msg, UserMessage) else None
    if failure is None:
        return None
    return f"{failure.kind}: {failure.message}" + (f" Fix: {failure.fix}" if failure.fix else "")


class ConversationsComponent(TFSComponent):
    """A robot's conversation memory (`memory_url`: any SQLMessageStore URL; None: the server's database)."""

    memory_url: str | None = None
    _store: SQLMessageStore | None = PrivateAttr(default=None)

    async def aopen_store(self, open_store: StoreOpener, server_url: str) -> None:
        """Called by the server at start-up: open `memory_url` (default `server_url`) in this robot's scope."""
        self._store = await open_store(self.memory_url or server_url, self._tfs_robot)

    @property
    def store(self) -> SQLMessageStore:
        """The message store (opened at start-up)."""
        if self._store is None:
            raise RuntimeError("the conversations component is used before the server started it")
        return self._store

    async def aclose(self) -> None:
        """Let go of the store (the server closes the shared stores themselves)."""
        if self._store is not None:
            await self._store.aclose()
            self._store = None

    def _not_found(self, exc: ConversationNotFound) -> ActionNotFoundError:
        return ActionNotFoundError(
            "conversation_id",
            f"robot {self._tfs_robot!r} has no conversation {exc.conversation_id!r}",
            exc.conversation_id,
        )

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="conversation", resource_op_type="get_list"),
        description="Conversations, most recently active first.",
    )
    async def aget_conversations(
        self, cursor: str | None = None, page_size: PageSize = 20
    ) -> CursorPageableList[ConversationItem]:
        try:
            page = await self.store.list_conversations(cursor, limit=page_size)
        except ValueError as exc:
            raise ActionInputError("cursor", str(exc), cursor) from None
        items = [ConversationItem.model_validate(info.model_dump()) for info in page.items]
        return CursorPageableList[ConversationItem](
            items=items, cursor=cursor, page_size=page_size, next_cursor=page.next_cursor
        )

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="message", resource_op_type="get_list"),
        description="A conversation's messages, oldest first, each user message with its turn's trace.",
    )
    async def aget_messages(
        self, conversation_id: ConversationId, cursor: str | None = None, page_size: PageSize = 50
    ) -> CursorPageableList[ChatMessageItem]:
        try:
            page = await self.store.get_messages(conversation_id, cursor, limit=page_size)
        except ConversationNotFound as exc:
            raise self._not_found(exc) from None
        except ValueError as exc:
            raise ActionInputError("cursor", str(exc), cursor) from None
        items = [
            ChatMessageItem(
                msg_id=msg.msg_id,
                role=msg.role,
                msg_type=getattr(msg, "msg_type", None),
                text=content_text(msg.content),
                create_ts=msg.create_ts,
                message=msg.model_dump(mode="json", exclude=_TRACE_RECORDS if isinstance(msg, UserMessage) else None),
                trace=[r.model_dump(mode="json") for r in msg.intermediate_trace.ordered()]
                if isinstance(msg, UserMessage)
                else [],
                failed=_failed(msg),
            )
            for msg in page.items
        ]
        return CursorPageableList[ChatMessageItem](
            items=items, cursor=cursor, page_size=page_size, next_cursor=page.next_cursor
        )

    @tfs_action(alias=ActionAlias(category="pageable", resource="conversation", resource_op_type="delete"))
    async def adelete_conversation(self, conversation_id: ConversationId) -> int:
        """Delete a conversation and its messages; returns how many messages were deleted."""
        deleted = await self.store.delete_conversation(conversation_id)
        if deleted == 0:
            raise self._not_found(ConversationNotFound(conversation_id, self.store.scope, "deleted nothing"))
        return deleted
