// @vitest-environment jsdom
/**
 * The chat view against the documented endpoint shape, with `fetch` replaced by a transport
 * double (as httpx's MockTransport would be in Python): a streamed turn and a JSON turn.
 */
import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ChatView, errorTitle, liveRecord } from "../src/views/ChatView";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function sse(events: [string, unknown][]): Response {
  const text = events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join("");
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Split mid-event: the parser must buffer across chunks.
      controller.enqueue(bytes.slice(0, 17));
      controller.enqueue(bytes.slice(17));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

function send(text: string) {
  fireEvent.change(screen.getByLabelText("Message"), { target: { value: text } });
  fireEvent.click(screen.getByRole("button", { name: "Send" }));
}

describe("chat", () => {
  it("streams the reply and the trace, then keeps the conversation id", async () => {
    const fetchDouble = vi.fn(async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      if (body.conversationId === undefined) {
        return sse([
          ["delta", { text: "It is " }],
          ["trace", { record: { role: "assistant", tool_calls: [{ id: "c1", name: "weather", arguments: "{}" }] } }],
          ["trace", { record: { role: "tool", tool_reses: [{ call_id: "c1", name: "weather", result: "sunny" }] } }],
          ["delta", { text: "sunny." }],
          ["done", { conversationId: "conv-1", message: { content: "It is sunny." }, trace: [
            { role: "assistant", tool_calls: [{ id: "c1", name: "weather", arguments: "{}" }] },
            { role: "tool", tool_reses: [{ call_id: "c1", name: "weather", result: "sunny" }] },
          ] }],
        ]);
      }
      return new Response(JSON.stringify({ conversationId: "conv-1", message: { content: `again (${String(body.conversationId)})` }, trace: [] }), {
        headers: { "content-type": "application/json" },
      });
    });
    vi.stubGlobal("fetch", fetchDouble);
    render(
      <MantineProvider><QueryClientProvider client={new QueryClient()}>
        <ChatView robot="demo" />
      </QueryClientProvider></MantineProvider>,
    );
    send("weather?");
    await waitFor(() => expect(screen.getAllByTestId("reply")[0]?.textContent).toBe("It is sunny."));
    expect(screen.getByText("Trace (2 records)")).toBeTruthy();
    expect(fetchDouble.mock.calls[0]?.[0]).toBe("/api/robots/demo/chat");
    send("and tomorrow?");
    await waitFor(() => expect(screen.getAllByTestId("reply")[1]?.textContent).toBe("again (conv-1)"));
  });

  it("shows a failed turn as an error, not as a reply", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("boom", { status: 500 })));
    render(
      <MantineProvider><QueryClientProvider client={new QueryClient()}>
        <ChatView robot="demo" />
      </QueryClientProvider></MantineProvider>,
    );
    send("hi");
    await waitFor(() => expect(screen.getByText(/HTTP 500: boom/)).toBeTruthy());
  });

  it("shows a refusal as a refusal, with the server-side tools of the trace", async () => {
    const refusal = "I'm very sorry, but I can't assist with that.";
    const message = { role: "assistant", content: "", refusal, finish_reason: "refusal" };
    const trace = [
      { role: "assistant", server_tool_blocks: [{ provider: "anthropic", block: { type: "server_tool_use", name: "web_search" }, text_offset: 0 }] },
    ];
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ conversationId: "c", message, trace }), { headers: { "content-type": "application/json" } })));
    render(
      <MantineProvider><QueryClientProvider client={new QueryClient()}>
        <ChatView robot="demo" />
      </QueryClientProvider></MantineProvider>,
    );
    send("How do I make anthrax?");
    await waitFor(() => expect(screen.getByTestId("refusal").textContent).toContain(refusal));
    fireEvent.click(screen.getByText("Trace (1 records)"));
    expect(screen.getByText("Server tool: web_search")).toBeTruthy(); // in words, not the raw block type
  });

  it("shows the server's error message with its error id, and sends the token", async () => {
    localStorage.setItem("tfrobot.token", "s3cret");
    const body = { error: "unavailable", message: "demo/chat failed: the database is unavailable right now; retry in a moment", errorId: "e42" };
    const fetchDouble = vi.fn(async (_url: string, _init?: RequestInit) => new Response(JSON.stringify(body), { status: 503, headers: { "content-type": "application/json" } }));
    vi.stubGlobal("fetch", fetchDouble);
    render(
      <MantineProvider><QueryClientProvider client={new QueryClient()}>
        <ChatView robot="demo" />
      </QueryClientProvider></MantineProvider>,
    );
    send("hi");
    await waitFor(() => expect(screen.getByText(/the database is unavailable right now; retry in a moment \(error id e42\)/)).toBeTruthy());
    const init = fetchDouble.mock.calls[0]?.[1] as RequestInit | undefined;
    expect(new Headers(init?.headers).get("Authorization")).toBe("Bearer s3cret");
    localStorage.removeItem("tfrobot.token");
  });

  it("shows a provider failure where the reply would be, typed, and goes on in its conversation", async () => {
    const failed = {
      error: "provider_error", kind: "rate_limited", provider: "openai", status: 429, retryAfter: 7,
      message: "openai: rate limited: slow down (HTTP 429)", fix: "retry in 7 s, or raise the provider's rate limit or quota",
      conversationId: "conv-failed",
    };
    const bodies: Record<string, unknown>[] = [];
    const fetchDouble = vi.fn(async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      bodies.push(body);
      if (bodies.length === 1) return new Response(JSON.stringify(failed), { status: 429, headers: { "content-type": "application/json" } });
      return sse([
        ["event", { type: "tool_call" }],
        ["error", { ...failed, kind: "timeout", status: 504, retryAfter: undefined, fix: "raise the LLM's `timeout` setting" }],
      ]);
    });
    vi.stubGlobal("fetch", fetchDouble);
    render(
      <MantineProvider><QueryClientProvider client={new QueryClient()}>
        <ChatView robot="demo" />
      </QueryClientProvider></MantineProvider>,
    );
    send("weather?");
    await waitFor(() => expect(screen.getAllByTestId("turn-failure")).toHaveLength(1));
    const first = screen.getAllByTestId("turn-failure")[0] as HTMLElement;
    expect(first.dataset.kind).toBe("rate_limited");
    expect(first.textContent).toContain("Rate limited — openai (HTTP 429)");
    expect(first.textContent).toContain("Fix: retry in 7 s");
    expect(first.textContent).toContain("Retry after 7 s.");
    send("again?");
    await waitFor(() => expect(screen.getAllByTestId("turn-failure")).toHaveLength(2));
    const second = screen.getAllByTestId("turn-failure")[1] as HTMLElement;
    expect(second.textContent).toContain("Provider timed out — openai (HTTP 504)");
    expect(bodies[1]?.conversationId).toBe("conv-failed");
  });

  it("asks before a destructive tool call and posts the answer", async () => {
    const posted: string[] = [];
    const fetchDouble = vi.fn(async (url: string, init: RequestInit) => {
      if (url.includes("/chat/confirmations/")) {
        posted.push(`${url} ${String(init.body)}`);
        return new Response(null, { status: 204 });
      }
      return sse([
        ["confirm", { id: "k1", call: { id: "c1", name: "refund_order", arguments: '{"order_id": "B-2"}' }, timeout: 20 }],
        ["done", { conversationId: "conv-2", message: { content: "Done." }, trace: [] }],
      ]);
    });
    vi.stubGlobal("fetch", fetchDouble);
    render(
      <MantineProvider><QueryClientProvider client={new QueryClient()}>
        <ChatView robot="shop" />
      </QueryClientProvider></MantineProvider>,
    );
    send("refund please");
    // the card says what will run: the tool by name and its arguments
    await waitFor(() => expect(screen.getByText("Run the tool “refund_order”?")).toBeTruthy());
    expect(screen.getByText(/"order_id": "B-2"/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(screen.getByTestId("confirm-state").textContent).toBe("approved"));
    expect(posted).toEqual(['/api/robots/shop/chat/confirmations/k1 {"approve":true}']);
  });
});

describe("chat cards", () => {
  it("titles an error that is not a provider's in words (a 424 is not 'HTTP 424')", () => {
    expect(errorTitle(424)).toBe("The robot is not set up for this: a service it depends on failed");
    expect(errorTitle(599)).toBe("Failed (HTTP 599)");
  });

  it("turns the chain events that finish a step into live trace records, and only those", () => {
    const call = { id: "c1", name: "weather", arguments: "{}" };
    expect(liveRecord({ type: "assistant", message: { role: "assistant", tool_calls: [call] } })).toEqual({ role: "assistant", tool_calls: [call] });
    expect(liveRecord({ type: "assistant", message: { role: "assistant", content: "the answer" } })).toBeUndefined();
    expect(liveRecord({ type: "tool_result", result: { call_id: "c1", result: "sunny" } })).toEqual({ role: "tool", tool_reses: [{ call_id: "c1", result: "sunny" }] });
    expect(liveRecord({ type: "token", text: "x" })).toBeUndefined();
  });
});
