"""The agent loop: chains, memory, prompts and the LLM layer."""
