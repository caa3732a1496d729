/**
 * The protocol's one JMESPath, in the browser: `evaluate(expression, data)` gives the value the
 * server's `tfrobotserver.actions.expressions.evaluate` gives, for every expression and document.
 *
 * The parser is `@jmespath-community/jmespath`'s (it passes the official compliance suite's
 * syntax cases); the evaluator is ours, because no published evaluator reproduces the server's:
 * that package implements the community specification (string slices, `'\\'` read as one
 * backslash, `let`, arithmetic, `$`, extra functions) and jmespath.js 0.16 coerces `null < 5` to
 * true. So, mirroring the server step for step:
 *
 * 1. `lex` enforces Python jmespath's lexical rules (its alphabet, `-` only before a digit, a
 *    lone `=` refused), reads raw strings and backtick literals exactly as its lexer does
 *    (literals must be JSON with finite numbers), and hands the parser canonical literals;
 * 2. `check` refuses what the server refuses at compile time: community-only syntax, unknown
 *    functions, wrong arity, a zero slice step, an `&expr` outside an expression argument;
 * 3. `visit` is Python jmespath's TreeInterpreter with the server's fixes: ordering of two
 *    numbers or two strings (code points) else null, JSON equality, own properties only.
 */
import { compile } from "@jmespath-community/jmespath";

import {
  EXPREF_SLOTS,
  Expref,
  ExpressionError,
  FUNCTION_NAMES,
  type Json,
  type Value,
  arityOf,
  callFunction,
  compareStrings,
  isObject,
  jsonEqual,
  setOwn,
} from "./jmespathFunctions";

export { ExpressionError, type Json } from "./jmespathFunctions";

type Node = ReturnType<typeof compile>;

/** Longer expressions are refused before parsing (schemas carry short expressions). */
export const MAX_EXPRESSION_CHARS = 4096;
/** At most this many nesting tokens — ( [ [? { ! & — so that neither side's stack overflows. */
export const MAX_NESTING = 128;

const PUNCTUATION = new Set([...".*@[](){}:,|&!<>=- \t\n\r"]);
const IDENT = /[A-Za-z0-9_]/;

/** Python's `_consume_until`: a backslash keeps itself and the next character. */
function until(expr: string, start: number, quote: string): { text: string; end: number } {
  let i = start + 1;
  let text = "";
  while (expr[i] !== quote) {
    if (i >= expr.length) throw new ExpressionError("syntax", expr, `unclosed ${quote} starting at ${start}`);
    if (expr[i] === "\\") text += expr[i++];
    if (i >= expr.length) throw new ExpressionError("syntax", expr, `unclosed ${quote} starting at ${start}`);
    text += expr[i++];
  }
  return { text, end: i + 1 };
}

function finite(v: Json): boolean {
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(finite);
  return isObject(v) ? Object.values(v).every(finite) : true;
}

/** A backtick literal for the parser: JSON with no backtick characters left to escape. */
function canonical(value: Json): string {
  return "`" + JSON.stringify(value).replaceAll("`", "\\u0060") + "`";
}

/**
 * Nesting tokens, counted the same way as the server's `_nesting`: ( { [ (not []) ! (not !=)
 * & (not &&) outside quotes, and every [ and { inside a backtick literal (JSON parsers recurse).
 */
export function nesting(expr: string): number {
  let count = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i] as string;
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < expr.length && expr[i] !== c; i++) {
        if (expr[i] === "\\") i++;
        else if (c === "`" && (expr[i] === "[" || expr[i] === "{")) count++;
      }
    } else if (c === "(" || c === "{" || c === "!" || c === "&") {
      count++;
      if ((c === "!" && expr[i + 1] === "=") || (c === "&" && expr[i + 1] === "&")) {
        count--;
        i++;
      }
    } else if (c === "[" && expr[i + 1] !== "]") count++;
  }
  return count;
}

