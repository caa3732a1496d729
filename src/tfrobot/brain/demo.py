"""The offline demo robot: two tools (one returns an image), TFL, and `ScriptedChat` rules that use them.

`tfrobot chat` and the tests drive it; it needs no network and no key, and it exercises every kind of
intermediate message: parallel tool calls with reasoning, a TFL script attaching an image, an answer.
"""

from __future__ import annotations

from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.llms import ChatLLM, ScriptedCall, ScriptedChat, ScriptRule
from tfrobot.drive import Confirm, Drive, Tool, ToolOutput
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.schema.message import ImageUserMsgPart
from tfrobot.tfl import TFLInterpreter

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
"""A 1x1 PNG: the chart the demo draws."""
TEMPERATURES = {"Paris": "18C", "Tokyo": "24C"}


async def weather(city: str) -> str:
    """Current weather of a city."""
    return f"{city}: {TEMPERATURES.get(city, '20C')}"


async def chart(cities: list[str]) -> ToolOutput:
    """Draw a chart of the cities' temperatures."""
    image = ImageUserMsgPart(data=PNG, media_type="image/png", detail=f"chart of {', '.join(cities)}")
    return ToolOutput(result={"cities": cities}, attachments=[image])


RULES = [
    ScriptRule(
        user="weather",
        reasoning="Two cities: call the weather tool for both at once.",
        reply="Checking both cities.",
        tool_calls=[
            ScriptedCall(name="weather", arguments={"city": "Paris"}),
            ScriptedCall(name="weather", arguments={"city": "Tokyo"}),
        ],
    ),
    ScriptRule(
        after="tool:weather",
        reply="Drawing a chart.",
        tfl_scripts=['c = chart(cities=["Paris", "Tokyo"])\nattach(c)\nprint("chart ready for", len(c["cities"]))'],
    ),
    ScriptRule(after="console", reply="Paris is 18C and Tokyo 24C; the chart is attached. ({results})"),
    ScriptRule(user="tomorrow", reply="Tomorrow looks the same."),
]
"""What the scripted LLM does: ask about the weather, then about tomorrow."""


TOOLS: dict[str, Tool] = {"weather": Tool(weather), "chart": Tool(chart)}
"""The demo tools by name. Built once: a `Tool` holds its arguments model and schema, which chains built
per turn then share instead of deriving again. (Robot files name them as the built-ins `weather`, `chart`.)"""


def demo_drive() -> Drive:
    """The demo's tools."""
    return Drive(list(TOOLS.values()))


def demo_chain(
    llm: ChatLLM | None = None,
    *,
    rules: list[ScriptRule] | None = None,
    max_steps: int = 6,
    stream: bool = True,
    confirm: Confirm | None = None,
) -> Chain:
    """A chain with the demo tools and TFL; `ScriptedChat` with `RULES` unless another LLM is given;
    `confirm` asks the user before a call of a `confirm` tool."""
    drive = demo_drive()
    return Chain(
        llm or ScriptedChat(rules=RULES if rules is None else rules),
        drive,
        TFLInterpreter(DriveToolRegistry(drive)),
        max_steps=max_steps,
        stream=stream,
        confirm=confirm,
    )
