"""The agent loop: chains, memory, prompts."""
