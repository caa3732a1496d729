// @vitest-environment jsdom
/**
 * A stale update's 409 in an action form: the server's explanation, what is stored now, and the two
 * ways on — "Overwrite" resends the form with the version the server named, "Reload" refreshes and
 * closes. `fetch` is a transport double that answers like the server (as httpx's MockTransport would).
 */
import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { type ActionInfo, ApiError, conflictOf } from "../src/api/client";
import { ActionForm } from "../src/components/ActionForm";
import { ComponentProvider } from "../src/components/context";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const UPDATE: ActionInfo = {
  name: "aupdate_doc",
  alias: { category: "pageable", resource: "doc", resourceOpType: "update" },
  description: null,
  paramsSchema: {
    type: "object",
    properties: {
      doc_id: { type: "integer", "x-ref": "docId" },
      doc_version: { type: "integer", "x-default": "docVersion" },
      keywords: { type: "array", items: { type: "string" }, "x-default": "keywords" },
    },
    required: ["doc_id", "doc_version", "keywords"],
  },
  retSchema: { type: "object" },
};

const STALE = {
  error: "conflict",
  message: "'aupdate_doc': doc_version: document 3 changed since you read it: you sent version 1, it is at version 2 now",
  errors: [{ path: "doc_version", message: "changed", type: "conflict", value: 1 }],
  current: { docId: 3, keywords: ["theirs"], version: 2 },
  overwrite: { doc_version: 2 },
};

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function form(onDone: () => void) {
  const client = new QueryClient();
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ComponentProvider robot="demo" component="memory" actions={[UPDATE]}>
          <ActionForm
            action={UPDATE}
            scope={{ element: { docId: 3, docVersion: 1, keywords: ["mine"] }, container: {} }}
            sources={["doc"]}
            onDone={onDone}
          />
        </ComponentProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

describe("a stale write", () => {
  it("is a conflict only when the server says how to overwrite it", () => {
    expect(conflictOf(new ApiError(409, "m", STALE))?.overwrite).toEqual({ doc_version: 2 });
    expect(conflictOf(new ApiError(409, "exists", { error: "conflict", message: "exists" }))).toBeNull();
    expect(conflictOf(new ApiError(422, "m", STALE))).toBeNull();
  });

  it("shows the 409 with what is stored now; Overwrite resends with the version it names", async () => {
    const sent: unknown[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        sent.push(JSON.parse(String(init.body)));
        return sent.length === 1 ? json(STALE, 409) : json({ docId: 3, keywords: ["mine"], version: 3 });
      }),
    );
    const onDone = vi.fn();
    form(onDone);
    fireEvent.click(await screen.findByRole("button", { name: "Run" }));
    const alert = await screen.findByTestId("conflict");
    expect(alert.textContent).toContain("changed since you read it");
    expect(screen.getByTestId("conflict-current").textContent).toContain('"theirs"');
    fireEvent.click(screen.getByRole("button", { name: "Overwrite" }));
    await waitFor(() => expect(onDone).toHaveBeenCalled());
    expect(sent).toEqual([
      { doc_id: 3, doc_version: 1, keywords: ["mine"] },
      { doc_id: 3, doc_version: 2, keywords: ["mine"] },
    ]);
  });

  it("Reload sends nothing more and closes the form to reopen from the fresh row", async () => {
    const fetchDouble = vi.fn(async () => json(STALE, 409));
    vi.stubGlobal("fetch", fetchDouble);
    const onDone = vi.fn();
    form(onDone);
    fireEvent.click(await screen.findByRole("button", { name: "Run" }));
    fireEvent.click(await screen.findByRole("button", { name: "Reload" }));
    await waitFor(() => expect(onDone).toHaveBeenCalled());
    expect(fetchDouble).toHaveBeenCalledTimes(1);
  });
});
