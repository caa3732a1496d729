/**
 * category=pageable, get_list: a virtualised table (TanStack Table + TanStack Virtual inside a
 * Mantine Table) with the paginator the action declares: page/pageSize or cursor. The view only
 * renders; params, page or cursor, fetching and errors live in `useListController`. Every row gets
 * its own scope: container variables overridden by the row's x-namespace.
 */
import { Alert, Button, Group, Pagination, Paper, Select, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";

import type { ActionInfo } from "../api/client";
import { ActionButtons } from "../components/ActionForm";
import { resourceOf } from "../components/context";
import { cellText, toText } from "../components/format";
import { FieldRenderer } from "../components/SchemaForm";
import { type Params, pruneParams } from "../protocol/resolver";
import { type FieldInfo, type Schema, deref, elementSlots, titleOf } from "../protocol/schema";
import { type ListRow, useListController } from "./useListController";

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

export function PageableView(props: { action: ActionInfo }) {
  const { action } = props;
  const list = useListController(action);
  const { paging, data, rows, container } = list;
  const [renderMs, setRenderMs] = useState<number | null>(null);

  const slot = useMemo(() => elementSlots(action.retSchema, ["items"])[0], [action.retSchema]);
  const element: Schema = slot?.schema ?? {};
  const sources = useMemo(() => [resourceOf(action)], [action]);
  const columns = useMemo<ColumnDef<ListRow>[]>(() => {
    const props = Object.entries(element.properties ?? {});
    const cols: ColumnDef<ListRow>[] = props.map(([key, raw]) => {
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
    if (list.isFetching) startedAt.current = performance.now();
  }, [list.isFetching]);
  useEffect(() => {
    if (!list.isFetching && list.hasData) {
      requestAnimationFrame(() => setRenderMs(Math.round(performance.now() - startedAt.current)));
    }
  }, [list.isFetching, list.hasData, data]);

  const items_ = virtualizer.getVirtualItems();
  const padTop = items_[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items_[items_.length - 1]?.end ?? 0);
  const colCount = table.getVisibleLeafColumns().length;
  const containerActions = deref(action.retSchema, action.retSchema)["x-actions"];
  const containerScopes = useMemo(() => ({ element: {}, container }), [container]);

  return (
    <Stack gap="xs">
      {list.filters.length > 0 && <FilterForm action={action} fields={list.filters} applied={list.applied} onApply={list.apply} />}
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
          <Button size="compact-sm" variant="default" onClick={list.refetch} loading={list.isFetching}>
            Refresh
          </Button>
        </Group>
      </Group>
      {list.error && <Alert color="red">{list.error.message}</Alert>}
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
          {list.unfilled.length > 0 ? (
            <Text p="md" c="dimmed" data-testid="list-needs">
              {`Fill in ${list.unfilled.map((f) => titleOf(f.name, f.schema)).join(", ")} above and press Apply.`}
            </Text>
          ) : (
            !list.isPending &&
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
            total={list.pageCount}
            value={list.page}
            onChange={list.setPage}
            size="sm"
            aria-label="Pages"
            getControlProps={(c) => ({ "aria-label": `${c} page` })}
          />
        ) : paging.mode === "cursor" ? (
          <Group gap="xs">
            <Button size="compact-sm" variant="default" disabled={!list.hasPrevious} onClick={list.previous}>
              Previous
            </Button>
            <Button size="compact-sm" variant="default" disabled={!list.hasNext} onClick={list.next}>
              Next
            </Button>
            <Text size="sm" c="dimmed">{`page ${list.page}`}</Text>
          </Group>
        ) : (
          <span />
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
              value={String(list.pageSize)}
              allowDeselect={false}
              onChange={(v) => {
                if (v) list.setPageSize(Number(v));
              }}
            />
          )}
        </Group>
      </Group>
    </Stack>
  );
}
