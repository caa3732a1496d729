"""Chains and the LLMs they call."""
