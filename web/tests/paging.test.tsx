// @vitest-environment jsdom
/**
 * Paging from the server's declaration (`x-paging` on the container and on the parameters that drive
 * it), and the list controller that pages with it — `fetch` replaced by a transport double.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { ActionInfo } from "../src/api/client";
import { ComponentProvider } from "../src/components/context";
import { declaredMode, filterFields, pagingOf } from "../src/protocol/paging";
import type { Schema } from "../src/protocol/schema";
import { useListController } from "../src/views/useListController";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const pageList: Schema = {
  type: "object",
  "x-paging": { mode: "page" },
  properties: { items: { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } }, total: { type: "integer" } },
};
const cursorList: Schema = {
  $ref: "#/$defs/Page",
  $defs: { Page: { type: "object", "x-paging": { mode: "cursor" }, properties: { items: { type: "array" }, nextCursor: { type: "string" } } } },
};
const params = (properties: Record<string, Schema>, required: string[] = []): Schema => ({ type: "object", properties, required });

describe("paging from the protocol", () => {
  it("reads the mode from the container, through its $ref", () => {
    expect(declaredMode(pageList)).toBe("page");
    expect(declaredMode(cursorList)).toBe("cursor");
    expect(declaredMode({ type: "object", properties: { items: { type: "array" } } })).toBe("none");
  });

  it("takes the parameters that declare a role, whatever their names", () => {
    const p = params({
      number: { type: "integer", "x-paging": "page" },
      limit: { type: "integer", "x-paging": "pageSize", default: 50, maximum: 200 },
      q: { type: "string" },
    });
    expect(pagingOf(p, pageList)).toEqual({ mode: "page", pageParam: "number", sizeParam: "limit", cursorParam: undefined, maxSize: 200, defaultSize: 50 });
    expect(filterFields(p).map((f) => f.name)).toEqual(["q"]);
  });

  it("never guesses from names: an undeclared `cursor` or `page` is the list's own parameter", () => {
    // A page-numbered list whose container also has a `cursor` field used to be paged by cursor.
    const withCursorField: Schema = { ...pageList, properties: { ...pageList.properties, cursor: { type: "string" } } };
    const p = params({ page: { type: "integer", "x-paging": "page" }, cursor: { type: "string" } });
    expect(pagingOf(p, withCursorField).mode).toBe("page");
    expect(filterFields(p).map((f) => f.name)).toEqual(["cursor"]);
    const undeclared = params({ page: { type: "integer" }, page_size: { type: "integer" } });
    expect(pagingOf(undeclared, pageList)).toMatchObject({ mode: "none", pageParam: undefined, sizeParam: undefined, defaultSize: 20, maxSize: 1000 });
  });

  it("a cursor list pages by its cursor parameter, and an optional cursor (anyOf null) keeps its role", () => {
    const p = params({ cursor: { anyOf: [{ type: "string" }, { type: "null" }], "x-paging": "cursor" }, page_size: { type: "integer", "x-paging": "pageSize" } });
    expect(pagingOf(p, cursorList)).toMatchObject({ mode: "cursor", cursorParam: "cursor", sizeParam: "page_size", pageParam: undefined });
  });
});

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });

/** The controller of `action` against a server that answers each call's body with `respond`. */
function controller(action: ActionInfo, respond: (body: Record<string, unknown>) => Response) {
  const bodies: Record<string, unknown>[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (_url: string, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body ?? "{}")) as Record<string, unknown>;
      bodies.push(body);
      return respond(body);
    }),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = (props: { children: ReactNode }) => (
    <QueryClientProvider client={client}>
      <ComponentProvider robot="demo" component="memory" actions={[action]}>
        {props.children}
      </ComponentProvider>
    </QueryClientProvider>
  );
  return { hook: renderHook(() => useListController(action), { wrapper }), bodies };
}

const listAction = (paramsSchema: Schema, retSchema: Schema): ActionInfo => ({
  name: "aget_rows",
  alias: { category: "pageable", resource: "row", resourceOpType: "get_list" },
  paramsSchema,
  retSchema,
});

describe("list controller", () => {
  it("pages by cursor: Next sends the answer's nextCursor, Previous goes back, a new size starts again", async () => {
    const action = listAction(
      params({ cursor: { type: "string", "x-paging": "cursor" }, page_size: { type: "integer", "x-paging": "pageSize", default: 2 } }),
      cursorList,
    );
    const { hook, bodies } = controller(action, (b) =>
      json({ items: [{ id: b.cursor ?? "first" }], nextCursor: b.cursor === "c2" ? null : b.cursor ? "c2" : "c1" }),
    );
    await waitFor(() => expect(hook.result.current.rows).toHaveLength(1));
    expect(bodies.at(-1)).toEqual({ page_size: 2 });
    expect(hook.result.current.hasPrevious).toBe(false);
    act(() => hook.result.current.next());
    await waitFor(() => expect(hook.result.current.rows[0]?.data.id).toBe("c1"));
    expect(bodies.at(-1)).toEqual({ page_size: 2, cursor: "c1" });
    act(() => hook.result.current.next());
    await waitFor(() => expect(hook.result.current.hasNext).toBe(false));
    expect(hook.result.current.page).toBe(3);
    act(() => hook.result.current.previous());
    await waitFor(() => expect(hook.result.current.page).toBe(2));
    act(() => hook.result.current.setPageSize(50));
    await waitFor(() => expect(bodies.at(-1)).toEqual({ page_size: 50 }));
    expect(hook.result.current.page).toBe(1);
  });

  it("pages by number with the count from total, and waits for a required filter", async () => {
    const action = listAction(params({ query: { type: "string" }, page: { type: "integer", "x-paging": "page" } }, ["query"]), pageList);
    const { hook, bodies } = controller(action, (b) => json({ items: [{ id: b.page }], total: 45 }));
    expect(hook.result.current.unfilled.map((f) => f.name)).toEqual(["query"]);
    expect(bodies).toHaveLength(0);
    act(() => hook.result.current.apply({ query: "tea" }));
    await waitFor(() => expect(hook.result.current.rows).toHaveLength(1));
    expect(bodies.at(-1)).toEqual({ query: "tea", page: 1 });
    expect(hook.result.current.pageCount).toBe(3);
    act(() => hook.result.current.setPage(3));
    await waitFor(() => expect(hook.result.current.rows[0]?.data.id).toBe(3));
  });

  it("carries the server's error to the view", async () => {
    const action = listAction(params({}), pageList);
    const { hook } = controller(action, () => new Response(JSON.stringify({ error: "internal", message: "the store is down" }), { status: 500 }));
    await waitFor(() => expect(hook.result.current.error?.message).toContain("the store is down"));
    expect(hook.result.current.rows).toEqual([]);
  });
});
