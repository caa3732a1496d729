"""Confirmations of destructive tool calls asked in the console's chat, answered by a later request.

A streaming chat turn gets a `TurnConfirmations` as its chain's `confirm` hook. When a call of a
`confirm` tool comes, it stores a pending row in `tool_confirmations` (the SSE stream then sends a
`confirm` event with the row's id) and waits for the answer; `POST
/api/robots/{robot}/chat/confirmations/{id}` writes it. The row, not process memory, carries the
answer, so it reaches the turn whichever server process (`serve --workers N`) got the POST; it also
keeps who approved or refused what, and when. Only the principal that started the turn may answer;
the chain's time-out (`confirm_timeout`) ends the wait as a refusal.

When the turn stops waiting without an answer (the time-out, or the turn ending), the row is closed
as refused by nobody (`approved` false, `answered_by` null): an answer that comes later is a 404, as
the route says, and never records the approval of a call that did not run.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from sqlalchemy import JSON, BigInteger, Boolean, Column, String, Table, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tfrobot.schema.message import ToolCall, UserMessage
from tfrobotserver.actions.injected import Principal
from tfrobotserver.storage import metadata

CONFIRM_ID_PATTERN = r"^[0-9a-f]{32}$"
"""What a confirmation id looks like (`uuid4().hex`): anything else is refused before the store is asked (a
NUL is text PostgreSQL cannot even compare)."""
logger = logging.getLogger("tfrobotserver.confirmations")
POLL_SECONDS = 0.2
"""How often a waiting turn looks for the answer (a person answers in seconds)."""

tool_confirmations = Table(
    "tool_confirmations",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("robot", String(128), nullable=False),
    Column("principal", String(255), nullable=False),
    Column("conversation_id", String(255), nullable=True),
    Column("call", JSON, nullable=False),
    Column("created_ts", BigInteger, nullable=False),
    Column("approved", Boolean, nullable=True),  # null: pending
    Column("answered_by", String(255), nullable=True),  # null once answered: nobody did, the turn stopped waiting
    Column("answered_ts", BigInteger, nullable=True),
)


def _now_ms() -> int:
    return int(time.time() * 1000)


class TurnConfirmations:
    """The `confirm` hook of one chat turn: one pending row per call, answered by `answer_confirmation`."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], robot: str, principal: Principal, user_input: UserMessage
    ) -> None:
        self._sessions = sessions
        self._robot = robot
        self._principal = principal
        self._turn = user_input
        self._ids: dict[str, str] = {}
        self._opening = asyncio.Lock()
        """The turn's task (the chain asking) and the response's (the stream announcing the `confirm` event)
        both open a call: one of them stores its row, and both give the same id."""

    async def open(self, call: ToolCall) -> str:
        """The id the user answers for `call` (a pending row, stored once per call)."""
        async with self._opening:
            return await self._open(call)

    async def _open(self, call: ToolCall) -> str:
        if call.id not in self._ids:
            confirm_id = uuid.uuid4().hex
            row = {
                "id": confirm_id,
                "robot": self._robot,
                "principal": self._principal.name,
                "conversation_id": self._turn.conversation_id,
                "call": call.model_dump(mode="json"),
                "created_ts": _now_ms(),
            }
            async with self._sessions.begin() as session:
                await session.execute(insert(tool_confirmations).values(**row))
            self._ids[call.id] = confirm_id
        return self._ids[call.id]

    async def __call__(self, call: ToolCall) -> bool:
        """Wait for the user's answer (the chain's time-out ends the wait, and closes the row)."""
        confirm_id = await self.open(call)
        query = select(tool_confirmations.c.approved).where(tool_confirmations.c.id == confirm_id)
        try:
            while True:
                async with self._sessions() as session:
                    approved = (await session.execute(query)).scalar_one_or_none()
                if approved is not None:
                    return bool(approved)
                await asyncio.sleep(POLL_SECONDS)
        except BaseException:  # the time-out cancelled the wait, or the turn stopped: nobody answered in time
            try:
                await asyncio.shield(self._close(confirm_id))
            except Exception:  # the store is gone: the call stays refused; a late answer finds a dead turn
                logger.warning(
                    "could not close confirmation %s after its turn stopped waiting", confirm_id, exc_info=True
                )
            raise

    async def _close(self, confirm_id: str) -> None:
        """Refuse the row on nobody's behalf, unless an answer landed first."""
        table = tool_confirmations
        async with self._sessions.begin() as session:
            await session.execute(
                update(table)
                .where(table.c.id == confirm_id, table.c.approved.is_(None))
                .values(approved=False, answered_ts=_now_ms())
            )


async def answer_confirmation(
    session: AsyncSession, robot: str, confirm_id: str, approve: bool, principal: Principal
) -> bool:
    """Record the answer; False when there is no pending confirmation `confirm_id` of this robot that
    `principal` may answer (unknown, answered already, or another principal's turn)."""
    table = tool_confirmations
    result = await session.execute(
        update(table)
        .where(
            table.c.id == confirm_id,
            table.c.robot == robot,
            table.c.principal == principal.name,
            table.c.approved.is_(None),
        )
        .values(approved=approve, answered_by=principal.name, answered_ts=_now_ms())
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]
