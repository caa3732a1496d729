/**
 * The shared resolver vectors in `conformance/resolver/` (written with the Python resolver,
 * `tfrobotserver.resolver`): the TypeScript resolver must give the same scopes, params, missing
 * params, fetch calls and errors for every one.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

import {
  type ActionSchemas,
  type FetchCache,
  type Params,
  ResolverError,
  type Scope,
  canonicalJson,
  containerScope,
  elementScope,
  resolveParams,
} from "../src/protocol/resolver";

const DIR = process.env.CONFORMANCE_DIR ?? resolve(__dirname, "../../conformance/resolver");

interface Vector {
  description: string;
  actions: Record<string, ActionSchemas>;
  scope?: { action: string; data: Record<string, unknown>; collection?: string; index?: number };
  elementScope?: Scope;
  containerScope?: Scope;
  rounds?: { elementScope: Scope; containerScope: Scope }[];
  resolve: string;
  fetchResponses?: { action: string; params?: Params; result: unknown }[];
  expected: {
    containerScope?: Scope;
    elementScope?: Scope;
    params?: Params;
    missing?: string[];
    fetches?: { action: string; params: Params }[];
    error?: { code: string; chain: string[]; messageContains: string[] };
    rounds?: { params: Params; missing: string[]; fetches: { action: string; params: Params }[] }[];
  };
}

const files = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith(".json")).sort() : [];

describe("conformance vectors", () => {
  it("are present", () => {
    expect(files.length, `no vectors in ${DIR}`).toBeGreaterThan(0);
  });

  for (const file of files) {
    const v = JSON.parse(readFileSync(join(DIR, file), "utf8")) as Vector;
    it(`${file}: ${v.description}`, async () => {
      const calls: { action: string; params: Params }[] = [];
      const fetch = async (action: string, params: Params) => {
        calls.push({ action, params });
        const hit = (v.fetchResponses ?? []).find(
          (r) => r.action === action && (r.params === undefined || canonicalJson(r.params) === canonicalJson(params)),
        );
        if (!hit) throw new Error(`unexpected fetch ${action}(${canonicalJson(params)})`);
        return hit.result;
      };
      let element = v.elementScope ?? {};
      let container = v.containerScope ?? {};
      if (v.scope) {
        const ret = v.actions[v.scope.action]?.retSchema ?? {};
        container = containerScope(ret, v.scope.data);
        element = v.scope.collection
          ? elementScope(ret, v.scope.collection, (v.scope.data[v.scope.collection] as unknown[])[v.scope.index ?? 0])
          : {};
        if (v.expected.containerScope) expect(container).toEqual(v.expected.containerScope);
        if (v.expected.elementScope) expect(element).toEqual(v.expected.elementScope);
      }
      const cache: FetchCache = new Map();
      const run = (e: Scope, c: Scope) =>
        resolveParams({ action: v.resolve, actions: v.actions, elementScope: e, containerScope: c, fetch, cache });

      if (v.rounds) {
        for (const [i, round] of v.rounds.entries()) {
          const before = calls.length;
          const r = await run(round.elementScope, round.containerScope);
          const want = v.expected.rounds?.[i];
          expect(r.params).toEqual(want?.params);
          expect(r.missing).toEqual(want?.missing);
          expect(calls.slice(before)).toEqual(want?.fetches);
        }
        return;
      }
      if (v.expected.error) {
        const err = await run(element, container).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ResolverError);
        const re = err as ResolverError;
        expect(re.code).toBe(v.expected.error.code);
        expect(re.chain).toEqual(v.expected.error.chain);
        for (const part of v.expected.error.messageContains) expect(re.message).toContain(part);
        expect(calls).toEqual(v.expected.fetches ?? []);
        return;
      }
      const r = await run(element, container);
      expect(r.params).toEqual(v.expected.params);
      expect(r.missing).toEqual(v.expected.missing);
      expect(r.fetches).toEqual(v.expected.fetches);
      expect(calls).toEqual(v.expected.fetches);
    });
  }
});
