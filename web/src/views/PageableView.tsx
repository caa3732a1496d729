/**
 * category=pageable, get_list: a virtualised table (TanStack Table + TanStack Virtual inside a
 * Mantine Table) with a paginator driven by the container's schema: page/pageSize or cursor.
 * Every row gets its own scope: container variables overridden by the row's x-namespace.
 */
import { Alert, Button, Group, Pagination, Paper, Select, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";

import type { ActionInfo } from "../api/client";
import { ActionButtons } from "../components/ActionForm";
import { cellText, toText } from "../components/format";
import { type Scopes } from "../components/ActionForm";
import { FieldRenderer } from "../components/SchemaForm";
import { type Params, containerScope, elementScope, pruneParams } from "../protocol/resolver";
import { type FieldInfo, type Schema, deref, elementSlots, fieldsOf, titleOf } from "../protocol/schema";
import { queryKey, resourceOf, useComponent } from "./context";

const PAGE_SIZES = [10, 20, 50, 100, 200, 500, 1000];
/** One line per cell (full text in the tooltip): rows keep one height for the virtualiser. */
const CELL = { maxWidth: 280, overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" } as const;
/**
 * The row actions stay pinned to the table's right edge however wide the data columns are: at 1280 px
 * a memory table's columns are wider than the view, and the buttons scrolled out of it.
 */
const PINNED = {
  position: "sticky",
  right: 0,
  zIndex: 2,
  background: "var(--mantine-color-body)",
  boxShadow: "-6px 0 6px -6px rgba(0, 0, 0, 0.35)",
} as const;

interface Paging {
  mode: "page" | "cursor";
  pageParam?: string;
  sizeParam?: string;
  cursorParam?: string;
  maxSize: number;
  defaultSize: number;
}

function pagingOf(action: ActionInfo): Paging {
  const container = deref(action.retSchema, action.retSchema);
  const props = container.properties ?? {};
  const params = fieldsOf(action.paramsSchema);
  const find = (...names: string[]) => params.find((f) => names.includes(f.name));
  const size = find("pageSize", "page_size", "limit");
  const mode = "nextCursor" in props || "next_cursor" in props || "cursor" in props ? "cursor" : "page";
  const def = typeof size?.schema.default === "number" ? size.schema.default : 20;
  return {
    mode,
    pageParam: find("page")?.name,
    sizeParam: size?.name,
    cursorParam: find("cursor")?.name,
    maxSize: size?.schema.maximum ?? 1000,
    defaultSize: def,
  };
}

/** The list's own parameters (a search query, a conversation id …): every param the paginator does not set. */
function filterFields(action: ActionInfo, paging: Paging): FieldInfo[] {
  const pagingNames = new Set([paging.pageParam, paging.sizeParam, paging.cursorParam]);
  return fieldsOf(action.paramsSchema).filter((f) => !pagingNames.has(f.name));
}

function defaultsOf(fields: FieldInfo[]): Params {
  return Object.fromEntries(fields.filter((f) => f.schema.default !== undefined && f.schema.default !== null).map((f) => [f.name, f.schema.default]));
}

/**
 * The form above a table whose list action takes more than paging (`asearch_docs`' query,
 * `aget_messages`' conversation): the list is asked for only once every required one is filled in,
 * and "Apply" starts again at the first page.
 */
function FilterForm(props: { action: ActionInfo; fields: FieldInfo[]; applied: Params; onApply: (values: Params) => void }) {
  const [draft, setDraft] = useState<Params>(props.applied);
  return (
    <Paper withBorder p="xs" data-testid="list-params">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onApply(pruneParams(draft, props.fields));
        }}
      >
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <SimpleGrid cols={Math.min(props.fields.length, 3)} style={{ flex: 1 }}>
            {props.fields.map((f) => (
              <FieldRenderer
                key={f.name}
                name={f.name}
                label={titleOf(f.name, f.schema)}
                description={f.schema.description}
                schema={f.schema}
                root={props.action.paramsSchema}
                required={f.required}
                readOnly={false}
                value={draft[f.name]}
                onChange={(v) =>
                  setDraft((prev) => {
                    const next = { ...prev };
                    if (v === undefined) delete next[f.name];
                    else next[f.name] = v;
                    return next;
                  })
                }
              />
            ))}
          </SimpleGrid>
          <Button type="submit" size="sm">
            Apply
          </Button>
        </Group>
      </form>
    </Paper>
  );
}

interface Row {
  data: Record<string, unknown>;
  scope: Scopes;
}

