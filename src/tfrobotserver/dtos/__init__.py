"""DTOs: the wire shapes of the TFSAction protocol and of the components. The rule for every wire model:

**Naming.** A model that crosses HTTP subclasses `HttpModel` (camelCase on the wire, snake_case in Python)
and is named for what it carries, never `…DTO`, `…Schema` or `…Model`: a row or element is the thing
(`AIMemoryDoc`, `Node`) or `…Item`, a list container `…List` / `…Page`, a result the thing returned
(`RenderedPrompt`, `ConfigUpdate`), a request body the thing sent (`ChatTurn`, `StepRequest`).

**Place: whose contract it is.**

* What a TFSAction takes or returns lives here: the protocol's containers at the top (`pageable`, `graph`),
  every component's rows, elements, parameter and result models under `dtos/factory/`, at the path of their
  component (`robot/factory/prompt.py` -> `dtos/factory/prompt.py`, `robot/factory/config_mixin.py` ->
  `dtos/factory/config.py`; the seed's `dtos/factory/…`). `dtos` imports nothing else of the server (a
  `lint-imports` contract), so the protocol checks, the components and the app all build on it.
* What the server's own front doors take and return besides action calls lives with the front door: the
  HTTP routes under `/api/` (robots, components, actions, chat, errors) in `tfrobotserver.app.bodies`, the
  MCP `chat` tool's arguments and answer in `tfrobotserver.mcp.chat`.

Models that do not cross the wire (settings, robot files) are plain pydantic models beside their code.
"""

__all__: list[str] = []
