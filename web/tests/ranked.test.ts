/** The console's one ranked registry (JSON Forms' `rankWith` / `maxBy`), used by the view and field registries. */
import { describe, expect, it } from "vitest";

import type { ActionInfo } from "../src/api/client";
import { FIELD_RENDERERS, type FieldProps } from "../src/components/SchemaForm";
import { NOT_APPLICABLE, type RankedEntry, rankWith, rankedRegistry } from "../src/components/ranked";
import { VIEWS, viewFor } from "../src/views/registry";

interface Entry extends RankedEntry<number> {
  label: string;
}

const entry = (name: string, rank: (n: number) => number): Entry => ({ name, rank, label: name.toUpperCase() });

describe("ranked registry", () => {
  it("rankWith rates a subject that applies and refuses the rest", () => {
    const even = rankWith<number>(7, (n) => n % 2 === 0);
    expect(even(2)).toBe(7);
    expect(even(3)).toBe(NOT_APPLICABLE);
  });

  it("picks the highest rank, whatever the order", () => {
    const reg = rankedRegistry("digit", [entry("low", () => 1), entry("high", () => 5), entry("mid", () => 3)], String);
    expect(reg.select(0).name).toBe("high");
  });

  it("breaks a tie by registration order: the first registered wins", () => {
    const reg = rankedRegistry("digit", [entry("first", () => 2), entry("second", () => 2)], String);
    expect(reg.select(0).name).toBe("first");
    reg.register(entry("later", () => 2));
    expect(reg.select(0).name).toBe("first");
    reg.register(entry("higher", () => 3));
    expect(reg.select(0).name).toBe("higher");
    expect(reg.entries.map((e) => e.name)).toEqual(["first", "second", "later", "higher"]);
  });

  it("rank 0 applies (a fallback), below 0 does not", () => {
    const reg = rankedRegistry("digit", [entry("no", () => NOT_APPLICABLE), entry("fallback", () => 0)], String);
    expect(reg.select(1).name).toBe("fallback");
  });

  it("says which subject nothing matched, with every entry's rank and the fix", () => {
    const odd = entry("odd", rankWith(1, (n) => n % 2 === 1));
    const big = entry("big", rankWith(1, (n) => n > 9));
    const reg = rankedRegistry("digit", [odd, big], (n: number) => `the number ${n}`);
    expect(() => reg.select(4)).toThrow("no digit applies to the number 4 (ranks: odd -1, big -1): register a digit whose tester ranks it 0 or above");
    expect(() => rankedRegistry<number, Entry>("digit", [], String).select(1)).toThrow("(ranks: none registered)");
  });

  it("refuses a second entry of one name", () => {
    const reg = rankedRegistry("digit", [entry("odd", () => 1)], String);
    expect(() => reg.register(entry("odd", () => 2))).toThrow('a digit named "odd" is already registered');
  });
});

describe("the console's registries use it", () => {
  const action = (alias: ActionInfo["alias"]): ActionInfo => ({ name: "aget_x", alias, paramsSchema: {}, retSchema: {} });
  const field = (extra: Partial<FieldProps>): FieldProps => ({
    name: "f",
    label: "F",
    schema: {},
    root: {},
    required: false,
    readOnly: false,
    value: undefined,
    onChange: () => undefined,
    ...extra,
  });

  it("views: the tools list outranks the generic table; anything else falls back to the form", () => {
    expect(viewFor(action({ category: "pageable", resource: "tool", resourceOpType: "get_list" })).name).toBe("tools");
    expect(viewFor(action({ category: "pageable", resource: "doc", resourceOpType: "get_list" })).name).toBe("table");
    expect(viewFor(action({ category: null, resource: "prompt", resourceOpType: "render" })).name).toBe("form");
    expect(VIEWS.entries.map((v) => v.name)).toEqual(["tools", "table", "graph", "form"]);
  });

  it("fields: options beat an enum, an enum beats its type, the JSON editor is the fallback", () => {
    const pick = (p: FieldProps) => FIELD_RENDERERS.select(p).name;
    expect(pick(field({ schema: { type: "string", enum: ["a"] }, options: [{ label: "A", value: "a" }] }))).toBe("options");
    expect(pick(field({ schema: { type: "string", enum: ["a"] } }))).toBe("enum");
    expect(pick(field({ schema: { type: "string" } }))).toBe("string");
    expect(pick(field({ schema: { type: "array", items: { type: "string" } } }))).toBe("tags");
    expect(pick(field({ schema: { type: "object", properties: { a: { type: "string" } } } }))).toBe("object");
    expect(pick(field({ schema: { type: "object" } }))).toBe("json");
  });
});
