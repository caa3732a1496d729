/**
 * The TFSAction front-end rules ("前端必须"), as one pure function library.
 *
 * - `namespaceOf`: an element's variables from its schema's x-namespace (JMESPath relative to
 *   the element; `Options {labels, keys, values}` projections).
 * - `containerScope` / `mergeScopes`: container variables (page, pageSize …) are visible to every
 *   element and overridden by the element's own variables.
 * - `resolveParams`: fill an action's params: x-ref then x-default first; x-fetch only when both
 *   fail; after a fetch merge its result's root namespace and retry every unresolved param; a
 *   fetch target's own params resolve by the same rules; fetches cached and deduped by action +
 *   canonical JSON of the resolved params (in-flight requests included); more than `FETCH_LIMIT`
 *   calls in one chain, or a cycle, abort with the seed's warning (`ResolverError`).
 *
 * - Expressions are evaluated by `./jmespath` (the server's JMESPath, value for value). One that
 *   fails on the data aborts resolution with `expression_error`; for rendering, `namespaceOf`
 *   shows such a variable as null instead.
 *
 * The Python twin is `tfrobotserver.resolver`; both pass every vector in `conformance/`.
 *
 * I/O is injected (`fetch`), so the same code runs in the browser and against the shared test
 * vectors in `conformance/`.
 */
import { ExpressionError, evaluate } from "./jmespath";
import { type FieldInfo, type Schema, deref, fieldsOf } from "./schema";

export type Scope = Record<string, unknown>;
export type Params = Record<string, unknown>;

export const FETCH_LIMIT = 10;
export const FETCH_LIMIT_WARNING_ZH = "自动补全触发次数过多，已中止，请手动补全参数或检查依赖关系";

/** An evaluated `Options` namespace variable: parallel arrays for a select. */
export interface OptionsValue {
  labels: unknown[];
  keys: unknown[];
  values: unknown;
}

export function isOptions(v: unknown): v is OptionsValue {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return Array.isArray(o.labels) && Array.isArray(o.keys) && "values" in o && Object.keys(o).length === 3;
}

/** JSON with object keys sorted at every level: the fetch cache key of a params object. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

/** JMESPath search that yields `undefined` (not an exception) for null or an expression that fails. */
export function search(data: unknown, expression: string): unknown {
  try {
    const out = evaluate(expression, data);
    return out === null ? undefined : out;
  } catch {
    return undefined;
  }
}

/** Throws `ResolverError` (expression_error) where `search` would give up silently. */
type Evaluator = (where: string, data: unknown, expression: string) => unknown;

const lenient: Evaluator = (_where, data, expression) => search(data, expression);

function strict(chain: string[], prefix: string): Evaluator {
  return (where, data, expression) => {
    try {
      return evaluate(expression, data) ?? undefined;
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      throw new ResolverError(
        "expression_error",
        `${prefix}${where}: ${err.message} — the console shows no value here; fix the expression or the data it reads`,
        chain,
      );
    }
  };
}

