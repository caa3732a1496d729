/**
 * The paging of a `get_list` action, read from what the server declares (never guessed from
 * parameter names): the list container's `x-paging: {mode: "page" | "cursor"}` says how it pages
 * (`PageableList` → page numbers with `total`, `CursorPageableList` → `nextCursor`), and each
 * parameter that drives it carries `x-paging: "page" | "pageSize" | "cursor"`.
 *
 * A container without a declaration (a bare `BasePageableList`), or one whose mode has no
 * parameter to drive it, is one page: mode "none", no paginator.
 *
 * Pure functions over plain JSON; no React, no I/O.
 */
import { type FieldInfo, type Schema, deref, fieldsOf } from "./schema";

export type PagingMode = "page" | "cursor" | "none";
export type PagingRole = "page" | "pageSize" | "cursor";

export interface Paging {
  mode: PagingMode;
  /** The parameter that takes the 1-based page number (mode "page"). */
  pageParam?: string | undefined;
  /** The parameter that takes the rows per page (either mode; absent: the action's own size). */
  sizeParam?: string | undefined;
  /** The parameter that takes the previous page's `nextCursor` (mode "cursor"). */
  cursorParam?: string | undefined;
  /** The page size's `maximum`, else 1000. */
  maxSize: number;
  /** The page size's `default`, else 20. */
  defaultSize: number;
}

const DEFAULT_SIZE = 20;
const MAX_SIZE = 1000;

/** The mode the list container declares, "none" when it declares none. */
export function declaredMode(retSchema: Schema): PagingMode {
  const declared = deref(retSchema, retSchema)["x-paging"];
  const mode = declared && typeof declared === "object" ? (declared as { mode?: unknown }).mode : undefined;
  return mode === "page" || mode === "cursor" ? mode : "none";
}

function roleOf(field: FieldInfo): PagingRole | undefined {
  const role = field.schema["x-paging"];
  return role === "page" || role === "pageSize" || role === "cursor" ? role : undefined;
}

/** How the console pages the list of an action with these schemas. */
export function pagingOf(paramsSchema: Schema, retSchema: Schema): Paging {
  const params = fieldsOf(paramsSchema);
  const param = (role: PagingRole) => params.find((f) => roleOf(f) === role);
  const size = param("pageSize");
  let mode = declaredMode(retSchema);
  if ((mode === "page" && !param("page")) || (mode === "cursor" && !param("cursor"))) mode = "none";
  return {
    mode,
    pageParam: mode === "page" ? param("page")?.name : undefined,
    sizeParam: size?.name,
    cursorParam: mode === "cursor" ? param("cursor")?.name : undefined,
    maxSize: size?.schema.maximum ?? MAX_SIZE,
    defaultSize: typeof size?.schema.default === "number" ? size.schema.default : DEFAULT_SIZE,
  };
}

/** The list's own parameters (a search query, a conversation id …): every one that does not drive paging. */
export function filterFields(paramsSchema: Schema): FieldInfo[] {
  return fieldsOf(paramsSchema).filter((f) => roleOf(f) === undefined);
}
