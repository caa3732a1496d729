import { describe, expect, it } from "vitest";

import {
  type ActionSchemas,
  FETCH_LIMIT,
  FETCH_LIMIT_WARNING_ZH,
  type Params,
  ResolverError,
  canonicalJson,
  containerScope,
  elementScope,
  fetchKey,
  mergeScopes,
  namespaceOf,
  optionsFor,
  pruneParams,
  resolveForUi,
  resolveParams,
} from "../src/protocol/resolver";
import { type Schema, fieldsOf } from "../src/protocol/schema";

const doc: Schema = {
  type: "object",
  properties: { docId: { type: "integer" }, keywords: { type: "array", items: { type: "string" } } },
  "x-namespace": { docId: "docId", keywords: "keywords", first: "keywords[0]" },
  "x-actions": ["aupdate_doc"],
};

const page: Schema = {
  type: "object",
  $defs: { Doc: doc },
  properties: { items: { type: "array", items: { $ref: "#/$defs/Doc" } }, page: { type: "integer" } },
  "x-namespace": { allDocIds: "items[*].docId" },
};

function action(paramsSchema: Schema, retSchema: Schema = { type: "object" }): ActionSchemas {
  return { paramsSchema, retSchema };
}

function recorder(results: Record<string, unknown>) {
  const calls: { action: string; params: Params }[] = [];
  const fetch = async (name: string, params: Params) => {
    calls.push({ action: name, params });
    await new Promise((r) => setTimeout(r, 1));
    return results[name];
  };
  return { calls, fetch };
}

describe("namespaces", () => {
  it("evaluates x-namespace JMESPath relative to the element", () => {
    expect(namespaceOf(doc, { docId: 3, keywords: ["a", "b"] })).toEqual({ docId: 3, keywords: ["a", "b"], first: "a" });
    expect(namespaceOf(doc, { docId: 4 })).toEqual({ docId: 4, keywords: null, first: null });
  });

  it("shows a variable whose expression fails on the row as null (the resolver aborts instead)", async () => {
    const row: Schema = { "x-namespace": { size: "length(docId)", docId: "docId", cheap: "price < `5`" } };
    expect(namespaceOf(row, { docId: 3, price: "4" })).toEqual({ size: null, docId: 3, cheap: null });
    const act = action({ type: "object", properties: { n: { type: "number", "x-default": "length(docId)" } } });
    const err = await resolveParams({ action: "act", actions: { act }, elementScope: { docId: 3 }, fetch: async () => null }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ResolverError);
    expect((err as ResolverError).code).toBe("expression_error");
    const ui = await resolveForUi({ action: "act", actions: { act }, elementScope: { docId: 3 }, fetch: async () => null });
    expect(ui.errorCode).toBe("expression_error");
    expect(ui.warning).toContain("act.paramsSchema.properties.n.x-default");
  });

  it("follows $ref to the element schema", () => {
    expect(elementScope(page, "items", { docId: 7, keywords: [] })).toEqual({ docId: 7, keywords: [], first: null });
  });

  it("builds Options {labels, keys, values} for selects", () => {
    const schema: Schema = {
      "x-namespace": {
        userOptions: { Options: { labels: "values[*].name", keys: "values[*].id", values: "users" } },
      },
    };
    const ns = namespaceOf(schema, { users: [{ id: "u1", name: "Ann" }, { id: "u2", name: "Bo" }] });
    expect(ns.userOptions).toEqual({
      labels: ["Ann", "Bo"],
      keys: ["u1", "u2"],
      values: [
        { id: "u1", name: "Ann" },
        { id: "u2", name: "Bo" },
      ],
    });
    const [field] = fieldsOf({ properties: { user: { type: "string", "x-default": "userOptions.keys[1]" } } });
    expect(optionsFor(field!, ns)).toEqual([
      { value: "u1", label: "Ann" },
      { value: "u2", label: "Bo" },
    ]);
  });

  it("lets element variables override container variables, but not with null", () => {
    const container = containerScope(page, { items: [{ docId: 1 }, { docId: 2 }], page: 2, pageSize: 10 });
    expect(container).toEqual({ allDocIds: [1, 2] });
    expect(mergeScopes({ ...container, docId: 99, owner: "a" }, { docId: 2, owner: null })).toEqual({ allDocIds: [1, 2], docId: 2, owner: "a" });
  });
});