function lex(expr: string): string {
  let out = "";
  for (let i = 0; i < expr.length; ) {
    const c = expr[i] as string;
    if (c === "'") {
      const { text, end } = until(expr, i, "'");
      out += canonical(text.replaceAll("\\'", "'"));
      i = end;
    } else if (c === "`") {
      const { text, end } = until(expr, i, "`");
      let value: Json;
      try {
        value = JSON.parse(text.replaceAll("\\`", "`")) as Json;
      } catch {
        throw new ExpressionError("syntax", expr, `literal \`${text}\` is not JSON (quote strings: \`"text"\` or 'text')`);
      }
      if (!finite(value)) throw new ExpressionError("syntax", expr, `literal \`${text}\` holds a number beyond a double`);
      out += canonical(value);
      i = end;
    } else if (c === '"') {
      const { end } = until(expr, i, '"');
      out += expr.slice(i, end);
      i = end;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      let j = i + 1;
      while (j < expr.length && (expr[j] as string) >= "0" && (expr[j] as string) <= "9") j++;
      if (c === "-" && j === i + 1) throw new ExpressionError("syntax", expr, `'-' at ${i} must start a number`);
      out += `${expr.slice(i, j)} `;
      i = j;
    } else if (c === "=" && expr[i + 1] !== "=") {
      throw new ExpressionError("syntax", expr, `'=' at ${i}: write '==' to compare`);
    } else if (c === "=" || c === "!" || c === "<" || c === ">" || c === "&" || c === "|") {
      const two = expr.slice(i, i + 2);
      const pair = ["==", "!=", "<=", ">=", "&&", "||"].includes(two);
      out += pair ? two : c;
      i += pair ? 2 : 1;
    } else if (IDENT.test(c)) {
      let j = i + 1;
      while (j < expr.length && IDENT.test(expr[j] as string)) j++;
      out += expr.slice(i, j);
      i = j;
    } else if (c === "[" && expr[i + 1] === "?") {
      out += "[?";
      i += 2;
    } else if (PUNCTUATION.has(c)) {
      out += c;
      i++;
    } else {
      throw new ExpressionError("syntax", expr, `unknown character ${JSON.stringify(c)} at ${i}`);
    }
  }
  return out;
}

const OFFICIAL = new Set([
  "Field", "Subexpression", "IndexExpression", "Index", "Slice", "Projection", "ValueProjection", "FilterProjection",
  "Flatten", "Comparator", "Identity", "Current", "Literal", "MultiSelectList", "MultiSelectHash", "KeyValuePair",
  "OrExpression", "AndExpression", "NotExpression", "Pipe", "Function", "ExpressionReference",
]); // prettier-ignore

/** Children in the order the server's AST lists them (its checks run in pre-order). */
function children(node: Node): Node[] {
  const n = node as unknown as Record<string, unknown>;
  if (node.type === "FilterProjection") return [node.left, node.right, node.condition];
  if (node.type === "Function" || node.type === "MultiSelectList") return node.children;
  if (node.type === "MultiSelectHash") return node.children.map((kv) => kv.value);
  return (["left", "right", "child"] as const).filter((k) => k in n).map((k) => n[k] as Node);
}

function check(expr: string, node: Node, exprefOk = false): void {
  if (!OFFICIAL.has(node.type)) throw new ExpressionError("syntax", expr, `${node.type} is not JMESPath`);
  if (node.type === "ExpressionReference" && !exprefOk) {
    throw new ExpressionError("invalid-type", expr, "&expr is only an argument of map, sort_by, min_by and max_by");
  }
  if (node.type === "Slice" && node.step === 0) throw new ExpressionError("invalid-value", expr, "a slice step cannot be 0");
  let slot: number | undefined;
  if (node.type === "Function") {
    const arity = arityOf(node.name);
    const got = node.children.length;
    if (!arity) throw new ExpressionError("unknown-function", expr, `unknown function ${node.name}(); use one of ${FUNCTION_NAMES.join(", ")}`);
    if (got < arity.min || (got > arity.min && !arity.variadic)) {
      const want = arity.variadic ? `at least ${arity.min}` : String(arity.min);
      throw new ExpressionError("invalid-arity", expr, `${node.name}() takes ${want} argument(s), got ${got}`);
    }
    slot = Object.hasOwn(EXPREF_SLOTS, node.name) ? EXPREF_SLOTS[node.name] : undefined;
  }
  children(node).forEach((child, i) => check(expr, child, i === slot));
}

const cache = new Map<string, Node>();

/** Parse and check once (bounded cache); throws `ExpressionError` for a refused expression. */
export function compileExpression(expr: string): Node {
  const hit = cache.get(expr);
  if (hit) return hit;
  if (expr.length > MAX_EXPRESSION_CHARS) {
    throw new ExpressionError("invalid-value", expr.slice(0, 40), `longer than ${MAX_EXPRESSION_CHARS} characters`);
  }
  if (nesting(expr) > MAX_NESTING) throw new ExpressionError("invalid-value", expr, `nests more than ${MAX_NESTING} levels`);
  const source = lex(expr);
  let node: Node;
  try {
    node = compile(source);
  } catch (err) {
    throw new ExpressionError("syntax", expr, err instanceof Error ? err.message : String(err));
  }
  check(expr, node);
  if (cache.size >= 1024) cache.delete(cache.keys().next().value as string);
  cache.set(expr, node);
  return node;
}

