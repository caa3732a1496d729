// @vitest-environment jsdom
/**
 * Regression (issue 13, F): before a robot was chosen the console asked `GET /api/robots//chat` (an empty
 * robot segment). The chat probe waits for a robot name; with one it asks that robot's chat endpoint.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { useChatAvailable } from "../src/views/ChatView";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function Probe(props: { robot: string }) {
  return <span data-testid="chat">{useChatAvailable(props.robot) ? "yes" : "no"}</span>;
}

function renderProbe(robot: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <Probe robot={robot} />
    </QueryClientProvider>,
  );
}

describe("chat probe", () => {
  it("asks nothing while no robot is chosen", async () => {
    const fetchDouble = vi.fn(async () => new Response("{}", { headers: { "content-type": "application/json" } }));
    vi.stubGlobal("fetch", fetchDouble);
    renderProbe("");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetchDouble).not.toHaveBeenCalled();
    expect(screen.getByTestId("chat").textContent).toBe("no");
  });

  it("asks the chosen robot's chat endpoint", async () => {
    const fetchDouble = vi.fn(async () => new Response("{}", { headers: { "content-type": "application/json" } }));
    vi.stubGlobal("fetch", fetchDouble);
    renderProbe("demo");
    await waitFor(() => expect(screen.getByTestId("chat").textContent).toBe("yes"));
    expect(fetchDouble.mock.calls.map((call) => String((call as unknown[])[0]))).toEqual(["/api/robots/demo/chat"]);
  });
});
