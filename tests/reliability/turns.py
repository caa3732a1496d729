"""A process that runs demo Brain turns on one conversation and prints each accepted message id.

`python -m tests.reliability.turns URL CONVERSATION TURNS NAME` — used by the two-process test and the
load test: several of these on one PostgreSQL database serve the same conversation at once.
"""

from __future__ import annotations

import asyncio
import json
import sys

from tfrobot.brain.brain import Brain
from tfrobot.brain.demo import demo_chain
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import TextMessage

QUESTIONS = ["weather in Paris and Tokyo?", "and tomorrow?"]


async def run_turns(url: str, conversation: str, turns: int, name: str) -> list[str]:
    """Run `turns` turns; returns the accepted message ids (user, answer) in order."""
    store = SQLMessageStore(url)
    brain = Brain(demo_chain(), store, recall_turns=4)
    accepted: list[str] = []
    try:
        for n in range(turns):
            user = TextMessage(content=f"{QUESTIONS[n % 2]} ({name} {n})", conversation_id=conversation)
            answer = await brain.arun(user)
            accepted += [user.msg_id, answer.msg_id]
    finally:
        await store.aclose()
    return accepted


def main() -> None:
    url, conversation, turns, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    print(json.dumps(asyncio.run(run_turns(url, conversation, turns, name))))


if __name__ == "__main__":
    main()
