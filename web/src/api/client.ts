/**
 * The TFRobotServer HTTP API (issue 5): robots, components, actions and action calls.
 * Errors become `ApiError`, whose `fields` maps a param name to its 422 messages.
 */
import type { Schema } from "../protocol/schema";

export interface Robot {
  name: string;
  description?: string;
  [key: string]: unknown;
}

export interface Component {
  name: string;
  type?: string;
  config?: unknown;
  [key: string]: unknown;
}

export interface ActionAlias {
  category?: "pageable" | "graphical" | null;
  resource?: string | null;
  resourceOpType?: string | null;
}

export interface ActionInfo {
  name: string;
  /** The server's human title of the action (`@tfs_action(title=…)`, else derived from its name). */
  title?: string | null;
  alias: ActionAlias | null;
  description?: string | null;
  paramsSchema: Schema;
  retSchema: Schema;
}

const TOKEN_KEY = "tfrobot.token";
const URL_TOKEN = /^#token=([^&]+)$/;

/**
 * The bearer token the console sends: the one this tab got from its link (sessionStorage), else the
 * one typed into the token field (localStorage). Both are readable by this origin only.
 */
export function getToken(): string {
  return globalThis.sessionStorage?.getItem(TOKEN_KEY) || globalThis.localStorage?.getItem(TOKEN_KEY) || "";
}

/** The token typed into the token field: kept for this origin; it replaces the link's. */
export function setToken(token: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/**
 * Take the local secret from the link `tfrobot serve` prints (`/#token=…`): kept for this tab only
 * (it changes at every start) and removed from the address bar and its history entry at once. A
 * fragment never reaches the server, its logs or a Referer. Call before anything reads the route.
 */
export function adoptLinkToken(location: Location = window.location, history: History = window.history): void {
  const found = URL_TOKEN.exec(location.hash);
  if (!found?.[1]) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(found[1]));
  history.replaceState(history.state, "", `${location.pathname}${location.search}#/`);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
    /** 422: messages per top-level param name ("" for errors not tied to a field). */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

/**
 * Field messages of a 422: the server's `{errors: [{path: "keywords.0", message}]}` (also
 * FastAPI's `{detail: [{loc, msg}]}`), keyed by the top-level param name.
 */
export function fieldErrors(body: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const obj = body && typeof body === "object" ? (body as Record<string, unknown>) : {};
  const list = Array.isArray(obj.detail) ? obj.detail : Array.isArray(obj.errors) ? obj.errors : [];
  for (const raw of list) {
    if (!raw || typeof raw !== "object") continue;
    const e = raw as Record<string, unknown>;
    const dotted = typeof e.path === "string" ? e.path : typeof e.field === "string" ? e.field : undefined;
    const loc = Array.isArray(e.loc) ? e.loc : Array.isArray(e.path) ? e.path : dotted && dotted !== "(params)" ? dotted.split(".") : [];
    const path = loc.map(String).filter((p, i) => !(i === 0 && (p === "body" || p === "params")));
    const key = path[0] ?? "";
    const rest = path.slice(1).join(".");
    const msg = String(e.msg ?? e.message ?? "invalid");
    (out[key] ??= []).push(rest ? `${rest}: ${msg}` : msg);
  }
  return out;
}

function messageOf(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    if (typeof b.detail === "string") return b.detail;
    if (typeof b.message === "string") return b.message;
    if (typeof b.error === "string") return b.error;
  }
  if (typeof body === "string" && body.trim()) return `HTTP ${status}: ${body.trim().slice(0, 300)}`;
  return `HTTP ${status}`;
}

/** `fetch` with the API's headers: what the caller accepts, JSON bodies, the bearer token. */
export async function send(path: string, init: RequestInit = {}, accept = "application/json"): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Accept", accept);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  const token = getToken();
  if (token) headers.set("Authorization", `Bearer ${token}`);
  try {
    return await fetch(path, { ...init, headers });
  } catch (err) {
    // The browser says only "Failed to fetch" (a TypeError): the request never got an answer.
    if (err instanceof TypeError) throw new ApiError(0, unreachable(path), null);
    throw err;
  }
}

/** What to tell the user when a request got no answer at all (server stopped, network down, blocked). */
export function unreachable(path: string): string {
  const where = typeof window === "undefined" ? "the server" : window.location.origin;
  return `No answer from ${where} for ${path.split("?")[0]}: the server may have stopped or the network is down. Check that \`tfrobot serve\` is running, then try again.`;
}

async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A 409 on a stale write: the element changed since it was read. `current` is it as stored now;
 * resending the same parameters with `overwrite` replaces it anyway (a taken key has no `overwrite`).
 */
export interface Conflict {
  message: string;
  current: unknown;
  overwrite: Record<string, unknown>;
}

export function conflictOf(err: unknown): Conflict | null {
  if (!(err instanceof ApiError) || err.status !== 409) return null;
  const body = err.body && typeof err.body === "object" ? (err.body as Record<string, unknown>) : {};
  const overwrite = body.overwrite;
  if (!overwrite || typeof overwrite !== "object" || Array.isArray(overwrite)) return null;
  return { message: err.message, current: body.current, overwrite: overwrite as Record<string, unknown> };
}

/** The `ApiError` of a response that is not ok: the server's message, its error id, 422 field messages. */
export async function failure(res: Response): Promise<ApiError> {
  const body = await bodyOf(res);
  let msg = messageOf(res.status, body);
  const errorId = body && typeof body === "object" ? (body as Record<string, unknown>).errorId : undefined;
  if (typeof errorId === "string" && !msg.includes(errorId)) msg += ` (error id ${errorId})`;
  return new ApiError(res.status, msg, body, res.status === 422 ? fieldErrors(body) : {});
}

export async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await send(path, init);
  if (!res.ok) throw await failure(res);
  return (await bodyOf(res)) as T;
}

const enc = encodeURIComponent;

/** Accept `[...]` or `{robots: [...]}`-style envelopes. */
function listOf<T>(body: unknown, key: string): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body && typeof body === "object") {
    const v = (body as Record<string, unknown>)[key] ?? (body as Record<string, unknown>).items;
    if (Array.isArray(v)) return v as T[];
  }
  return [];
}

export const api = {
  robots: async () => listOf<Robot>(await request("/api/robots"), "robots"),
  components: async (robot: string) => listOf<Component>(await request(`/api/robots/${enc(robot)}/components`), "components"),
  actions: async (robot: string, component: string) =>
    listOf<ActionInfo>(await request(`/api/robots/${enc(robot)}/components/${enc(component)}/actions`), "actions"),
  invoke: (robot: string, component: string, action: string, params: Record<string, unknown>) =>
    request<unknown>(`/api/robots/${enc(robot)}/components/${enc(component)}/actions/${enc(action)}`, {
      method: "POST",
      body: JSON.stringify(params),
    }),
};
