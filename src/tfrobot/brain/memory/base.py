"""The memory store interface: what the brain needs from a conversation store, and nothing more.

The seed's memory writes each top-level message — a `UserMessage` carries its whole turn in
`intermediate_trace` — with `sync_msg`, and `recall` restores them typed for the next prompt. One small
interface keeps the brain independent of the backend; `SQLMessageStore` is the implementation.

A *turn* is a user message and the messages after it up to the next user message (the assistant's replies).
`recall` cuts the history at turn boundaries, so a prompt never starts with an orphaned reply.

A store works in one *scope* (a server gives each robot its own): it lists, reads, continues and deletes the
conversations of its scope only, whatever database several scopes share. Conversation ids stay unique across
scopes, so an id taken by another scope is refused (`ConversationNotFound`), never continued or overwritten.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from pydantic import BaseModel, Field

from tfrobot.schema.message.base import BaseMessage

T = TypeVar("T")

__all__ = [
    "DEFAULT_SCOPE",
    "ConversationInfo",
    "ConversationNotFound",
    "MemoryStoreError",
    "MemoryStoreUnavailable",
    "MessageStore",
    "Page",
    "TailCut",
    "estimate_tokens",
]


class MemoryStoreError(RuntimeError):
    """A memory store could not do what was asked; the message names the store (URL without password) and a fix."""


class MemoryStoreUnavailable(MemoryStoreError):
    """The database cannot be reached (down, wrong address, locked past the busy timeout).

    Raised instead of the driver's error so callers can catch one type. Nothing the store accepted before is
    lost: a write is accepted only when its transaction has committed.
    """


class ConversationNotFound(MemoryStoreError, LookupError):
    """The conversation is not one of this scope's: it does not exist, or another scope (robot) owns it.

    Both cases read the same, so a scope learns nothing about another's conversations from a read; only a
    write with a taken id says that the id is taken (ids are unique across scopes).
    """

    def __init__(self, conversation_id: str, scope: str, message: str) -> None:
        super().__init__(message)
        self.conversation_id = conversation_id
        self.scope = scope


DEFAULT_SCOPE: Final = ""
"""The scope of a store used without a server, and of the rows written before scopes existed (see the
migration `v0002_scopes`)."""


def estimate_tokens(payload_json: str) -> int:
    """Deterministic token estimate of a stored message: ceil(len(JSON text) / 4).

    Computed once at write time on `model_dump_json()` (the trace included, since it is expanded into the
    prompt), so every store gives the same figure for the same message. Four characters per token is the usual
    rule of thumb for English with BPE tokenizers; it is a budget guard, not a billing count.
    """
    return (len(payload_json) + 3) // 4


class ConversationInfo(BaseModel):
    """One conversation as listed by `list_conversations`."""

    conversation_id: str
    title: str | None = Field(default=None, description="The first user message's text, shortened.")
    created_ts: int = Field(description="When its first message was synced (ms).")
    updated_ts: int = Field(description="When a message of it was last synced (ms).")
    failed_turns: int = Field(
        default=0, description="How many of its turns failed (their user message holds a typed failure)."
    )


@dataclass(frozen=True)
class Page(Generic[T]):
    """A page of a cursor-paginated listing; pass `next_cursor` back for the next page (None: last page)."""

    items: list[T]
    next_cursor: str | None


class TailCut:
    """Decides how many of the newest messages `recall` keeps, fed newest first with `(role, tokens)`.

    Whole turns only: a turn is kept when it fits in what is left of `token_budget` and fewer than `last_turns`
    turns were kept; the first turn that does not fit ends the walk (the budget is a hard cap, so the result may
    be empty). Messages before the conversation's first user message count as one last, partial turn.
    """

    def __init__(self, last_turns: int | None, token_budget: int | None) -> None:
        for name, value in (("last_turns", last_turns), ("token_budget", token_budget)):
            if value is not None and value < 0:
                raise ValueError(f"recall(): {name}={value} is negative; pass None for no limit, or a count >= 0")
        self.last_turns = last_turns
        self.token_budget = token_budget
        self.kept = 0
        """How many of the newest messages are kept so far."""
        self.done = last_turns == 0 or token_budget == 0
        self._used = 0
        self._turns = 0
        self._pending = 0
        self._pending_tokens = 0

    def feed(self, role: str, tokens: int) -> bool:
        """Take the next older message; True when the walk is over (no older message can be kept)."""
        self._pending += 1
        self._pending_tokens += tokens
        if role == "user":
            self._close_turn()
        return self.done

    def finish(self) -> int:
        """Call after the oldest message: keeps a leading partial turn if it fits. Returns `kept`."""
        if self._pending and not self.done:
            self._close_turn()
        return self.kept

    def _close_turn(self) -> None:
        if self.token_budget is not None and self._used + self._pending_tokens > self.token_budget:
            self.done = True
            return
        self.kept += self._pending
        self._used += self._pending_tokens
        self._pending = self._pending_tokens = 0
        self._turns += 1
        if self.last_turns is not None and self._turns >= self.last_turns:
            self.done = True


class MessageStore(ABC):
    """Where conversations live. Writes are idempotent by `msg_id`: syncing a message again replaces it."""

    async def sync_msg(self, msg: BaseMessage) -> None:
        """Persist one top-level message (a user message with its trace, an assistant reply …), or update it."""
        await self.sync_msgs([msg])

    @abstractmethod
    async def sync_msgs(self, msgs: Sequence[BaseMessage]) -> None:
        """Persist messages in one transaction, in the given order (all or none are accepted)."""

    @abstractmethod
    async def recall(
        self, conversation_id: str, *, last_turns: int | None = None, token_budget: int | None = None
    ) -> list[BaseMessage]:
        """The conversation's newest whole turns, oldest first, each message restored as its own class.

        Order: `create_ts`, then the order the store first accepted them (stable on ties). With neither limit,
        the whole conversation. `token_budget` counts `estimate_tokens` of each message.
        """

    @abstractmethod
    async def list_conversations(self, cursor: str | None = None, limit: int = 50) -> Page[ConversationInfo]:
        """Conversations, most recently updated first."""

    @abstractmethod
    async def get_messages(
        self, conversation_id: str, cursor: str | None = None, limit: int = 100
    ) -> Page[BaseMessage]:
        """A conversation's messages, oldest first, a page at a time."""

    @abstractmethod
    async def delete_conversation(self, conversation_id: str) -> int:
        """Delete a conversation and its messages; returns how many messages were deleted."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most stores hold nothing
        """Release connections; the store must not be used afterwards."""
