"""Errors of the message layer."""

from __future__ import annotations


class MessageContractError(ValueError):
    """A message cannot become an LLM request without losing information.

    Raised by `to_llm_request()` on a user/assistant base instance (the seed's contract protection) and on
    records whose type this version does not know. It names the message and says what to do instead.
    """
