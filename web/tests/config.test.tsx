// @vitest-environment jsdom
/**
 * The component page: its configuration and where it comes from, against the documented actions
 * (`aget_config_provenance`, `arevert_config`) with `fetch` replaced by a transport double.
 */
import { MantineProvider } from "@mantine/core";
import { ModalsProvider } from "@mantine/modals";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { ActionInfo } from "../src/api/client";
import { ConfigView } from "../src/views/ConfigView";
import { ComponentProvider } from "../src/components/context";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const action = (name: string, op: string): ActionInfo => ({
  name,
  alias: { category: null, resource: "config_provenance", resourceOpType: op },
  paramsSchema: { type: "object", properties: {} },
  retSchema: { type: "object" },
});

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });

describe("config view", () => {
  it("says a saved configuration overrides the file, shows the differences and reverts", async () => {
    let saved = true;
    const calls: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        calls.push(url);
        if (url.endsWith("/components")) return json([{ name: "prompt", type: "PromptComponent", config: { template: saved ? "Be brief." : "file" } }]);
        if (url.endsWith("/arevert_config")) {
          saved = false;
          return json({ changed: ["template"], config: { template: "file" } });
        }
        return json(
          saved
            ? { saved: true, differs: true, savedTs: 1, savedBy: "ada", summary: "saved on 2026-12-01 10:00 UTC by ada, differs from the file in template",
                fields: [{ field: "template", fileValue: "file", savedValue: "Be brief.", differs: true }] }
            : { saved: false, differs: false, summary: "the robot file's configuration is in effect (nothing saved through the console)", fields: [] },
        );
      }),
    );
    render(
      <MantineProvider>
        <QueryClientProvider client={new QueryClient()}>
          <ModalsProvider>
            <ComponentProvider robot="demo" component="prompt" actions={[action("aget_config_provenance", "get"), action("arevert_config", "config")]}>
              <ConfigView />
            </ComponentProvider>
          </ModalsProvider>
        </QueryClientProvider>
      </MantineProvider>,
    );
    await waitFor(() => expect(screen.getByTestId("config-provenance").dataset.saved).toBe("true"));
    expect(screen.getByText(/saved on 2026-12-01 10:00 UTC by ada, differs from the file in template/)).toBeTruthy();
    expect(screen.getByTestId("config-differences").textContent).toContain("Be brief.");
    fireEvent.click(screen.getByRole("button", { name: "Revert to the robot file" }));
    fireEvent.click(await screen.findByRole("button", { name: "Revert" }));
    await waitFor(() => expect(screen.getByTestId("config-provenance").dataset.saved).toBe("false"));
    expect(calls.filter((c) => c.endsWith("/arevert_config"))).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId("config-json").textContent).toContain('"file"'));
  });
});
