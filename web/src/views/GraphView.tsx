/**
 * category=graphical, get_graph: nodes and edges drawn by Cytoscape.js (pan, zoom, layouts).
 * Selecting a node or an edge shows its fields as text and its x-actions as buttons, in a scope
 * built from that element's x-namespace over the container's variables.
 */
import { Alert, Button, Code, Group, Paper, Select, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import cytoscape, { type Core, type ElementDefinition } from "cytoscape";
import { useEffect, useMemo, useRef, useState } from "react";

import type { ActionInfo } from "../api/client";
import { ActionButtons } from "../components/ActionForm";
import { queryKey, resourceOf, useComponent } from "../components/context";
import { toText } from "../components/format";
import { FieldRenderer } from "../components/SchemaForm";
import { type Params, containerScope, elementScope, pruneParams } from "../protocol/resolver";
import { type Schema, deref, elementSlots, fieldsOf, titleOf } from "../protocol/schema";

const LAYOUTS = ["cose", "grid", "circle", "concentric", "breadthfirst"] as const;
type Layout = (typeof LAYOUTS)[number];
const LARGE = 300;

interface Selected {
  kind: "nodes" | "edges";
  index: number;
}

function label(v: unknown): string {
  return toText(v).slice(0, 60);
}

export function GraphView(props: { action: ActionInfo }) {
  const { action } = props;
  const ctx = useComponent();
  // The get_graph's own params (a limit, a root …): edited in a small form, applied on "Load".
  const fields = useMemo(() => fieldsOf(action.paramsSchema), [action.paramsSchema]);
  const [draft, setDraft] = useState<Params>({});
  const [params, setParams] = useState<Params>({});
  const query = useQuery({
    queryKey: queryKey(ctx.robot, ctx.component, action, params),
    queryFn: () => ctx.invoke(action.name, params),
    placeholderData: keepPreviousData,
  });
  const data = (query.data && typeof query.data === "object" ? query.data : {}) as Record<string, unknown>;
  const nodes = useMemo(() => (Array.isArray(data.nodes) ? (data.nodes as Record<string, unknown>[]) : []), [data.nodes]);
  const edges = useMemo(() => (Array.isArray(data.edges) ? (data.edges as Record<string, unknown>[]) : []), [data.edges]);
  const slots = useMemo(() => Object.fromEntries(elementSlots(action.retSchema, ["nodes", "edges"]).map((s) => [s.key, s.schema])), [action.retSchema]);
  const container = useMemo(() => containerScope(action.retSchema, query.data), [action.retSchema, query.data]);

  const [layout, setLayout] = useState<Layout | null>(null);
  const effectiveLayout: Layout = layout ?? (nodes.length > LARGE ? "grid" : "cose");
  const [selected, setSelected] = useState<Selected | null>(null);
  const [renderMs, setRenderMs] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const cyRef = useRef<Core | null>(null);

  useEffect(() => {
    if (!box.current || query.data === undefined) return;
    const t0 = performance.now();
    const ids = new Set<string>();
    const els: ElementDefinition[] = nodes.map((n, i) => {
      const id = typeof n.iri === "string" ? n.iri : typeof n.id === "string" ? n.id : `n${i}`;
      ids.add(id);
      return { group: "nodes", data: { id, label: label(n.label ?? id), index: i } };
    });
    edges.forEach((e, i) => {
      const s = toText(e.source);
      const t = toText(e.target);
      if (ids.has(s) && ids.has(t)) els.push({ group: "edges", data: { id: `e${i}`, source: s, target: t, label: label(e.label ?? e.property), index: i } });
    });
    const large = nodes.length > LARGE;
    const cy = cytoscape({
      container: box.current,
      elements: els,
      layout: { name: effectiveLayout, animate: false, fit: true, padding: 30 } as cytoscape.LayoutOptions,
      textureOnViewport: large,
      hideEdgesOnViewport: large,
      minZoom: 0.02,
      pixelRatio: large ? 1 : "auto",
      maxZoom: 4,
      style: [
        {
          selector: "node",
          style: { label: large ? "" : "data(label)", "font-size": 10, "background-color": "#5c7cfa", width: 18, height: 18 },
        },
        { selector: "node:selected", style: { "background-color": "#f03e3e", label: "data(label)", width: 26, height: 26 } },
        {
          selector: "edge",
          // Large graphs: straight "haystack" edges without arrows or labels (far cheaper to draw).
          style: large
            ? { width: 1, "line-color": "#adb5bd", "curve-style": "haystack" }
            : { width: 1, "line-color": "#adb5bd", "target-arrow-shape": "triangle", "target-arrow-color": "#adb5bd", "curve-style": "bezier", label: "data(label)", "font-size": 8 },
        },
        { selector: "edge:selected", style: { "line-color": "#f03e3e", width: 3 } },
      ],
    });
    cy.on("tap", "node", (ev) => setSelected({ kind: "nodes", index: ev.target.data("index") as number }));
    cy.on("tap", "edge", (ev) => setSelected({ kind: "edges", index: ev.target.data("index") as number }));
    cy.on("tap", (ev) => {
      if (ev.target === cy) setSelected(null);
    });
    // A handful of nodes would otherwise be blown up to fill the box.
    if (cy.zoom() > 1.5) {
      cy.zoom(1.5);
      cy.center();
    }
    cyRef.current = cy;
    requestAnimationFrame(() => setRenderMs(Math.round(performance.now() - t0)));
    return () => {
      cy.destroy();
      cyRef.current = null;
    };
  }, [nodes, edges, effectiveLayout, query.data]);

  const selectNode = (iri: string | null) => {
    const cy = cyRef.current;
    if (!cy || !iri) return;
    const el = cy.getElementById(iri);
    if (el.empty()) return;
    cy.elements().unselect();
    el.select();
    cy.animate({ center: { eles: el }, zoom: Math.max(cy.zoom(), 1) }, { duration: 0 });
    setSelected({ kind: "nodes", index: el.data("index") as number });
  };

  const element = selected ? (selected.kind === "nodes" ? nodes : edges)[selected.index] : undefined;
  const elementSchema: Schema | undefined = selected ? slots[selected.kind] : undefined;
  const scope = useMemo(
    () => ({ element: element && selected ? elementScope(action.retSchema, selected.kind, element) : {}, container }),
    [element, selected, container, action.retSchema],
  );
  const containerScopes = useMemo(() => ({ element: {}, container }), [container]);
  const nodeOptions = useMemo(
    () => nodes.slice(0, 5000).map((n, i) => ({ value: typeof n.iri === "string" ? n.iri : `n${i}`, label: `${label(n.label)} (${toText(n.iri)})` })),
    [nodes],
  );
  const sources = useMemo(() => [resourceOf(action)], [action]);

  return (
    <Stack gap="xs">
      <Group justify="space-between" align="flex-end">
        <Group gap="xs" align="flex-end">
          <Select
            aria-label="Layout"
            size="xs"
            w={140}
            data={[...LAYOUTS]}
            value={effectiveLayout}
            allowDeselect={false}
            onChange={(v) => v && setLayout(v as Layout)}
          />
          <Select
            aria-label="Find node"
            placeholder="Find node…"
            size="xs"
            w={280}
            searchable
            limit={50}
            data={nodeOptions}
            value={selected?.kind === "nodes" && element ? toText(element.iri) : null}
            onChange={selectNode}
          />
          {fields.map((f) => (
            <div key={f.name} style={{ width: 120 }}>
              <FieldRenderer
                name={f.name}
                label={titleOf(f.name, f.schema)}
                schema={f.schema}
                root={action.paramsSchema}
                required={f.required}
                readOnly={false}
                value={draft[f.name] ?? f.schema.default}
                onChange={(v) => setDraft((d) => ({ ...d, [f.name]: v }))}
              />
            </div>
          ))}
          {fields.length > 0 && (
            <Button size="compact-sm" onClick={() => setParams(pruneParams(draft, fields))}>
              Load
            </Button>
          )}
          <Button size="compact-sm" variant="default" onClick={() => cyRef.current?.fit()}>
            Fit
          </Button>
          <Button size="compact-sm" variant="default" onClick={() => void query.refetch()} loading={query.isFetching}>
            Refresh
          </Button>
        </Group>
        <Text size="xs" c="dimmed" data-testid="render-ms">
          {`${nodes.length} nodes · ${edges.length} edges${renderMs !== null ? ` · drawn in ${renderMs} ms` : ""}`}
        </Text>
      </Group>
      {query.error && <Alert color="red">{query.error.message}</Alert>}
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <Paper withBorder style={{ gridColumn: "span 2" }}>
          <div ref={box} data-testid="graph" style={{ height: "calc(100vh - 220px)", minHeight: 320 }} />
        </Paper>
        <Paper withBorder p="sm" data-testid="graph-selection">
          {element ? (
            <Stack gap="xs">
              <Title order={5}>{selected?.kind === "nodes" ? `Node ${toText(element.label)}` : `Edge ${toText(element.label)}`}</Title>
              {Object.entries(element).map(([k, v]) => (
                <Text key={k} size="sm" data-prop={k}>
                  <b>{k}</b>: {toText(v)}
                </Text>
              ))}
              <ActionButtons names={elementSchema?.["x-actions"]} scope={scope} sources={sources} />
              <Code block>{JSON.stringify({ ...scope.container, ...scope.element }, null, 1)}</Code>
            </Stack>
          ) : (
            <Text size="sm" c="dimmed">
              Select a node or an edge (click it, or use “Find node”).
            </Text>
          )}
          {deref(action.retSchema, action.retSchema)["x-actions"] && (
            <ActionButtons names={deref(action.retSchema, action.retSchema)["x-actions"]} scope={containerScopes} sources={sources} />
          )}
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
