/**
 * The 26 JMESPath built-in functions as the server evaluates them
 * (`tfrobotserver.actions.expression_functions`): Python `jmespath`'s argument checks, code-point
 * string semantics (length, reverse, ordering), JSON equality, the JSON-number grammar of
 * `to_number`, left-to-right `sum`. Any change here must change the Python twin the same way;
 * `web/tests/jmespath.test.ts` runs both against `conformance/`.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An `&expr` argument: evaluated per element by the function that receives it. */
export class Expref {
  constructor(readonly apply: (value: Json) => Json) {}
}

export type Value = Json | Expref;

/** A JMESPath error with the compliance suite's kind (syntax, invalid-type, …). */
export class ExpressionError extends Error {
  constructor(
    readonly kind: "syntax" | "invalid-type" | "invalid-arity" | "unknown-function" | "invalid-value",
    readonly expression: string,
    readonly detail: string,
  ) {
    super(`JMESPath ${kind} error in ${JSON.stringify(expression)}: ${detail}`);
  }
}

/** Values nested deeper than this are refused by equality and `to_string` (Python's stack). */
export const MAX_VALUE_DEPTH = 256;

export function isObject(v: unknown): v is { [key: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Expref);
}

export function typeName(v: Value): string {
  if (v === null) return "null";
  if (v instanceof Expref) return "expref";
  if (Array.isArray(v)) return "array";
  return typeof v === "object" ? "object" : typeof v;
}

/** An own data property, also for keys such as "__proto__". */
export function setOwn(obj: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function tooDeep(depth: number, what: string): void {
  if (depth > MAX_VALUE_DEPTH) throw new ExpressionError("invalid-value", what, `a value nested deeper than ${MAX_VALUE_DEPTH}`);
}

/** JSON equality: booleans are never numbers; arrays and objects compared member by member. */
export function jsonEqual(a: Json, b: Json, depth = 0): boolean {
  tooDeep(depth, "==");
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i] as Json, depth + 1));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k] as Json, b[k] as Json, depth + 1))
    );
  }
  return a === b;
}