function evaluateNamespace(spec: Record<string, unknown>, element: unknown, run: Evaluator): Scope {
  const scope: Scope = {};
  for (const [name, expr] of Object.entries(spec)) {
    const where = `x-namespace.${name}`;
    if (typeof expr === "string") {
      scope[name] = run(where, element, expr) ?? null;
    } else if (expr && typeof expr === "object" && "Options" in expr && expr.Options && typeof expr.Options === "object") {
      const o = expr.Options as Record<string, string>;
      const values = run(`${where}.Options.values`, element, o.values ?? "") ?? null;
      const context = isRecord(element) ? { ...element, values } : { values };
      scope[name] = {
        labels: run(`${where}.Options.labels`, context, o.labels ?? "") ?? null,
        keys: run(`${where}.Options.keys`, context, o.keys ?? "") ?? null,
        values,
      };
    }
  }
  return scope;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The variables one element (row, node, edge, fetched object) injects, from its schema. */
export function namespaceOf(schema: Schema | undefined, element: unknown, root?: Schema, run: Evaluator = lenient): Scope {
  if (!schema) return {};
  const spec = deref(schema, root ?? schema)["x-namespace"];
  return spec && typeof spec === "object" ? evaluateNamespace(spec as Record<string, unknown>, element, run) : {};
}

/** Container scope: the root x-namespace of the result, evaluated on the whole result. */
export function containerScope(retSchema: Schema | undefined, data: unknown): Scope {
  return namespaceOf(retSchema, data, retSchema);
}

/** One element's scope: its element schema's x-namespace (items / nodes / edges). */
export function elementScope(retSchema: Schema, collection: string, element: unknown): Scope {
  const root = deref(retSchema, retSchema);
  const prop = deref(root.properties?.[collection], retSchema);
  return namespaceOf(deref(prop.items, retSchema), element, retSchema);
}

/** Select options for a field whose x-ref/x-default points into an Options variable. */
export function optionsFor(field: FieldInfo, scope: Scope): { label: string; value: unknown }[] | undefined {
  for (const expr of [field.xRef, field.xDefault]) {
    if (!expr) continue;
    const root = /^"?([A-Za-z_$][\w$]*)"?/.exec(expr)?.[1];
    const v = root ? scope[root] : undefined;
    if (isOptions(v)) {
      return v.keys.map((key, i) => ({ value: key, label: String(v.labels[i] ?? key) }));
    }
  }
  return undefined;
}

export interface ActionSchemas {
  paramsSchema: Schema;
  retSchema?: Schema;
}

export type FetchFn = (action: string, params: Params) => Promise<unknown>;

/** Shared by every resolution of one form or render round: results (in flight or done) by key. */
export type FetchCache = Map<string, Promise<unknown>>;

/** The cache key: action + canonical JSON of the resolved params. */
export function fetchKey(action: string, params: Params): string {
  return action + canonicalJson(params);
}

export interface FetchCall {
  action: string;
  params: Params;
}

export type ResolverErrorCode = "fetch_limit" | "fetch_cycle" | "unknown_fetch_target" | "expression_error";

export const CYCLE_WARNING = "自动补全存在循环依赖，已中止，请手动补全参数或检查依赖关系";

/** Resolution aborted: more than `limit` fetches, a cycle, an unknown target, a failing expression. */
export class ResolverError extends Error {
  constructor(
    readonly code: ResolverErrorCode,
    message: string,
    readonly chain: string[],
  ) {
    super(message);
  }
}

export interface Resolution {
  /** Values found through x-ref / x-default; unresolved params are absent, never null. */
  params: Params;
  /** Required params still without a value, in schema order. */
  missing: string[];
  /** Every fetch call made, in order (cache hits are not calls). */
  fetches: FetchCall[];
  /** How each resolved param got its value. */
  sources: Record<string, "x-ref" | "x-default">;
  /** The namespace the chain's fetches brought in (lowest precedence). */
  fetched: Scope;
}

export interface ResolveOptions {
  action: string;
  /** The component's actions: the resolved one and every x-fetch target. */
  actions: Record<string, ActionSchemas>;
  elementScope?: Scope;
  containerScope?: Scope;
  fetch: FetchFn;
  cache?: FetchCache;
  limit?: number;
}

/** Scopes from lowest to highest precedence; a null value does not shadow a lower scope. */
export function mergeScopes(...scopes: Scope[]): Scope {
  const merged: Scope = {};
  for (const scope of scopes) {
    for (const [k, v] of Object.entries(scope)) {
      if ((v !== null && v !== undefined) || !(k in merged)) merged[k] = v;
    }
  }
  return merged;
}

const UNSET = Symbol("unset");

function lookup(
  field: FieldInfo,
  ns: Scope,
  run: Evaluator = lenient,
): { value: unknown; source: "x-ref" | "x-default" } | typeof UNSET {
  if (field.xRef !== undefined) {
    const v = ns[field.xRef];
    if (v !== null && v !== undefined) return { value: v, source: "x-ref" };
  }
  if (field.xDefault !== undefined) {
    const v = run(`paramsSchema.properties.${field.name}.x-default`, ns, field.xDefault);
    if (v !== null && v !== undefined) return { value: v, source: "x-default" };
  }
  return UNSET;
}

class Chain {
  calls: FetchCall[] = [];
  fetched: Scope = {};

  constructor(
    readonly fetch: FetchFn,
    readonly actions: Record<string, ActionSchemas>,
    readonly cache: FetchCache,
    readonly limit: number,
  ) {}

  async resolve(name: string, element: Scope, container: Scope, stack: string[]): Promise<Resolution> {
    const fields = fieldsOf(this.actions[name]?.paramsSchema);
    const run = strict(stack, `${name}.`);
    const found = new Map<string, { value: unknown; source: "x-ref" | "x-default" }>();
    // A fetch may provide what an earlier param lacked: retry every unresolved param until the
    // fetched namespace stops growing.
    for (let grown = true; grown; ) {
      const before = canonicalJson(this.fetched);
      for (const field of fields) {
        if (found.has(field.name)) continue;
        let hit = lookup(field, mergeScopes(this.fetched, container, element), run);
        if (hit === UNSET && field.xFetch !== undefined) {
          await this.fetchInto(field.xFetch, element, container, stack);
          hit = lookup(field, mergeScopes(this.fetched, container, element), run);
        }
        if (hit !== UNSET) found.set(field.name, hit);
      }
      grown = canonicalJson(this.fetched) !== before;
    }
    const out: Resolution = { params: {}, missing: [], fetches: this.calls, sources: {}, fetched: this.fetched };
    for (const field of fields) {
      const hit = found.get(field.name);
      if (hit) {
        out.params[field.name] = hit.value;
        out.sources[field.name] = hit.source;
      } else if (field.required) out.missing.push(field.name);
    }
    return out;
  }

  private async fetchInto(target: string, element: Scope, container: Scope, stack: string[]): Promise<void> {
    const chain = [...stack, target];
    if (stack.includes(target)) {
      throw new ResolverError(
        "fetch_cycle",
        `${CYCLE_WARNING} — x-fetch dependency cycle ${chain.join(" → ")}; aborted. Fill the parameters manually or break the cycle.`,
        chain,
      );
    }
    const schemas = this.actions[target];
    if (!schemas) {
      throw new ResolverError(
        "unknown_fetch_target",
        `x-fetch names "${target}", which is not among the component's actions [${Object.keys(this.actions).sort().join(", ")}]`,
        chain,
      );
    }
    const { params, missing } = await this.resolve(target, element, container, chain);
    if (missing.length) return; // the fetch cannot be called; its dependants stay unresolved
    const key = fetchKey(target, params);
    let pending = this.cache.get(key);
    if (!pending) {
      const call = { action: target, params };
      if (this.calls.length >= this.limit) {
        const done = [...this.calls, call].map((c) => `${c.action}(${canonicalJson(c.params)})`);
        throw new ResolverError(
          "fetch_limit",
          `${FETCH_LIMIT_WARNING_ZH} — more than ${this.limit} automatic x-fetch calls in one resolution chain; ` +
            `aborted. Fill the parameters manually or check the dependencies. Chain: ${done.join(" → ")}`,
          done,
        );
      }
      this.calls.push(call);
      pending = this.fetch(target, params);
      this.cache.set(key, pending);
      pending.catch(() => this.cache.delete(key));
    }
    const result = await pending;
    Object.assign(this.fetched, namespaceOf(schemas.retSchema, result, schemas.retSchema, strict(chain, `${target} result `)));
  }
}

/**
 * Fill `action`'s params from the element and container scopes by the seed's rules, calling
 * `fetch` for x-fetch when needed. Throws `ResolverError` on a cycle, an unknown fetch target or
 * a chain that needs more than `limit` (10) calls. A failing fetch rejects with its own error.
 */
export async function resolveParams(opts: ResolveOptions): Promise<Resolution> {
  const chain = new Chain(opts.fetch, opts.actions, opts.cache ?? new Map(), opts.limit ?? FETCH_LIMIT);
  return chain.resolve(opts.action, opts.elementScope ?? {}, opts.containerScope ?? {}, [opts.action]);
}

/** The console's reading of a resolution: what the form locks, prefills, blocks or warns about. */
export interface UiResolution extends Resolution {
  /** Params filled by x-ref: read-only in the form. */
  locked: string[];
  /** Params prefilled by x-default: editable. */
  prefilled: string[];
  /** A required x-ref param without a value: the action is disabled and not sent with holes. */
  blocked?: string;
  /** The chain was aborted (limit, cycle): the user completes the params by hand. */
  warning?: string;
  errorCode?: ResolverErrorCode;
  /** The merged namespace the params were read from (shown in the form). */
  scope: Scope;
}

/** `resolveParams` for the UI: an aborted chain becomes a warning, a fetch failure a reason. */
export async function resolveForUi(opts: ResolveOptions): Promise<UiResolution> {
  const fields = fieldsOf(opts.actions[opts.action]?.paramsSchema);
  const scope = mergeScopes(opts.containerScope ?? {}, opts.elementScope ?? {});
  let r: Resolution;
  let warning: string | undefined;
  let errorCode: ResolverErrorCode | undefined;
  let fetchError: string | undefined;
  try {
    r = await resolveParams(opts);
  } catch (err) {
    if (err instanceof ResolverError) {
      warning = err.message;
      errorCode = err.code;
    } else fetchError = err instanceof Error ? err.message : String(err);
    // Without fetching: what the element and container scopes alone give.
    r = { params: {}, missing: [], fetches: [], sources: {}, fetched: {} };
    for (const field of fields) {
      const hit = lookup(field, scope);
      if (hit !== UNSET) {
        r.params[field.name] = hit.value;
        r.sources[field.name] = hit.source;
      } else if (field.required) r.missing.push(field.name);
    }
  }
  const locked = Object.keys(r.params).filter((k) => r.sources[k] === "x-ref" && fields.find((f) => f.name === k)?.xDefault === undefined);
  const prefilled = Object.keys(r.params).filter((k) => !locked.includes(k));
  const out: UiResolution = { ...r, locked, prefilled, scope: mergeScopes(r.fetched, scope) };
  if (warning) {
    out.warning = warning;
    if (errorCode) out.errorCode = errorCode;
    return out;
  }
  const hole = fields.find((f) => f.xRef !== undefined && r.missing.includes(f.name));
  if (hole) {
    const via = hole.xFetch ? ` (x-fetch ${hole.xFetch}${fetchError ? ` failed: ${fetchError}` : " did not provide it"})` : "";
    out.blocked = `${hole.name}: variable "${hole.xRef ?? ""}" is not available in this scope${via}`;
  }
  return out;
}

/** Drop unset optional values so that they are omitted from the request, never sent as null. */
export function pruneParams(params: Params, fields: FieldInfo[]): Params {
  const out: Params = {};
  const known = new Map(fields.map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(params)) {
    const f = known.get(k);
    if (v === undefined) continue;
    if ((v === null || v === "") && f && !f.required) continue;
    out[k] = v;
  }
  return out;
}