describe("resolveForUi", () => {
  const update = action({
    type: "object",
    required: ["doc_id", "keywords"],
    properties: {
      doc_id: { type: "integer", "x-ref": "docId" },
      keywords: { type: "array", items: { type: "string" }, "x-default": "keywords" },
      note: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
    },
  });
  const noFetch = () => Promise.reject(new Error("no fetch expected"));

  it("fills x-ref (locked) and x-default (prefilled) from the row's own scope", async () => {
    const r = await resolveForUi({
      action: "aupdate_doc",
      actions: { aupdate_doc: update },
      elementScope: { docId: 3, keywords: ["k3"] },
      containerScope: { page: 1, docId: 99 },
      fetch: noFetch,
    });
    expect(r.params).toEqual({ doc_id: 3, keywords: ["k3"] });
    expect(r.locked).toEqual(["doc_id"]);
    expect(r.prefilled).toEqual(["keywords"]);
    expect(r.blocked).toBeUndefined();
    expect(r.fetches).toEqual([]);
  });

  it("blocks an action whose required x-ref cannot be resolved and has no x-fetch", async () => {
    const r = await resolveForUi({ action: "aupdate_doc", actions: { aupdate_doc: update }, fetch: noFetch });
    expect(r.blocked).toMatch(/doc_id: variable "docId" is not available/);
    expect(r.params).toEqual({});
  });

  const user: Schema = { type: "object", properties: { id: { type: "string" } }, "x-namespace": { userId: "id" } };
  const needsUser = (name: string) =>
    action({
      type: "object",
      required: ["userId"],
      properties: { userId: { type: "string", "x-ref": "userId", "x-fetch": "aget_current_user" }, [name]: { type: "string" } },
    });

  it("fetches only when x-ref/x-default fail, merges the namespace and retries", async () => {
    const { calls, fetch } = recorder({ aget_current_user: { id: "u-1" } });
    const actions = { a: needsUser("x"), aget_current_user: action({ type: "object", properties: {} }, user) };
    const hit = await resolveForUi({ action: "a", actions, elementScope: { userId: "given" }, fetch });
    expect(hit.params).toEqual({ userId: "given" });
    expect(calls).toEqual([]);
    const miss = await resolveForUi({ action: "a", actions, fetch });
    expect(miss.params).toEqual({ userId: "u-1" });
    expect(miss.fetches).toEqual([{ action: "aget_current_user", params: {} }]);
    expect(calls).toHaveLength(1);
  });

  it("dedupes concurrent fetches of two buttons by action + canonical params", async () => {
    const { calls, fetch } = recorder({ aget_current_user: { id: "u-1" } });
    const actions = { a: needsUser("x"), b: needsUser("y"), aget_current_user: action({ type: "object" }, user) };
    const cache = new Map();
    const [ra, rb] = await Promise.all([
      resolveForUi({ action: "a", actions, fetch, cache }),
      resolveForUi({ action: "b", actions, fetch, cache }),
    ]);
    expect(ra.params).toEqual({ userId: "u-1" });
    expect(rb.params).toEqual({ userId: "u-1" });
    expect(calls).toHaveLength(1);
  });

  function chainOf(n: number, cyclic: boolean): Record<string, ActionSchemas> {
    const actions: Record<string, ActionSchemas> = {
      start: action({ type: "object", required: ["v"], properties: { v: { type: "string", "x-ref": "v1", "x-fetch": "f1" } } }),
    };
    for (let i = 1; i <= n; i += 1) {
      const next = i === n ? (cyclic ? "f1" : undefined) : `f${i + 1}`;
      actions[`f${i}`] = action(
        next
          ? { type: "object", required: ["p"], properties: { p: { type: "string", "x-ref": `v${i + 1}`, "x-fetch": next } } }
          : { type: "object", properties: {} },
        { type: "object", "x-namespace": { [`v${i}`]: "v" } },
      );
    }
    return actions;
  }

  it("stops a chain of more than 10 fetches with the warning, keeping what the scopes give", async () => {
    const { calls, fetch } = recorder(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i + 1}`, { v: `x${i + 1}` }])));
    const r = await resolveForUi({ action: "start", actions: chainOf(12, false), fetch });
    expect(r.warning).toContain(FETCH_LIMIT_WARNING_ZH);
    expect(r.warning).toContain("more than 10");
    expect(r.errorCode).toBe("fetch_limit");
    expect(calls).toHaveLength(FETCH_LIMIT);
    expect(r.blocked).toBeUndefined();
    await expect(resolveParams({ action: "start", actions: chainOf(12, false), fetch })).rejects.toBeInstanceOf(ResolverError);
  });

  it("keeps what the scopes give when the chain is aborted", async () => {
    const actions = chainOf(3, true);
    const start = actions.start as ActionSchemas;
    start.paramsSchema = {
      ...start.paramsSchema,
      properties: { ...start.paramsSchema.properties, row: { type: "integer", "x-ref": "rowId" } },
    };
    const r = await resolveForUi({ action: "start", actions, elementScope: { rowId: 7 }, fetch: noFetch });
    expect(r.errorCode).toBe("fetch_cycle");
    expect(r.params).toEqual({ row: 7 });
    expect(r.locked).toEqual(["row"]);
    expect(r.missing).toEqual(["v"]);
  });

  it("aborts a cyclic x-fetch before any call", async () => {
    const { calls, fetch } = recorder({});
    const r = await resolveForUi({ action: "start", actions: chainOf(3, true), fetch });
    expect(r.errorCode).toBe("fetch_cycle");
    expect(r.warning).toContain("f1 → f2 → f3 → f1");
    expect(calls).toEqual([]);
  });

  it("reports a failing fetch as the reason the action is blocked", async () => {
    const actions = { a: needsUser("x"), aget_current_user: action({ type: "object" }, user) };
    const r = await resolveForUi({ action: "a", actions, fetch: () => Promise.reject(new Error("boom")) });
    expect(r.blocked).toMatch(/aget_current_user failed: boom/);
  });

  it("treats x-ref + x-default as an editable default, not a locked value", async () => {
    const r = await resolveForUi({
      action: "n",
      actions: {
        n: action({
          properties: {
            label: { anyOf: [{ type: "string", "x-ref": "nodeLabel", "x-default": "nodeLabel" }, { type: "null" }], default: null },
          },
        }),
      },
      elementScope: { nodeLabel: "L" },
      fetch: noFetch,
    });
    expect(r.params).toEqual({ label: "L" });
    expect(r.prefilled).toEqual(["label"]);
    expect(r.locked).toEqual([]);
  });
});

describe("canonical params", () => {
  it("sorts keys at every level so equal params share one cache key", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(fetchKey("f", { x: 1, y: 2 })).toBe(fetchKey("f", { y: 2, x: 1 }));
  });

  it("omits unset optional fields instead of sending null", () => {
    const fields = fieldsOf({
      required: ["a"],
      properties: { a: { type: "string" }, b: { anyOf: [{ type: "string" }, { type: "null" }] }, c: { type: "integer" } },
    });
    expect(pruneParams({ a: "", b: null, c: undefined }, fields)).toEqual({ a: "" });
  });
});