/** Code-point order of two strings (UTF-16 code-unit order differs above U+D7FF). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixup(x) - fixup(y);
  }
  return a.length - b.length;
}

function fixup(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  return unit >= 0xd800 ? unit + 0x2000 : unit;
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (u >= 0xd800 && u <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    n++;
  }
  return n;
}

/** `JSON.stringify`, bounded in depth like the server's writer. */
function toJson(v: Json, depth = 0): string {
  tooDeep(depth, "to_string");
  if (Array.isArray(v)) return `[${v.map((x) => toJson(x, depth + 1)).join(",")}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .map((k) => `${JSON.stringify(k)}:${toJson(v[k] as Json, depth + 1)}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

type Check = "any" | "number" | "string" | "array" | "object" | "expref" | "array-number" | "array-string";

interface Spec {
  args: Check[][];
  variadic?: boolean;
  run: (args: Value[], name: string) => Json;
}

function typeError(name: string, v: Value, allowed: Check[]): ExpressionError {
  return new ExpressionError("invalid-type", `${name}()`, `got ${typeName(v)}, expected ${allowed.join(" or ")}`);
}

/** Python jmespath's `_type_check_single`: the top-level type, then (for arrays) element types. */
function checkArg(name: string, v: Value, allowed: Check[]): void {
  if (allowed.includes("any")) return;
  const tops: string[] = allowed.map((a) => (a.startsWith("array") ? "array" : a));
  if (!tops.includes(typeName(v))) throw typeError(name, v, allowed);
  const subs = allowed.filter((a) => a.startsWith("array-")).map((a) => a.slice(6));
  if (!subs.length || !Array.isArray(v)) return;
  const first = v.length ? typeName(v[0] as Json) : undefined;
  const want = subs.length === 1 ? subs[0] : first;
  if (subs.length > 1 && first !== undefined && !subs.includes(first)) throw typeError(name, v[0] as Json, allowed);
  for (const el of v) if (typeName(el) !== want) throw typeError(name, el, allowed);
}

const num = (v: Value) => v as number;
const arr = (v: Value) => v as Json[];
const obj = (v: Value) => v as { [key: string]: Json };
const fn = (v: Value) => v as Expref;

function compareValues(a: Json, b: Json): number {
  return typeof a === "string" ? compareStrings(a, b as string) : (a as number) - (b as number);
}

function add(values: Json[]): number {
  let total = 0;
  for (const v of values) total += v as number;
  return total;
}

function extreme(values: Json[], sign: number): Json {
  let best: Json = null;
  values.forEach((v, i) => {
    if (i === 0 || sign * compareValues(v, best) > 0) best = v;
  });
  return best;
}

function keyed(name: string, items: Json[], expref: Expref): { item: Json; key: Json }[] {
  let want = "";
  return items.map((item, i) => {
    const key = expref.apply(item);
    const kind = typeName(key);
    if (i === 0) {
      want = kind;
      if (kind !== "number" && kind !== "string") throw typeError(name, key, ["number", "string"]);
    } else if (kind !== want) throw typeError(name, key, [want as Check]);
    return { item, key };
  });
}

function extremeBy(name: string, items: Json[], expref: Expref, sign: number): Json {
  let best: { item: Json; key: Json } | undefined;
  for (const entry of keyed(name, items, expref)) {
    if (!best || sign * compareValues(entry.key, best.key) > 0) best = entry;
  }
  return best ? best.item : null;
}

const FUNCTIONS: Record<string, Spec> = {
  abs: { args: [["number"]], run: ([x]) => Math.abs(num(x as Value)) },
  avg: { args: [["array-number"]], run: ([x]) => (arr(x as Value).length ? add(arr(x as Value)) / arr(x as Value).length : null) },
  ceil: { args: [["number"]], run: ([x]) => Math.ceil(num(x as Value)) },
  floor: { args: [["number"]], run: ([x]) => Math.floor(num(x as Value)) },
  contains: {
    args: [["array", "string"], ["any"]],
    run: ([subject, search]) =>
      typeof subject === "string"
        ? typeof search === "string" && subject.includes(search)
        : arr(subject as Value).some((el) => jsonEqual(el, search as Json)),
  },
  ends_with: { args: [["string"], ["string"]], run: ([s, x]) => (s as string).endsWith(x as string) },
  starts_with: { args: [["string"], ["string"]], run: ([s, x]) => (s as string).startsWith(x as string) },
  join: { args: [["string"], ["array-string"]], run: ([sep, xs]) => (arr(xs as Value) as string[]).join(sep as string) },
  keys: { args: [["object"]], run: ([o]) => Object.keys(obj(o as Value)) },
  values: { args: [["object"]], run: ([o]) => Object.values(obj(o as Value)) },
  length: {
    args: [["string", "array", "object"]],
    run: ([x]) => (typeof x === "string" ? codePointLength(x) : Array.isArray(x) ? x.length : Object.keys(obj(x as Value)).length),
  },
  map: { args: [["expref"], ["array"]], run: ([f, xs]) => arr(xs as Value).map((el) => fn(f as Value).apply(el)) },
  max: { args: [["array-number", "array-string"]], run: ([xs]) => extreme(arr(xs as Value), 1) },
  min: { args: [["array-number", "array-string"]], run: ([xs]) => extreme(arr(xs as Value), -1) },
  max_by: { args: [["array"], ["expref"]], run: ([xs, f]) => extremeBy("max_by", arr(xs as Value), fn(f as Value), 1) },
  min_by: { args: [["array"], ["expref"]], run: ([xs, f]) => extremeBy("min_by", arr(xs as Value), fn(f as Value), -1) },
  merge: {
    args: [["object"]],
    variadic: true,
    run: (objects, name) => {
      const out: { [key: string]: Json } = {};
      for (const o of objects) {
        checkArg(name, o, ["object"]);
        for (const [k, v] of Object.entries(obj(o))) setOwn(out, k, v);
      }
      return out;
    },
  },
  not_null: { args: [["any"]], variadic: true, run: (xs) => (xs.find((x) => x !== null) as Json | undefined) ?? null },
  reverse: {
    args: [["array", "string"]],
    run: ([x]) => (typeof x === "string" ? Array.from(x).reverse().join("") : [...arr(x as Value)].reverse()),
  },
  sort: { args: [["array-string", "array-number"]], run: ([xs]) => [...arr(xs as Value)].sort(compareValues) },
  sort_by: {
    args: [["array"], ["expref"]],
    run: ([xs, f]) => keyed("sort_by", arr(xs as Value), fn(f as Value)).sort((a, b) => compareValues(a.key, b.key)).map((e) => e.item),
  },
  sum: { args: [["array-number"]], run: ([xs]) => add(arr(xs as Value)) },
  to_array: { args: [["any"]], run: ([x]) => (Array.isArray(x) ? x : [x as Json]) },
  to_number: {
    args: [["any"]],
    run: ([x]) => {
      if (typeof x === "number") return x;
      if (typeof x !== "string" || !JSON_NUMBER.test(x)) return null;
      const n = Number(x);
      return Number.isFinite(n) ? n : null;
    },
  },
  to_string: { args: [["any"]], run: ([x]) => (typeof x === "string" ? x : toJson(x as Json)) },
  type: { args: [["any"]], run: ([x]) => typeName(x as Value) },
};

/** Arity of `name`, or undefined for an unknown function: checked when an expression compiles. */
export function arityOf(name: string): { min: number; variadic: boolean } | undefined {
  const spec = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  return spec && { min: spec.args.length, variadic: spec.variadic ?? false };
}

/** The function slots that take an `&expr` (every other place refuses one). */
export const EXPREF_SLOTS: Record<string, number> = { map: 0, sort_by: 1, min_by: 1, max_by: 1 };

export const FUNCTION_NAMES = Object.keys(FUNCTIONS).sort();

/** Call a built-in with evaluated arguments (arity was checked at compile time). */
export function callFunction(name: string, args: Value[]): Json {
  const spec = FUNCTIONS[name] as Spec;
  spec.args.forEach((allowed, i) => checkArg(name, args[i] as Value, allowed));
  return spec.run(args, name);
}
