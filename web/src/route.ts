/**
 * Hash routes: #/r/{robot}[/c/{component}[/a/{action}]], #/r/{robot}/chat[/{conversation}] (a stored
 * conversation resumed) and #/r/{robot}/traces[/{conversation}[/{turn msg id}]] (the trace explorer; the
 * last form links to one turn).
 */
import { useEffect, useState } from "react";

export interface Route {
  robot?: string;
  component?: string;
  action?: string;
  chat?: boolean;
  traces?: boolean;
  conversation?: string;
  turn?: string;
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const route: Route = {};
  for (let i = 0; i < parts.length; i += 1) {
    const key = parts[i];
    if (key === "chat" || key === "traces") {
      route[key] = true;
      const [conversation, turn] = parts.slice(i + 1);
      if (conversation) route.conversation = conversation;
      if (turn && key === "traces") route.turn = turn;
      break;
    } else if (key === "r") route.robot = parts[++i];
    else if (key === "c") route.component = parts[++i];
    else if (key === "a") route.action = parts[++i];
  }
  return route;
}

export function routeHash(r: Route): string {
  const e = encodeURIComponent;
  let h = "#/";
  if (r.robot) h += `r/${e(r.robot)}`;
  if (r.robot && (r.chat || r.traces)) {
    h += r.chat ? "/chat" : "/traces";
    if (r.conversation) h += `/${e(r.conversation)}`;
    if (r.traces && r.conversation && r.turn) h += `/${e(r.turn)}`;
    return h;
  }
  if (r.robot && r.component) h += `/c/${e(r.component)}`;
  if (r.robot && r.component && r.action) h += `/a/${e(r.action)}`;
  return h;
}

export function navigate(r: Route): void {
  window.location.hash = routeHash(r);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  return route;
}
