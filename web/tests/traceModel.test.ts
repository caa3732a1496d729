/**
 * The trace explorer's reading of stored messages: turns, steps in order, timing when the records have it
 * (and none when they were stored before timing), tool errors, failures, and the filters.
 */
import { describe, expect, it } from "vitest";

import { matches, turnsOf } from "../src/views/traceModel";

const meta = (m: Record<string, unknown>) => ({ additional_kwargs: { __trace_meta: m } });

const timedTurn = [
  {
    role: "user",
    msgId: "u1",
    text: "weather?",
    createTs: Date.UTC(2026, 11, 1, 10),
    message: { intermediate_trace: { records: [] } },
    trace: [
      { role: "assistant", model: "m-a", tool_calls: [{ id: "c1", name: "weather", arguments: '{"city":"Paris"}' }],
        usage: { input_tokens: 10, output_tokens: 2, cache_read_tokens: 4 }, ...meta({ seq: 0, source: "thinking", step: 0, started_at: 1000, duration_ms: 300, provider: "p" }) },
      { role: "tool", tool_reses: [{ call_id: "c1", name: "weather", result: "boom", is_error: true }],
        ...meta({ seq: 1, source: "doing", step: 0, started_at: 1300, duration_ms: 50, call_ms: { c1: 45 } }) },
    ],
  },
  { role: "assistant", msgId: "a1", text: "sorry", message: { role: "assistant", content: "sorry", model: "m-a", ...meta({ step: 1, started_at: 1350, duration_ms: 150 }) } },
];

const oldFailedTurn = [
  {
    role: "user",
    msgId: "u2",
    text: "again",
    createTs: Date.UTC(2025, 0, 1),
    message: { intermediate_trace: { records: [], failure: { kind: "rate_limited", message: "slow down", provider: "openai", status: 429 } } },
    trace: [{ role: "assistant", tool_calls: [{ id: "c2", name: "weather", arguments: "{}" }], ...meta({ seq: 0, source: "thinking", step: 0 }) }],
  },
];

describe("trace model", () => {
  it("reads a timed turn: steps, per-call duration, tokens, tool errors", () => {
    const [turn] = turnsOf([...timedTurn, ...oldFailedTurn]);
    expect(turn?.steps.map((s) => s.kind)).toEqual(["llm", "tool", "llm"]);
    const tool = turn?.steps[1];
    expect(tool?.kind === "tool" && [tool.name, tool.arguments, tool.durationMs, tool.error]).toEqual(["weather", '{"city":"Paris"}', 45, true]);
    expect(turn?.durationMs).toBe(500);
    expect(turn?.toolErrors).toBe(1);
    expect(turn?.tokens).toBe(12);
  });

  it("reads a turn stored before timing, with its typed failure", () => {
    const [, turn] = turnsOf([...timedTurn, ...oldFailedTurn]);
    expect(turn?.failed).toBe(true);
    expect(turn?.durationMs).toBeUndefined();
    const last = turn?.steps[turn.steps.length - 1];
    expect(last?.kind === "failure" && [last.failure.kind, last.failure.provider, last.failure.status]).toEqual(["rate_limited", "openai", 429]);
  });

  it("reads a call not run for want of confirmation as not run, not as a tool error", () => {
    const notConfirmed = [
      {
        role: "user",
        msgId: "u3",
        text: "wipe",
        createTs: Date.UTC(2026, 11, 1, 11),
        message: { intermediate_trace: { records: [] } },
        trace: [
          { role: "assistant", tool_calls: [{ id: "c3", name: "wipe", arguments: '{"target":"disk"}' }], ...meta({ step: 0 }) },
          { role: "tool", tool_reses: [{ call_id: "c3", name: "wipe", result: "wipe was not run: the user refused this call", is_error: true }], ...meta({ step: 0 }) },
        ],
      },
    ];
    const [turn] = turnsOf(notConfirmed);
    const tool = turn?.steps[1];
    expect(tool?.kind === "tool" && [tool.notRun, tool.error]).toEqual([true, false]);
    expect(turn?.toolErrors).toBe(0);
    expect(turn && matches(turn, { failedOnly: false, toolErrors: true, model: null, since: null })).toBe(false);
  });

  it("reads a failed LLM call as an LLM step of its own, before the failure", () => {
    const failure = { kind: "auth", message: "key refused", provider: "openai", status: 401 };
    const call = { role: "assistant", model: "openai:m401", finish_reason: "call_failed", ...meta({ step: 0, started_at: 5, duration_ms: 80, provider: "openai" }) };
    const [turn] = turnsOf([{ role: "user", msgId: "u4", text: "weather?", message: { intermediate_trace: { failure } }, trace: [call] }]);
    expect(turn?.steps.map((s) => s.kind)).toEqual(["llm", "failure"]);
    const llm = turn?.steps[0];
    expect(llm?.kind === "llm" && [llm.failed, llm.model, llm.durationMs, llm.finishReason, llm.step]).toEqual([true, "openai:m401", 80, undefined, 0]);
    expect(turn?.models).toEqual(["openai:m401"]);
  });

  it("filters by failure, tool errors, model and date", () => {
    const turns = turnsOf([...timedTurn, ...oldFailedTurn]);
    const none = { failedOnly: false, toolErrors: false, model: null, since: null };
    expect(turns.filter((t) => matches(t, { ...none, failedOnly: true })).map((t) => t.msgId)).toEqual(["u2"]);
    expect(turns.filter((t) => matches(t, { ...none, toolErrors: true })).map((t) => t.msgId)).toEqual(["u1"]);
    expect(turns.filter((t) => matches(t, { ...none, model: "m-a" })).map((t) => t.msgId)).toEqual(["u1"]);
    expect(turns.filter((t) => matches(t, { ...none, since: "2026-01-01" })).map((t) => t.msgId)).toEqual(["u1"]);
  });
});
