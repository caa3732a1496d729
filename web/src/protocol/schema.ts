/**
 * JSON Schema helpers for the TFSAction protocol: `$ref`/`$defs` resolution, nullable
 * (`anyOf` with null) unwrapping, field listing with the protocol's x-* keys, and locating the
 * element schemas (items / nodes / edges) that carry x-namespace and x-actions.
 *
 * Pure functions over plain JSON; no React, no I/O.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Schema node as the server sends it (Pydantic's output, x-* keys kept). */
export interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  format?: string;
  enum?: Json[];
  const?: Json;
  default?: Json;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  prefixItems?: Schema[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  "x-namespace"?: Record<string, NamespaceSpec>;
  "x-actions"?: string[];
  "x-ref"?: string;
  "x-default"?: string;
  "x-fetch"?: string;
  [key: string]: unknown;
}

/** An x-namespace value: a JMESPath relative to the element, or an Options projection. */
export type NamespaceSpec = string | { Options: { labels: string; keys: string; values: string } };

const X_KEYS = ["x-ref", "x-default", "x-fetch", "x-namespace", "x-actions"] as const;

/** Follow a local `$ref` (`#/$defs/Name`, `#/definitions/Name`, any JSON pointer) against `root`. */
export function deref(schema: Schema | undefined, root: Schema, depth = 0): Schema {
  if (!schema) return {};
  if (!schema.$ref || depth > 32) return schema;
  const ref = schema.$ref;
  if (!ref.startsWith("#")) return schema;
  let target: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    target = target && typeof target === "object" ? (target as Record<string, unknown>)[part] : undefined;
  }
  if (!target || typeof target !== "object") return schema;
  // Keywords written beside the $ref (title, description, x-*) win over the target's.
  const { $ref: _ignored, ...siblings } = schema;
  return { ...deref(target as Schema, root, depth + 1), ...siblings };
}

function isNullSchema(s: Schema): boolean {
  return s.type === "null" || (s.const === null && s.type === undefined);
}

/**
 * Pydantic writes `Optional[X]` as `anyOf: [X, {type: null}]`. The console renders that as an
 * optional field of type X, so unwrap it, keeping the outer title/description/default and the
 * x-* keys from either level.
 */
export function unwrapNullable(schema: Schema, root: Schema): { schema: Schema; nullable: boolean } {
  const s = deref(schema, root);
  const branches = s.anyOf ?? s.oneOf;
  let nullable = false;
  let inner: Schema = s;
  if (branches && branches.some(isNullSchema)) {
    const rest = branches.filter((b) => !isNullSchema(b));
    nullable = true;
    if (rest.length === 1 && rest[0]) {
      const { anyOf: _a, oneOf: _o, ...outer } = s;
      inner = { ...deref(rest[0], root), ...outer };
      // x-* inside the branch (Annotated inside Optional) must survive the outer spread.
      const branch = deref(rest[0], root);
      for (const k of X_KEYS) if (branch[k] !== undefined && outer[k] === undefined) inner[k] = branch[k] as never;
    } else {
      const { anyOf: _a, oneOf: _o, ...outer } = s;
      inner = { ...outer, anyOf: rest };
    }
  } else if (Array.isArray(s.type) && s.type.includes("null")) {
    nullable = true;
    const types = s.type.filter((t) => t !== "null");
    inner = { ...s, type: types.length === 1 ? types[0] : types };
  }
  if (inner.allOf && inner.allOf.length === 1 && inner.allOf[0]) {
    const { allOf, ...rest } = inner;
    inner = { ...deref(allOf[0], root), ...rest };
  }
  return { schema: inner, nullable };
}

const META_KEYS = ["x-ref", "x-default", "x-fetch"] as const;

/**
 * The x-ref / x-default / x-fetch of one params property, looking into anyOf / oneOf / allOf
 * branches too (`Optional[Annotated[...]]`); keys on the property itself win over a branch's.
 */
export function fieldMeta(prop: Schema, root: Schema): Partial<Record<(typeof META_KEYS)[number], unknown>> {
  const meta: Partial<Record<(typeof META_KEYS)[number], unknown>> = {};
  const node = deref(prop, root);
  for (const branchKey of ["anyOf", "oneOf", "allOf"] as const) {
    for (const branch of node[branchKey] ?? []) {
      if (!branch || typeof branch !== "object") continue;
      const b = deref(branch, root);
      for (const k of META_KEYS) if (k in b && !(k in meta)) meta[k] = b[k];
    }
  }
  for (const k of META_KEYS) if (k in node) meta[k] = node[k];
  return meta;
}

/** One parameter of an action, as the resolver and the form need it. */
export interface FieldInfo {
  name: string;
  schema: Schema;
  required: boolean;
  nullable: boolean;
  xRef?: string;
  xDefault?: string;
  xFetch?: string;
}

/** The top-level fields of an object schema (an action's paramsSchema), in declaration order. */
export function fieldsOf(objectSchema: Schema | undefined, root?: Schema): FieldInfo[] {
  if (!objectSchema) return [];
  const r = root ?? objectSchema;
  const obj = deref(objectSchema, r);
  const required = new Set(obj.required ?? []);
  return Object.entries(obj.properties ?? {}).map(([name, raw]) => {
    const { schema, nullable } = unwrapNullable(raw, r);
    const info: FieldInfo = { name, schema, required: required.has(name), nullable };
    const meta = fieldMeta(raw, r);
    if (typeof meta["x-ref"] === "string") info.xRef = meta["x-ref"];
    if (typeof meta["x-default"] === "string") info.xDefault = meta["x-default"];
    if (typeof meta["x-fetch"] === "string") info.xFetch = meta["x-fetch"];
    return info;
  });
}

/** The primary JSON type of a (dereferenced, unwrapped) schema. */
export function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null");
  if (schema.properties) return "object";
  if (schema.items) return "array";
  if (schema.enum) {
    const first = schema.enum[0];
    return typeof first === "number" ? "number" : typeof first === "boolean" ? "boolean" : "string";
  }
  return undefined;
}

/** Where data lives in a container result and which schema describes one element. */
export interface ElementSlot {
  /** Property of the container: "items", "nodes" or "edges". */
  key: string;
  schema: Schema;
}

/** The element schemas of a container (PageableList items; graph nodes and edges). */
export function elementSlots(retSchema: Schema, keys: readonly string[]): ElementSlot[] {
  const root = retSchema;
  const container = deref(retSchema, root);
  const slots: ElementSlot[] = [];
  for (const key of keys) {
    const prop = container.properties?.[key];
    if (!prop) continue;
    const arr = unwrapNullable(prop, root).schema;
    if (arr.items) slots.push({ key, schema: deref(arr.items, root) });
  }
  return slots;
}

/** Human title of a property: its schema title, else the key split at camelCase. */
export function titleOf(name: string, schema: Schema): string {
  const squash = (t: string) => t.toLowerCase().replace(/[\s_-]/g, "");
  // Pydantic's automatic titles ("Userid" for userId) say less than the key itself.
  if (schema.title && squash(schema.title) !== squash(name)) return schema.title;
  const spaced = name.replace(/_/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2");
  return spaced.replace(/(^|\s)\S/g, (c) => c.toUpperCase());
}
