"""The seed's module path re-exports the package's own objects (the names themselves: tests/test_public_api.py)."""

from __future__ import annotations

import tfrobot.schema.message as message
from tfrobot.schema.message.conversation import message_dto


def test_seed_module_reexports_are_the_same_objects() -> None:
    for name in message_dto.__all__:
        assert getattr(message_dto, name) is getattr(message, name)