function isFalse(v: Value): boolean {
  if (v === null || v === false || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/** Python's slice(start, stop, step).indices(length), then the selected elements. */
function slice(items: Json[], start: number | null, stop: number | null, step: number | null): Json[] {
  const by = step ?? 1;
  const len = items.length;
  const [lower, upper] = by > 0 ? [0, len] : [-1, len - 1];
  const clamp = (v: number | null, dflt: number) => {
    if (v === null) return dflt;
    const x = v < 0 ? v + len : v;
    return x < lower ? lower : x > upper ? upper : x;
  };
  const from = clamp(start, by > 0 ? lower : upper);
  const to = clamp(stop, by > 0 ? upper : lower);
  const out: Json[] = [];
  for (let i = from; by > 0 ? i < to : i > to; i += by) out.push(items[i] as Json);
  return out;
}

function collect(items: Json[], each: (item: Json) => Json): Json[] {
  const out: Json[] = [];
  for (const item of items) {
    const v = each(item);
    if (v !== null) out.push(v);
  }
  return out;
}

function visit(node: Node, value: Json): Value {
  switch (node.type) {
    case "Field":
      return isObject(value) && Object.hasOwn(value, node.name) ? (value[node.name] as Json) : null;
    case "Subexpression":
    case "IndexExpression":
    case "Pipe":
      return visit(node.right, visit(node.left, value) as Json);
    case "Index": {
      if (!Array.isArray(value)) return null;
      const i = node.value < 0 ? value.length + node.value : node.value;
      return i >= 0 && i < value.length ? (value[i] as Json) : null;
    }
    case "Slice":
      return Array.isArray(value) ? slice(value, node.start, node.stop, node.step) : null;
    case "Projection": {
      const base = visit(node.left, value);
      return Array.isArray(base) ? collect(base, (el) => visit(node.right, el) as Json) : null;
    }
    case "ValueProjection": {
      const base = visit(node.left, value);
      return isObject(base) ? collect(Object.values(base), (el) => visit(node.right, el) as Json) : null;
    }
    case "FilterProjection": {
      const base = visit(node.left, value);
      if (!Array.isArray(base)) return null;
      return collect(base, (el) => (isFalse(visit(node.condition, el)) ? null : (visit(node.right, el) as Json)));
    }
    case "Flatten": {
      const base = visit(node.child, value);
      return Array.isArray(base) ? base.flatMap((el) => (Array.isArray(el) ? el : [el])) : null;
    }
    case "Comparator": {
      const left = visit(node.left, value) as Json;
      const right = visit(node.right, value) as Json;
      if (node.name === "EQ" || node.name === "NE") return jsonEqual(left, right) === (node.name === "EQ");
      let order: number;
      if (typeof left === "number" && typeof right === "number") order = left - right;
      else if (typeof left === "string" && typeof right === "string") order = compareStrings(left, right);
      else return null;
      return { LT: order < 0, LTE: order <= 0, GT: order > 0, GTE: order >= 0 }[node.name];
    }
    case "Identity":
    case "Current":
      return value;
    case "Literal":
      return node.value;
    case "MultiSelectList":
      return value === null ? null : node.children.map((child) => visit(child, value) as Json);
    case "MultiSelectHash": {
      if (value === null) return null;
      const out: { [key: string]: Json } = {};
      for (const kv of node.children) setOwn(out, kv.name, visit(kv.value, value) as Json);
      return out;
    }
    case "OrExpression": {
      const left = visit(node.left, value);
      return isFalse(left) ? visit(node.right, value) : left;
    }
    case "AndExpression": {
      const left = visit(node.left, value);
      return isFalse(left) ? left : visit(node.right, value);
    }
    case "NotExpression": {
      const v = visit(node.child, value);
      return typeof v === "number" ? false : isFalse(v);
    }
    case "Function":
      return callFunction(
        node.name,
        node.children.map((child) => visit(child, value)),
      );
    case "ExpressionReference":
      return new Expref((el) => visit(node.child, el) as Json);
    default:
      throw new ExpressionError("syntax", "", `${node.type} is not JMESPath`);
  }
}

/** The value of `expression` on `data`, exactly as the server computes it; throws `ExpressionError`. */
export function evaluate(expression: string, data: unknown): Json {
  const node = compileExpression(expression);
  try {
    return visit(node, data as Json) as Json;
  } catch (err) {
    if (err instanceof ExpressionError) throw new ExpressionError(err.kind, expression, err.detail);
    if (err instanceof RangeError) throw new ExpressionError("invalid-value", expression, "nested too deeply to evaluate");
    throw err;
  }
}
