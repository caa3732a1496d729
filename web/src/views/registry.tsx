/**
 * The base view of an action, chosen from its alias before anything is called — a ranked
 * registry in the manner of JSON Forms' testers: every entry rates the action, the best wins,
 * and the one-off form is the fallback.
 */
import { Loader } from "@mantine/core";
import { type ReactNode, Suspense, lazy } from "react";

import type { ActionInfo } from "../api/client";
import { ActionForm, NO_SCOPES } from "../components/ActionForm";
import { PageableView } from "./PageableView";
import { ToolsView } from "./ToolsView";

// Cytoscape.js is most of the bundle: load it with the first graph, not with the page.
const GraphView = lazy(() => import("./GraphView").then((m) => ({ default: m.GraphView })));

export interface ViewEntry {
  name: "table" | "graph" | "form" | "tools";
  rank: (action: ActionInfo) => number;
  render: (action: ActionInfo) => ReactNode;
}

export const VIEWS: ViewEntry[] = [
  {
    // a tool's arguments form needs that tool's own schema: the tools component's list gets its own view
    name: "tools",
    rank: (a) => (a.alias?.resource === "tool" && a.alias.resourceOpType === "get_list" ? 20 : -1),
    render: (a) => <ToolsView key={a.name} action={a} />,
  },
  {
    name: "table",
    rank: (a) => (a.alias?.category === "pageable" && a.alias.resourceOpType === "get_list" ? 10 : -1),
    render: (a) => <PageableView key={a.name} action={a} />,
  },
  {
    name: "graph",
    rank: (a) => (a.alias?.category === "graphical" && a.alias.resourceOpType === "get_graph" ? 10 : -1),
    render: (a) => (
      <Suspense fallback={<Loader aria-label="Loading the graph view" />}>
        <GraphView key={a.name} action={a} />
      </Suspense>
    ),
  },
  { name: "form", rank: () => 0, render: (a) => <ActionForm key={a.name} action={a} scope={NO_SCOPES} standalone /> },
];

export function viewFor(action: ActionInfo): ViewEntry {
  let best = VIEWS[VIEWS.length - 1] as ViewEntry;
  let rank = -1;
  for (const v of VIEWS) {
    const r = v.rank(action);
    if (r > rank) {
      best = v;
      rank = r;
    }
  }
  return best;
}
