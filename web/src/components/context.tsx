/** Everything a view of one component needs: its actions, the shared x-fetch cache, calls. */
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, createContext, useContext, useMemo } from "react";

import { type ActionInfo, api } from "../api/client";
import { type ActionSchemas, type FetchCache, type Params, canonicalJson } from "../protocol/resolver";

export const READ_OPS = new Set(["get", "get_one", "get_list", "get_graph"]);

export function isMutation(action: ActionInfo): boolean {
  const op = action.alias?.resourceOpType;
  return !!op && !READ_OPS.has(op) && op !== "render";
}

export function isDestructive(action: ActionInfo): boolean {
  return action.alias?.resourceOpType === "delete";
}

/**
 * What the console calls an action: the server's title ("Update doc", from `@tfs_action(title=…)` or
 * the name in words), else its name. The name stays the `data-action` of its buttons and is shown
 * beside the title where the action opens.
 */
export function actionTitle(action: Pick<ActionInfo, "name" | "title">): string {
  return action.title || action.name;
}

export function resourceOf(action: ActionInfo): string {
  return action.alias?.resource ?? action.name;
}

export interface ComponentCtx {
  robot: string;
  component: string;
  actions: ActionInfo[];
  byName: Record<string, ActionInfo>;
  schemas: Record<string, ActionSchemas>;
  /** x-fetch cache shared by every resolution of this component until the next mutation. */
  fetchCache: FetchCache;
  invoke: (action: string, params: Params) => Promise<unknown>;
  /** Invalidate the resource's cached lists/items/graphs (and `alsoResources`) and x-fetches. */
  afterMutation: (action: ActionInfo, alsoResources?: string[]) => Promise<void>;
}

const Ctx = createContext<ComponentCtx | null>(null);

export function queryKey(robot: string, component: string, action: ActionInfo, params: Params): unknown[] {
  return ["tfs", robot, component, resourceOf(action), action.name, canonicalJson(params)];
}

export function ComponentProvider(props: { robot: string; component: string; actions: ActionInfo[]; children: ReactNode }) {
  const { robot, component, actions } = props;
  const client = useQueryClient();
  const value = useMemo<ComponentCtx>(() => {
    const byName = Object.fromEntries(actions.map((a) => [a.name, a]));
    const schemas = Object.fromEntries(actions.map((a) => [a.name, { paramsSchema: a.paramsSchema, retSchema: a.retSchema }]));
    const fetchCache: FetchCache = new Map();
    return {
      robot,
      component,
      actions,
      byName,
      schemas,
      fetchCache,
      invoke: (action, params) => api.invoke(robot, component, action, params),
      afterMutation: async (action, also = []) => {
        const resources = new Set([resourceOf(action), ...also]);
        // x-fetch results of the mutated resources are stale too; others (the caller …) stay.
        for (const key of [...fetchCache.keys()]) {
          const target = byName[key.slice(0, key.indexOf("{"))];
          if (!target || resources.has(resourceOf(target))) fetchCache.delete(key);
        }
        await Promise.all([...resources].map((r) => client.invalidateQueries({ queryKey: ["tfs", robot, component, r] })));
      },
    };
  }, [robot, component, actions, client]);
  return <Ctx.Provider value={value}>{props.children}</Ctx.Provider>;
}

export function useComponent(): ComponentCtx {
  const ctx = useContext(Ctx);
  if (!ctx) throw new Error("useComponent outside ComponentProvider");
  return ctx;
}
