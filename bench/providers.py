"""Converting a 200-turn conversation to OpenAI and Anthropic request payloads: TFRobot vs. peers.

Every contender converts the same conversation (200 user turns; every other turn carries a tool call,
its result and a final answer in its trace) from its own message objects into the provider's message
list. The ceiling is a hand-written converter over plain Pydantic models of the same conversation
(built before timing, the trace already flattened): attribute reads into dicts, no repairs. A converter
over plain dicts is printed as an extra reference line. Peers (LangChain, pydantic-ai, LiteLLM's
`transform_request` for both providers) are measured when installed: the `bench` extra installs them.
Prints median CPU times and ratios, TFRobot's cost per message at 50/200/800 turns (it must be linear),
its phases, and the time `import tfrobot` plus one provider adapter takes in a fresh interpreter.

Run with `make bench` (not part of pytest: timings are not tests); `--smoke` runs every step at toy sizes,
which `tests/bench` does to keep the harness working. Timing: `harness/timing.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from harness.timing import clock, interleaved, paired_ratios
from tfrobot.brain.chain.llms import AnthropicChat, ChatLLM, OpenAIChat, PromptCache
from tfrobot.brain.chain.llms.normalize import normalize_request
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, TextMessage, ToolCall, ToolReturn


@dataclass(frozen=True)
class Sizes:
    turns: int
    rounds: int
    linearity: tuple[int, ...]
    import_runs: int


FULL = Sizes(turns=200, rounds=41, linearity=(50, 200, 800), import_runs=7)
SMOKE = Sizes(turns=6, rounds=2, linearity=(2, 6), import_runs=1)


def turn_data(i: int) -> dict[str, Any]:
    """The facts of one turn, from which every contender builds its own objects."""
    data: dict[str, Any] = {"user": f"Question {i}: what is the weather in city {i}?", "answer": f"It is {i % 30}C."}
    if i % 2 == 0:
        data["call"] = {"id": f"call_{i}", "name": "weather", "arguments": json.dumps({"city": f"city {i}"})}
        data["result"] = f"{i % 30}C, clear"
    return data


def turns_data(turns: int) -> list[dict[str, Any]]:
    return [turn_data(i) for i in range(turns)]


SYSTEM = "You are TFRobot."


# ------------------------------------------------------------------------------------------------ TFRobot
def tfrobot_history(turns: int) -> tuple[list[BaseMessage], TextMessage]:
    history: list[BaseMessage] = [BaseMessage(role="system", content=SYSTEM, create_ts=1)]
    ts = 10
    for data in turns_data(turns):
        turn = TextMessage(content=data["user"], create_ts=ts)
        if "call" in data:
            call = ToolCall(**data["call"])
            turn.intermediate_trace.append(AssistantTextMessage(tool_calls=[call], create_ts=ts + 1))
            result = ToolReturn(call_id=call.id, name=call.name, result=data["result"])
            turn.intermediate_trace.append(BaseMessage(role="tool", tool_reses=[result], create_ts=ts + 2))
        turn.intermediate_trace.append(AssistantTextMessage(content=data["answer"], create_ts=ts + 3))
        history.append(turn)
        ts += 10
    return history, TextMessage(content="And tomorrow?", create_ts=ts)


# ------------------------------------------------------------------------------------------------ ceiling
class PlainSystem(BaseModel):
    content: str


class PlainUser(BaseModel):
    content: str


class PlainToolCall(BaseModel):
    id: str
    name: str
    arguments: str


class PlainAssistant(BaseModel):
    content: str | None = None
    tool_calls: list[PlainToolCall] = []


class PlainTool(BaseModel):
    tool_call_id: str
    content: str


PlainMessage = PlainSystem | PlainUser | PlainAssistant | PlainTool


def model_history(turn_data: list[dict[str, Any]]) -> list[PlainMessage]:
    """The same conversation as plain, already validated Pydantic models, trace already flattened."""
    msgs: list[PlainMessage] = [PlainSystem(content=SYSTEM)]
    for data in turn_data:
        msgs.append(PlainUser(content=data["user"]))
        if "call" in data:
            msgs.append(PlainAssistant(tool_calls=[PlainToolCall(**data["call"])]))
            msgs.append(PlainTool(tool_call_id=data["call"]["id"], content=data["result"]))
        msgs.append(PlainAssistant(content=data["answer"]))
    msgs.append(PlainUser(content="And tomorrow?"))
    return msgs


def models_to_openai(msgs: list[PlainMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in msgs:
        match m:
            case PlainUser():
                out.append({"role": "user", "content": m.content})
            case PlainAssistant():
                d: dict[str, Any] = {"role": "assistant", "content": m.content}
                if m.tool_calls:
                    d["tool_calls"] = [
                        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                        for c in m.tool_calls
                    ]
                out.append(d)
            case PlainTool():
                out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
            case PlainSystem():
                out.append({"role": "system", "content": m.content})
    return out


def models_to_anthropic(msgs: list[PlainMessage]) -> tuple[str, list[dict[str, Any]]]:
    system, out = "", []
    for m in msgs:
        blocks: list[dict[str, Any]]
        match m:
            case PlainSystem():
                system = m.content
                continue
            case PlainUser():
                role, blocks = "user", [{"type": "text", "text": m.content}]
            case PlainAssistant():
                role = "assistant"
                blocks = [{"type": "text", "text": m.content}] if m.content else []
                blocks += [
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": json.loads(c.arguments)}
                    for c in m.tool_calls
                ]
            case PlainTool():
                role = "user"
                blocks = [
                    {
                        "type": "tool_result",
                        "tool_use_id": m.tool_call_id,
                        "content": [{"type": "text", "text": m.content}],
                    }
                ]
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return system, out


def dict_history(turn_data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    for data in turn_data:
        msgs.append({"role": "user", "content": data["user"]})
        if "call" in data:
            msgs.append({"role": "assistant", "content": None, "tool_calls": [data["call"]]})
            msgs.append({"role": "tool", "tool_call_id": data["call"]["id"], "content": data["result"]})
        msgs.append({"role": "assistant", "content": data["answer"]})
    msgs.append({"role": "user", "content": "And tomorrow?"})
    return msgs


def dicts_to_openai(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for m in msgs:
        if m["role"] == "assistant" and m.get("tool_calls"):
            calls = [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in m["tool_calls"]
            ]
            out.append({"role": "assistant", "content": m["content"], "tool_calls": calls})
        else:
            out.append(dict(m))
    return out


def dicts_to_anthropic(msgs: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    system, out = "", []
    for m in msgs:
        if m["role"] == "system":
            system = m["content"]
            continue
        if m["role"] == "tool":
            role, blocks = "user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}]
        elif m["role"] == "assistant" and m.get("tool_calls"):
            role = "assistant"
            blocks = [
                {"type": "tool_use", "id": c["id"], "name": c["name"], "input": json.loads(c["arguments"])}
                for c in m["tool_calls"]
            ]
        else:
            role, blocks = m["role"], [{"type": "text", "text": m["content"]}]
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return system, out


# ------------------------------------------------------------------------------------------------ peers
def langchain_contenders(turn_data: list[dict[str, Any]]) -> dict[str, Callable[[], Any]]:
    found: dict[str, Callable[[], Any]] = {}
    if importlib.util.find_spec("langchain_core") is None:
        return found
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    msgs: list[Any] = [SystemMessage(SYSTEM)]
    for data in turn_data:
        msgs.append(HumanMessage(data["user"]))
        if "call" in data:
            call = data["call"]
            args = json.loads(call["arguments"])
            msgs.append(AIMessage("", tool_calls=[{"id": call["id"], "name": call["name"], "args": args}]))
            msgs.append(ToolMessage(data["result"], tool_call_id=call["id"]))
        msgs.append(AIMessage(data["answer"]))
    msgs.append(HumanMessage("And tomorrow?"))
    if importlib.util.find_spec("langchain_openai") is not None:
        from langchain_openai.chat_models.base import _convert_message_to_dict

        found["langchain (openai)"] = lambda: [_convert_message_to_dict(m) for m in msgs]
    if importlib.util.find_spec("langchain_anthropic") is not None:
        from langchain_anthropic.chat_models import _format_messages

        found["langchain (anthropic)"] = lambda: _format_messages(msgs, model="claude-sonnet-4-6")
    return found


def pydantic_ai_contenders(turn_data: list[dict[str, Any]]) -> dict[str, Callable[[], Any]]:
    found: dict[str, Callable[[], Any]] = {}
    if importlib.util.find_spec("pydantic_ai") is None:
        return found
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import ModelRequestParameters

    msgs: list[Any] = []
    first = True
    for data in turn_data:
        parts: list[Any] = [SystemPromptPart(SYSTEM)] if first else []
        first = False
        msgs.append(ModelRequest(parts=[*parts, UserPromptPart(data["user"])]))
        if "call" in data:
            call = data["call"]
            msgs.append(ModelResponse(parts=[ToolCallPart(call["name"], call["arguments"], call["id"])]))
            msgs.append(ModelRequest(parts=[ToolReturnPart(call["name"], data["result"], call["id"])]))
        msgs.append(ModelResponse(parts=[TextPart(data["answer"])]))
    msgs.append(ModelRequest(parts=[UserPromptPart("And tomorrow?")]))
    params = ModelRequestParameters()
    loop = asyncio.new_event_loop()
    try:
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        openai_model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="bench"))
        found["pydantic-ai (openai)"] = lambda: loop.run_until_complete(openai_model._map_messages(msgs, params))
    except ImportError:
        pass
    try:
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        anthropic_model = AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(api_key="bench"))
        found["pydantic-ai (anthropic)"] = lambda: loop.run_until_complete(
            anthropic_model._map_message(msgs, params, {})
        )
    except ImportError:
        pass
    return found


def litellm_contenders(turn_data: list[dict[str, Any]]) -> dict[str, Callable[[], Any]]:
    """LiteLLM's request transforms. Its own message objects are OpenAI-format dicts, so its OpenAI transform
    mostly checks them and passes them through; the Anthropic one lifts the system prompt and builds the
    turns. `transform_request` adds keys to `optional_params`, so each run gets a fresh dict."""
    if importlib.util.find_spec("litellm") is None:
        return {}
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of the cost map at import
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    from litellm.llms.openai.chat.gpt_transformation import OpenAIGPTConfig

    msgs: Any = dicts_to_openai(dict_history(turn_data))
    openai, anthropic = OpenAIGPTConfig(), AnthropicConfig()

    def to_openai() -> dict[str, Any]:
        return openai.transform_request(
            model="gpt-4o", messages=msgs, optional_params={}, litellm_params={}, headers={}
        )

    def to_anthropic() -> dict[str, Any]:
        return anthropic.transform_request(
            model="claude-sonnet-4-6",
            messages=msgs,
            optional_params={"max_tokens": 4096},
            litellm_params={},
            headers={},
        )

    return {"litellm (openai)": to_openai, "litellm (anthropic)": to_anthropic}


# ------------------------------------------------------------------------------------------------ timing
CEILING = "ceiling: hand-written, plain models"


def phases_ms(llm: ChatLLM, current: TextMessage, history: list[BaseMessage], rounds: int) -> dict[str, float]:
    """Median time of each phase of `construct_request_params` (the pipeline, unrolled)."""
    times: dict[str, list[float]] = {}
    for _ in range(rounds):
        last = clock()
        stamps: list[tuple[str, float]] = []
        ctx = llm.construct_prompt_context(current, history)
        stamps.append(("construct_prompt_context", clock()))
        params = llm._configure_api_params(ctx, {})
        stamps.append(("_configure_api_params", clock()))
        request = llm.format_to_request_msgs(ctx)
        stamps.append(("format_to_request_msgs", clock()))
        msgs = normalize_request(request)
        stamps.append(("normalize_request", clock()))
        api = llm.reformat_request_msg_to_api(msgs, params)
        stamps.append(("reformat_request_msg_to_api", clock()))
        llm._assemble_api_request(params, api, None)
        stamps.append(("_assemble_api_request", clock()))
        for name, stamp in stamps:
            times.setdefault(name, []).append(stamp - last)
            last = stamp
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


IMPORT_PROBE = """
import sys, time
start, cpu = time.perf_counter(), time.process_time()
import tfrobot
from tfrobot.brain.chain.llms import OpenAIChat
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
sdks = [m for m in ("openai", "anthropic", "google.genai", "zai", "volcenginesdkarkruntime") if m in sys.modules]
print(elapsed, cpu, ",".join(sdks))
"""


def import_times_ms(runs: int) -> tuple[float, float, float, str]:
    """Medians over fresh interpreters: the import's wall and CPU time, and the whole process's wall time
    (interpreter start included)."""
    walls, cpus, processes, sdks = [], [], [], ""
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", IMPORT_PROBE], capture_output=True, text=True, check=True)
        processes.append(time.perf_counter() - start)
        wall, cpu, *loaded = out.stdout.split()
        walls.append(float(wall))
        cpus.append(float(cpu))
        sdks = ",".join(loaded)
    return (*(statistics.median(values) * 1000 for values in (walls, cpus, processes)), sdks)  # type: ignore[return-value]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--smoke", action="store_true", help="toy sizes: check the harness, time nothing useful")
    sizes = SMOKE if parser.parse_args(argv).smoke else FULL
    warnings.simplefilter("ignore")
    data = turns_data(sizes.turns)
    history, current = tfrobot_history(sizes.turns)
    plain = dict_history(data)
    models = model_history(data)
    # The conversion is compared, so no cache breakpoints: neither the ceiling nor the peers place them.
    openai, anthropic = OpenAIChat(), AnthropicChat(prompt_cache=PromptCache(enabled=False))
    rows: dict[str, dict[str, Callable[[], Any]]] = {
        "openai": {
            CEILING: lambda: models_to_openai(models),
            "reference: hand-written, plain dicts": lambda: dicts_to_openai(plain),
            "tfrobot construct_request_params": lambda: openai.construct_request_params(current, history),
        },
        "anthropic": {
            CEILING: lambda: models_to_anthropic(models),
            "reference: hand-written, plain dicts": lambda: dicts_to_anthropic(plain),
            "tfrobot construct_request_params": lambda: anthropic.construct_request_params(current, history),
        },
    }
    peers = {**langchain_contenders(data), **pydantic_ai_contenders(data), **litellm_contenders(data)}
    for name, fn in peers.items():
        rows["openai" if "openai" in name else "anthropic"][name] = fn
    for name, found in (("langchain", "langchain_core"), ("pydantic-ai", "pydantic_ai"), ("litellm", "litellm")):
        if importlib.util.find_spec(found) is None:
            print(f"{name} is not installed: skipped (the `bench` extra installs it)")
    print(
        f"{sizes.turns}-turn conversation ({len(plain)} messages), median CPU time of {sizes.rounds} interleaved runs"
    )
    for target, contenders in rows.items():
        print(f"\n{target} payload")
        times = interleaved(contenders, sizes.rounds)
        of_ceiling = paired_ratios(times, CEILING)
        for name, values in times.items():
            print(f"  {name:<40} {statistics.median(values) * 1000:8.2f} ms   x{of_ceiling[name]:6.1f} of ceiling")
    print("\nratio: median over rounds of (time / ceiling's time in the same round)")
    print("pydantic-ai rows include one event-loop round trip per run (its mappers are async).")

    print("\nlinearity: microseconds per message, tfrobot (ceiling) [x of ceiling]")
    for turns in sizes.linearity:
        hist, cur = tfrobot_history(turns)
        mods = model_history(turns_data(turns))
        times = interleaved(
            {
                "openai": lambda h=hist, c=cur: openai.construct_request_params(c, h),
                "openai ceiling": lambda m=mods: models_to_openai(m),
                "anthropic": lambda h=hist, c=cur: anthropic.construct_request_params(c, h),
                "anthropic ceiling": lambda m=mods: models_to_anthropic(m),
            },
            sizes.rounds,
        )
        per = {k: statistics.median(v) * 1e6 / len(mods) for k, v in times.items()}
        of_openai, of_anthropic = paired_ratios(times, "openai ceiling"), paired_ratios(times, "anthropic ceiling")
        print(
            f"  {turns:>4} turns ({len(mods):>4} msgs)  openai {per['openai']:5.2f} ({per['openai ceiling']:4.2f})"
            f" [x{of_openai['openai']:4.1f}]   anthropic {per['anthropic']:5.2f} ({per['anthropic ceiling']:4.2f})"
            f" [x{of_anthropic['anthropic']:4.1f}]"
        )

    for name, llm in (("openai", openai), ("anthropic", anthropic)):
        phases = phases_ms(llm, current, history, sizes.rounds)
        print(f"\n{name} phases (ms, median): " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()))

    wall, cpu, process, sdks = import_times_ms(sizes.import_runs)
    print(
        f"\nimport tfrobot + OpenAIChat in a fresh interpreter: {wall:.0f} ms wall, {cpu:.0f} ms CPU "
        f"(whole process {process:.0f} ms wall; median of {sizes.import_runs}; SDKs imported: {sdks or 'none'})"
    )


if __name__ == "__main__":
    main()
