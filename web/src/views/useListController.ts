/**
 * The headless controller of a `get_list` action (react-admin's `useListController` idea): it owns
 * the list's parameters, the page or cursor the user is on, the fetch and its error, and hands the
 * view rows with their scopes; the view (`PageableView`) only renders. How the list pages comes
 * from the protocol's declaration (`protocol/paging`), never from parameter names.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";

import type { ActionInfo } from "../api/client";
import type { Scopes } from "../components/ActionForm";
import { queryKey, useComponent } from "../components/context";
import { type Paging, filterFields, pagingOf } from "../protocol/paging";
import { type Params, type Scope, containerScope, elementScope } from "../protocol/resolver";
import type { FieldInfo } from "../protocol/schema";

/** One row of the list: its data and the scopes its row actions resolve their parameters in. */
export interface ListRow {
  data: Record<string, unknown>;
  scope: Scopes;
}

export interface ListController {
  paging: Paging;
  /** The list's own parameters (everything that does not drive paging), for the filter form. */
  filters: FieldInfo[];
  /** The filter values the list is fetched with. */
  applied: Params;
  /** Required filters still empty: the list is not fetched until they are filled in. */
  unfilled: FieldInfo[];
  /** Fetch with these filters, from the first page. */
  apply: (values: Params) => void;
  /** The 1-based page (mode "page") or the number of pages walked by cursor (mode "cursor"). */
  page: number;
  /** Mode "page": the number of pages `total` makes. */
  pageCount: number;
  setPage: (page: number) => void;
  pageSize: number;
  /** A new size starts again at the first page. */
  setPageSize: (size: number) => void;
  /** Mode "cursor": step back to the previous cursor, forward to `nextCursor`. */
  previous: () => void;
  next: () => void;
  hasPrevious: boolean;
  hasNext: boolean;
  /** The whole answer (the container: items plus page/total/cursor fields), {} before it arrives. */
  data: Record<string, unknown>;
  rows: ListRow[];
  /** The container's x-namespace variables (for container actions and the summary line). */
  container: Scope;
  isFetching: boolean;
  isPending: boolean;
  /** The answer has arrived at least once. */
  hasData: boolean;
  error: Error | null;
  refetch: () => void;
}

function defaultsOf(fields: FieldInfo[]): Params {
  return Object.fromEntries(
    fields.filter((f) => f.schema.default !== undefined && f.schema.default !== null).map((f) => [f.name, f.schema.default]),
  );
}

export function useListController(action: ActionInfo): ListController {
  const ctx = useComponent();
  const paging = useMemo(() => pagingOf(action.paramsSchema, action.retSchema), [action]);
  const filters = useMemo(() => filterFields(action.paramsSchema), [action]);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(paging.defaultSize);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [applied, setApplied] = useState<Params>(() => defaultsOf(filters));
  const unfilled = filters.filter((f) => f.required && applied[f.name] === undefined);

  const params: Params = { ...applied };
  if (paging.sizeParam) params[paging.sizeParam] = pageSize;
  if (paging.pageParam) params[paging.pageParam] = page;
  const cursor = cursors[cursors.length - 1] ?? null;
  if (paging.cursorParam && cursor !== null) params[paging.cursorParam] = cursor;

  const query = useQuery({
    queryKey: queryKey(ctx.robot, ctx.component, action, params),
    queryFn: () => ctx.invoke(action.name, params),
    placeholderData: keepPreviousData,
    enabled: unfilled.length === 0,
  });

  const data = useMemo(
    () => (query.data && typeof query.data === "object" ? query.data : {}) as Record<string, unknown>,
    [query.data],
  );
  const items = useMemo(() => (Array.isArray(data.items) ? (data.items as Record<string, unknown>[]) : []), [data.items]);
  const container = useMemo(() => containerScope(action.retSchema, query.data), [action.retSchema, query.data]);
  const rows = useMemo<ListRow[]>(
    () => items.map((it) => ({ data: it, scope: { element: elementScope(action.retSchema, "items", it), container } })),
    [items, container, action.retSchema],
  );

  const total = typeof data.total === "number" ? data.total : undefined;
  // A mutation emptied the last page: step back to the page that now holds the last rows.
  useEffect(() => {
    if (!query.isFetching && paging.mode === "page" && items.length === 0 && page > 1 && (total ?? 0) > 0) {
      setPage(Math.max(1, Math.ceil((total ?? 0) / pageSize)));
    }
  }, [query.isFetching, paging.mode, items.length, page, total, pageSize]);
  const nextCursor = typeof data.nextCursor === "string" ? data.nextCursor : null;

  return {
    paging,
    filters,
    applied,
    unfilled,
    apply: (values) => {
      setApplied(values);
      setPage(1);
      setCursors([null]);
    },
    page: paging.mode === "cursor" ? cursors.length : page,
    pageCount: Math.max(1, Math.ceil((total ?? rows.length) / pageSize)),
    setPage,
    pageSize,
    setPageSize: (size) => {
      setPageSizeState(size);
      setPage(1);
      setCursors([null]);
    },
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    next: () => {
      if (nextCursor) setCursors((c) => [...c, nextCursor]);
    },
    hasPrevious: cursors.length > 1,
    hasNext: nextCursor !== null,
    data,
    rows,
    container,
    isFetching: query.isFetching,
    isPending: query.isPending,
    hasData: query.data !== undefined,
    error: query.error,
    refetch: () => void query.refetch(),
  };
}