export function PageableView(props: { action: ActionInfo }) {
  const { action } = props;
  const ctx = useComponent();
  const paging = useMemo(() => pagingOf(action), [action]);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(paging.defaultSize);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [renderMs, setRenderMs] = useState<number | null>(null);
  const filters = useMemo(() => filterFields(action, paging), [action, paging]);
  const [applied, setApplied] = useState<Params>(() => defaultsOf(filters));
  const unfilled = filters.filter((f) => f.required && applied[f.name] === undefined);

  const params: Params = { ...applied };
  if (paging.sizeParam) params[paging.sizeParam] = pageSize;
  if (paging.mode === "page" && paging.pageParam) params[paging.pageParam] = page;
  const cursor = cursors[cursors.length - 1] ?? null;
  if (paging.mode === "cursor" && paging.cursorParam && cursor !== null) params[paging.cursorParam] = cursor;

  const query = useQuery({
    queryKey: queryKey(ctx.robot, ctx.component, action, params),
    queryFn: () => ctx.invoke(action.name, params),
    placeholderData: keepPreviousData,
    enabled: unfilled.length === 0,
  });

  const slot = useMemo(() => elementSlots(action.retSchema, ["items"])[0], [action.retSchema]);
  const element: Schema = slot?.schema ?? {};
  const data = (query.data && typeof query.data === "object" ? query.data : {}) as Record<string, unknown>;
  const items = useMemo(() => (Array.isArray(data.items) ? (data.items as Record<string, unknown>[]) : []), [data.items]);
  const container = useMemo(() => containerScope(action.retSchema, query.data), [action.retSchema, query.data]);
  const rows = useMemo<Row[]>(
    () => items.map((it) => ({ data: it, scope: { element: elementScope(action.retSchema, "items", it), container } })),
    [items, container, action.retSchema],
  );

  const sources = useMemo(() => [resourceOf(action)], [action]);
  const columns = useMemo<ColumnDef<Row>[]>(() => {
    const props = Object.entries(element.properties ?? {});
    const cols: ColumnDef<Row>[] = props.map(([key, raw]) => {
      const s = deref(raw, action.retSchema);
      return {
        id: key,
        header: () => <span title={s.description ?? ""}>{titleOf(key, s)}</span>,
        accessorFn: (r) => r.data[key],
        cell: (c) => cellText(key, c.getValue(), s.format),
      };
    });
    if (!props.length) cols.push({ id: "value", header: "Value", accessorFn: (r) => r.data, cell: (c) => toText(c.getValue()) });
    if (element["x-actions"]?.length) {
      cols.push({
        id: "__actions",
        header: "Actions",
        cell: (c) => <ActionButtons names={element["x-actions"]} scope={c.row.original.scope} sources={sources} />,
      });
    }
    return cols;
  }, [element, action.retSchema, sources]);

  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel() });
  const scrollRef = useRef<HTMLDivElement>(null);
  const tableRows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 37,
    overscan: 12,
  });

  // First-render time of each page, for the performance figures (shown, and read by e2e).
  const startedAt = useRef(performance.now());
  useEffect(() => {
    if (query.isFetching) startedAt.current = performance.now();
  }, [query.isFetching]);
  useEffect(() => {
    if (!query.isFetching && query.data !== undefined) {
      requestAnimationFrame(() => setRenderMs(Math.round(performance.now() - startedAt.current)));
    }
  }, [query.isFetching, query.data]);

  const total = typeof data.total === "number" ? data.total : undefined;
  // A mutation emptied the last page: step back to the page that now holds the last rows.
  useEffect(() => {
    if (!query.isFetching && paging.mode === "page" && items.length === 0 && page > 1 && (total ?? 0) > 0) {
      setPage(Math.max(1, Math.ceil((total ?? 0) / pageSize)));
    }
  }, [query.isFetching, paging.mode, items.length, page, total, pageSize]);
  const nextCursor = typeof data.nextCursor === "string" ? data.nextCursor : null;
  const items_ = virtualizer.getVirtualItems();
  const padTop = items_[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items_[items_.length - 1]?.end ?? 0);
  const colCount = table.getVisibleLeafColumns().length;
  const containerActions = deref(action.retSchema, action.retSchema)["x-actions"];
  const containerScopes = useMemo(() => ({ element: {}, container }), [container]);

  return (
    <Stack gap="xs">
      {filters.length > 0 && (
        <FilterForm
          action={action}
          fields={filters}
          applied={applied}
          onApply={(values) => {
            setApplied(values);
            setPage(1);
            setCursors([null]);
          }}
        />
      )}
      <Group justify="space-between">
        <Text size="sm" c="dimmed" data-testid="container-scope">
          {[
            ...Object.entries(data)
              .filter(([k, v]) => k !== "items" && (v === null || typeof v !== "object"))
              .map(([k, v]) => `${k} ${toText(v) || "–"}`),
            ...Object.entries(container).map(([k, v]) => `${k} = ${Array.isArray(v) ? `[${v.length}]` : toText(v)}`),
          ].join(" · ")}
        </Text>
        <Group gap="xs">
          <ActionButtons names={containerActions} scope={containerScopes} sources={sources} />
          <Button size="compact-sm" variant="default" onClick={() => void query.refetch()} loading={query.isFetching}>
            Refresh
          </Button>
        </Group>
      </Group>
      {query.error && <Alert color="red">{query.error.message}</Alert>}
      <Paper withBorder>
        <div ref={scrollRef} style={{ height: "calc(100vh - 260px)", minHeight: 240, overflow: "auto" }} data-testid="table-scroll">
          <Table striped highlightOnHover stickyHeader data-testid="data-table" data-rows={rows.length}>
            <Table.Thead>
              {table.getHeaderGroups().map((hg) => (
                <Table.Tr key={hg.id}>
                  {hg.headers.map((h) => (
                    <Table.Th key={h.id} style={h.column.id === "__actions" ? PINNED : undefined}>
                      {flexRender(h.column.columnDef.header, h.getContext())}
                    </Table.Th>
                  ))}
                </Table.Tr>
              ))}
            </Table.Thead>
            <Table.Tbody>
              {padTop > 0 && (
                <tr>
                  <td colSpan={colCount} style={{ height: padTop, padding: 0 }} />
                </tr>
              )}
              {items_.map((vi) => {
                const row = tableRows[vi.index];
                if (!row) return null;
                return (
                  <Table.Tr key={row.id} data-index={vi.index} data-row={vi.index + 1} ref={virtualizer.measureElement}>
                    {row.getVisibleCells().map((cell) =>
                      cell.column.id === "__actions" ? (
                        <Table.Td key={cell.id} data-col={cell.column.id} style={PINNED}>
                          {flexRender(cell.column.columnDef.cell, cell.getContext())}
                        </Table.Td>
                      ) : (
                        <Table.Td key={cell.id} data-col={cell.column.id} title={toText(cell.getValue())} style={CELL}>
                          {flexRender(cell.column.columnDef.cell, cell.getContext())}
                        </Table.Td>
                      ),
                    )}
                  </Table.Tr>
                );
              })}
              {padBottom > 0 && (
                <tr>
                  <td colSpan={colCount} style={{ height: padBottom, padding: 0 }} />
                </tr>
              )}
            </Table.Tbody>
          </Table>
          {unfilled.length > 0 ? (
            <Text p="md" c="dimmed" data-testid="list-needs">
              {`Fill in ${unfilled.map((f) => titleOf(f.name, f.schema)).join(", ")} above and press Apply.`}
            </Text>
          ) : (
            !query.isPending &&
            rows.length === 0 && (
              <Text p="md" c="dimmed">
                No rows.
              </Text>
            )
          )}
        </div>
      </Paper>
      <Group justify="space-between">
        {paging.mode === "page" ? (
          <Pagination
            total={Math.max(1, Math.ceil((total ?? rows.length) / pageSize))}
            value={page}
            onChange={setPage}
            size="sm"
            aria-label="Pages"
            getControlProps={(c) => ({ "aria-label": `${c} page` })}
          />
        ) : (
          <Group gap="xs">
            <Button size="compact-sm" variant="default" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Previous
            </Button>
            <Button
              size="compact-sm"
              variant="default"
              disabled={!nextCursor}
              onClick={() => nextCursor && setCursors((c) => [...c, nextCursor])}
            >
              Next
            </Button>
            <Text size="sm" c="dimmed">{`page ${cursors.length}`}</Text>
          </Group>
        )}
        <Group gap="xs">
          {renderMs !== null && (
            <Text size="xs" c="dimmed" data-testid="render-ms">{`${rows.length} rows in ${renderMs} ms`}</Text>
          )}
          {paging.sizeParam && (
            <Select
              aria-label="Page size"
              size="xs"
              w={90}
              data={PAGE_SIZES.filter((s) => s <= paging.maxSize).map(String)}
              value={String(pageSize)}
              allowDeselect={false}
              onChange={(v) => {
                if (!v) return;
                setPageSize(Number(v));
                setPage(1);
                setCursors([null]);
              }}
            />
          )}
        </Group>
      </Group>
    </Stack>
  );
}
