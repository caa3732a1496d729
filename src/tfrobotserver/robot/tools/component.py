"""The tools component: a robot's tools listed with their schemas and sources, and called from the console.

Its configuration is the robot file's `tools:` entries, shown but never writable over HTTP (no config
action: tool sources and MCP commands are deployment settings). Calls from the console run the tool
as the LLM's call would (same validation and time-out) but without the confirmation prompt: the
person pressing the button is the confirmation. An `unattended` caller (an MCP client, whose model
picks the calls) has no such person, so a `confirm` tool is refused to it, naming where to run it.
Read-only tools may be called with a read token (`acall_read_tool`), any tool with a write token
(`acall_tool`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field, PrivateAttr
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobot.drive import BaseTool
from tfrobot.schema.message import ToolCall
from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import Principal
from tfrobotserver.dtos.factory.tools import ToolCallResult, ToolItem, ToolSourceItem
from tfrobotserver.dtos.pageable import PageableList, PageNumber, PageSize
from tfrobotserver.robot.tools.catalog import SourceInfo, ToolCatalog
from tfrobotserver.robot.tools.entries import ToolEntry

ToolName = Annotated[str, Field(min_length=1, json_schema_extra={"x-ref": "toolName"})]
Arguments = Annotated[dict[str, Any], Field(description="The tool's arguments (its inputSchema).")]


class ToolsComponent(TFSComponent):
    """A robot's tools from the sources its file names (built-ins, Python callables, MCP servers)."""

    tools: list[ToolEntry] = Field(default_factory=list)
    """The robot file's `tools:` entries, as written (`${VAR}` references unresolved)."""
    _built: ToolCatalog | None = PrivateAttr(default=None)

    @property
    def catalog(self) -> ToolCatalog:
        """The tools of the entries, built on first use (`build_robot` builds it at once, so that a wrong
        entry is a start-up error naming the file and the entry)."""
        if self._built is None:
            self._built = ToolCatalog(self.tools)
        return self._built

    def sources(self) -> list[SourceInfo]:
        """Every source and its state (the server reports those that are not ready)."""
        return self.catalog.sources()

    async def aon_startup(self, session: AsyncSession) -> None:
        await self.catalog.start()

    async def aclose(self) -> None:
        await self.catalog.aclose()

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="tool", resource_op_type="get_list"),
        description="The tools the robot's LLM may call: description, input schema, source, read-only, confirm.",
    )
    async def aget_tools(self, page: PageNumber = 1, page_size: PageSize = 50) -> PageableList[ToolItem]:
        named = self.catalog.named()
        rows = [
            ToolItem(
                name=tool.name,
                description=tool.description,
                source=source,
                input_schema=tool.parameters,
                read_only=tool.read_only,
                confirm=tool.confirm,
                timeout=tool.timeout,
            )
            for source, tool in named[(page - 1) * page_size : page * page_size]
        ]
        return PageableList[ToolItem](items=rows, page=page, page_size=page_size, total=len(named))

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="tool_source", resource_op_type="get_list"),
        description="The robot file's tool sources and their state (an MCP server that failed says why).",
    )
    async def aget_tool_sources(self, page: PageNumber = 1, page_size: PageSize = 50) -> PageableList[ToolSourceItem]:
        infos = self.catalog.sources()
        rows = [
            ToolSourceItem(name=i.name, kind=i.kind, state=i.state, tools=i.tools, error=i.error, optional=i.optional)
            for i in infos[(page - 1) * page_size : page * page_size]
        ]
        return PageableList[ToolSourceItem](items=rows, page=page, page_size=page_size, total=len(infos))

    @tfs_action(
        alias=ActionAlias(resource="tool_call", resource_op_type="get"),
        description="Call a read-only tool (read scope); others need acall_tool.",
    )
    async def acall_read_tool(
        self, principal: Principal, tool_name: ToolName, arguments: Arguments | None = None
    ) -> ToolCallResult:
        tool = self._find(tool_name, principal)
        if not tool.read_only:
            raise ActionInputError(
                "tool_name", f"tool {tool_name!r} is not read-only; call it with acall_tool (write scope)", tool_name
            )
        return await self._run(tool, arguments or {})

    @tfs_action(
        alias=ActionAlias(resource="tool_call", resource_op_type="create"),
        description="Call any tool with these arguments (write scope), as the LLM would; nothing is stored.",
    )
    async def acall_tool(
        self, principal: Principal, tool_name: ToolName, arguments: Arguments | None = None
    ) -> ToolCallResult:
        return await self._run(self._find(tool_name, principal), arguments or {})

    def _find(self, name: str, principal: Principal) -> BaseTool:
        for _source, tool in self.catalog.named():
            if tool.name == name:
                if tool.confirm and principal.unattended:
                    raise ActionInputError(
                        "tool_name",
                        f"tool {name!r} needs the user's confirmation (confirm: true) and this caller cannot give "
                        "it (an MCP client: its model picks the calls); run it from the console's Tools page or "
                        "its chat, which asks the user",
                        name,
                    )
                return tool
        known = [t.name for t in self.catalog.tools()]
        raise ActionInputError("tool_name", f"no tool {name!r}; the robot's tools: {known}", name)

    async def _run(self, tool: BaseTool, arguments: dict[str, Any]) -> ToolCallResult:
        call = ToolCall(id="console", name=tool.name, arguments=json.dumps(arguments))
        returned = await tool.arun(call)
        return ToolCallResult(tool=tool.name, is_error=returned.is_error, result=returned.model_dump(mode="json"))
