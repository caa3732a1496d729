"""The agent loop: the brain (a turn with memory), its chains, the LLM layer, memory and prompts.

Exports load on first access: importing a provider adapter (`tfrobot.brain.chain.llms.openai`) runs
this file, and must not pay for the database and the TFL parser.
"""

from __future__ import annotations

import typing as _typing
from importlib import import_module as _import_module

if _typing.TYPE_CHECKING:
    from tfrobot.brain.brain import Brain
    from tfrobot.brain.dc_brain import DCBrain, DCChains

__all__ = ["Brain", "DCBrain", "DCChains"]
_HOMES = {"Brain": "tfrobot.brain.brain", "DCBrain": "tfrobot.brain.dc_brain", "DCChains": "tfrobot.brain.dc_brain"}


def __getattr__(name: str) -> _typing.Any:
    if name in _HOMES:
        return getattr(_import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'tfrobot.brain' has no attribute {name!r}")
