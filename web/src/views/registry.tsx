/**
 * The base view of an action, chosen from its alias before anything is called — the console's
 * ranked registry (`components/ranked`): every entry rates the action, the best wins, and the
 * one-off form (rank 0) is the fallback, so every action gets a view.
 */
import { Loader } from "@mantine/core";
import { type ReactNode, Suspense, lazy } from "react";

import type { ActionInfo } from "../api/client";
import { ActionForm, NO_SCOPES } from "../components/ActionForm";
import { type RankedEntry, rankWith, rankedRegistry } from "../components/ranked";
import { PageableView } from "./PageableView";
import { ToolsView } from "./ToolsView";

// Cytoscape.js is most of the bundle: load it with the first graph, not with the page.
const GraphView = lazy(() => import("./GraphView").then((m) => ({ default: m.GraphView })));

export interface ViewEntry extends RankedEntry<ActionInfo> {
  render: (action: ActionInfo) => ReactNode;
}

/** The views by rank; `VIEWS.register` adds one (it wins where it ranks higher than these). */
export const VIEWS = rankedRegistry<ActionInfo, ViewEntry>(
  "view",
  [
    {
      // a tool's arguments form needs that tool's own schema: the tools component's list gets its own view
      name: "tools",
      rank: rankWith(20, (a) => a.alias?.resource === "tool" && a.alias.resourceOpType === "get_list"),
      render: (a) => <ToolsView key={a.name} action={a} />,
    },
    {
      name: "table",
      rank: rankWith(10, (a) => a.alias?.category === "pageable" && a.alias.resourceOpType === "get_list"),
      render: (a) => <PageableView key={a.name} action={a} />,
    },
    {
      name: "graph",
      rank: rankWith(10, (a) => a.alias?.category === "graphical" && a.alias.resourceOpType === "get_graph"),
      render: (a) => (
        <Suspense fallback={<Loader aria-label="Loading the graph view" />}>
          <GraphView key={a.name} action={a} />
        </Suspense>
      ),
    },
    { name: "form", rank: () => 0, render: (a) => <ActionForm key={a.name} action={a} scope={NO_SCOPES} standalone /> },
  ],
  (a) => `the action ${JSON.stringify(a.name)}`,
);

export function viewFor(action: ActionInfo): ViewEntry {
  return VIEWS.select(action);
}
