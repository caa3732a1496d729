"""The shop robot's MCP server, written with the official `mcp` SDK (FastMCP), served over stdio.

`shop.yaml` starts it with `command: python`, `args: [notes_server.py]`; run it alone with
`python notes_server.py` (it then waits for an MCP client on stdin).
"""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

server = FastMCP("notes")
NOTES = {"returns": "Returns are free within 30 days.", "shipping": "Orders ship within 2 days."}


@server.tool()
def list_notes() -> list[str]:
    """The names of the shop's notes."""
    return sorted(NOTES)


@server.tool()
def read_note(name: str) -> str:
    """One note of the shop, by name."""
    return NOTES.get(name, f"no note {name!r}; notes: {', '.join(sorted(NOTES))}")


if __name__ == "__main__":
    server.run("stdio")
