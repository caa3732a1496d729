"""MCP servers as tool sources (the optional `mcp` extra: `pip install 'tfrobot[mcp]'`).

```python
source = MCPToolSource.stdio("files", "python", ["-m", "my_server"], env={"ROOT": "/srv/data"})
await source.start()                 # connect, initialize, list the tools (MCPStartError if not)
drive = Drive(source.tools())        # MCPTools: validated against their inputSchema, mapped results
...
await source.aclose()
```
"""

from tfrobot.drive.mcp.results import tool_return
from tfrobot.drive.mcp.source import MCPStartError, MCPToolSource, SourceStatus
from tfrobot.drive.mcp.tool import MCPTool

__all__ = ["MCPStartError", "MCPTool", "MCPToolSource", "SourceStatus", "tool_return"]
