/**
 * Chat with a robot and read each turn's trace in order: reasoning, tool calls and results,
 * TFL scripts and their console output (images included), and the provider request (dry run).
 *
 * Endpoint (see docs/console.md, "Chat endpoint"):
 *   POST /api/robots/{robot}/chat  {message, conversationId?, dryRun?}
 *   → application/json {conversationId?, message, trace: [records], request?}
 *   → or text/event-stream: `delta` {text}, `trace` {record}, `done` {the JSON body above}, and
 *     `confirm` {id, call, timeout} when a destructive tool waits: Approve / Refuse POST
 *     /api/robots/{robot}/chat/confirmations/{id} {approve}.
 * A failed turn (an HTTP error, or an SSE `error` event after the stream began) shows where its reply
 * would be: for a provider failure (`error: "provider_error"`) its kind, the provider, the message, the
 * fix and when to retry; the conversation goes on in the one the failed turn is stored in.
 * Steps appear as they happen: every `event` (a typed chain event) that finishes a step — an assistant step
 * that calls tools or writes a script, a tool result, a console output — is shown at once; the `trace`
 * records replace them when the turn ends. `conversation` resumes a stored conversation (its turns are read
 * from the conversations component); "New conversation" starts one. Enter sends, Shift+Enter is a newline.
 * The view is hidden when `GET /api/robots/{robot}/chat` answers 404.
 */
import { Accordion, Alert, Badge, Button, Code, Group, Image, Modal, Paper, Stack, Switch, Text, Textarea } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";

import { ApiError, api, failure, send as apiFetch } from "../api/client";
import { safeImageSrc, toText } from "../components/format";
import { routeHash } from "../route";
import { useChatComponents } from "./chatInfo";
import { Playground, playMessagesOf } from "./Playground";
import { ServerBlocks } from "./ServerBlocks";
import { when } from "./traceModel";

type Rec = Record<string, unknown>;

function pick(obj: Rec, ...keys: string[]): unknown {
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) return obj[k];
  return undefined;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === "object" ? toText((p as Rec).text ?? "") : toText(p))).join("");
  if (content && typeof content === "object") return toText((content as Rec).text ?? content);
  return "";
}

export interface Confirmation {
  id: string;
  call: Rec;
  timeout: number;
  state: "asking" | "sending" | "approved" | "refused" | "failed";
  error?: string;
}

/** A typed provider failure, as the server's error body carries it. */
export interface TurnFailure {
  kind: string;
  message: string;
  provider?: string;
  providerMessage?: string;
  fix?: string;
  retryAfter?: number;
  status?: number;
}

export interface Turn {
  user: string;
  /** When the user sent it (epoch ms). */
  at?: number;
  confirms?: Confirmation[];
  reply: string;
  /** The model refused (finish reason `refusal`): what it or its provider said instead of an answer. */
  refusal?: string;
  trace: Rec[];
  request?: unknown;
  error?: string;
  /** The HTTP status of `error` (0: no answer): what the error card's title says. */
  errorStatus?: number;
  failure?: TurnFailure;
  streaming?: boolean;
  /** Read from the store (a resumed conversation): its trace starts folded; a live turn's is open. */
  stored?: boolean;
  /** The answer as the server sent it: what the provider ran or cited on its side is shown under the reply. */
  answer?: Rec;
}

const KIND_TITLES: Record<string, string> = {
  missing_key: "No API key",
  auth: "API key refused",
  model_not_found: "Unknown model",
  not_installed: "Provider SDK not installed",
  rate_limited: "Rate limited",
  context_too_long: "Conversation too long",
  unsupported_content: "Content the provider cannot take",
  invalid_conversation: "Conversation the provider cannot take",
  invalid_request: "Request refused",
  unavailable: "Provider failed",
  timeout: "Provider timed out",
  connection: "Provider unreachable",
  bad_response: "Not the provider's API",
};

/** Titles of errors that are not a provider's: what a reader needs to know first. */
const STATUS_TITLES: Record<number, string> = {
  400: "Request refused",
  401: "Not signed in: set the API token",
  403: "Not allowed with this token",
  404: "Not found",
  409: "Changed meanwhile",
  413: "Message too large",
  422: "Message refused",
  424: "The robot is not set up for this: a service it depends on failed",
  429: "Too many requests",
  500: "Server error",
  502: "A service the robot uses failed",
  503: "Server unavailable, try again",
  504: "Timed out",
};

/** The title of a failed turn's card for an error that is not a typed provider failure. */
export function errorTitle(status: number): string {
  return STATUS_TITLES[status] ?? (status ? `Failed (HTTP ${status})` : "Failed");
}

/** The typed failure of an error body (`error: "provider_error"`), or undefined for any other error. */
export function failureOf(body: unknown): TurnFailure | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as Rec;
  if (b.error !== "provider_error" || typeof b.kind !== "string") return undefined;
  const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const out: TurnFailure = { kind: b.kind, message: toText(b.message) };
  const [provider, providerMessage, fix] = [text(b.provider), text(b.providerMessage), text(b.fix)];
  if (provider) out.provider = provider;
  if (providerMessage) out.providerMessage = providerMessage;
  if (fix) out.fix = fix;
  if (typeof b.retryAfter === "number") out.retryAfter = b.retryAfter;
  if (typeof b.status === "number") out.status = b.status;
  return out;
}

/** Where the reply would be: what failed, from which provider, the fix, when to retry. */
export function FailureNotice(props: { failure: TurnFailure }) {
  const f = props.failure;
  const title = `${KIND_TITLES[f.kind] ?? f.kind}${f.provider ? ` — ${f.provider}` : ""}${f.status ? ` (HTTP ${f.status})` : ""}`;
  return (
    <Alert color={f.kind === "rate_limited" || f.kind === "timeout" ? "orange" : "red"} title={title} data-testid="turn-failure" data-kind={f.kind}>
      <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
        {f.message}
      </Text>
      {f.fix && (
        <Text size="sm" fw={600} mt={4} data-testid="failure-fix">
          {`Fix: ${f.fix}`}
        </Text>
      )}
      {f.retryAfter !== undefined && <Text size="sm" mt={4}>{`Retry after ${f.retryAfter} s.`}</Text>}
    </Alert>
  );
}

const enc = encodeURIComponent;

function ConfirmCall(props: { robot: string; confirm: Confirmation; onState: (patch: Partial<Confirmation>) => void }) {
  const { confirm } = props;
  const answer = async (approve: boolean) => {
    props.onState({ state: "sending" });
    const res = await apiFetch(
      `/api/robots/${enc(props.robot)}/chat/confirmations/${enc(confirm.id)}`,
      { method: "POST", body: JSON.stringify({ approve }) },
    );
    if (res.ok) props.onState({ state: approve ? "approved" : "refused" });
    else props.onState({ state: "failed", error: (await failure(res)).message });
  };
  const asking = confirm.state === "asking" || confirm.state === "sending";
  return (
    <Alert color={asking ? "orange" : confirm.state === "approved" ? "green" : "gray"} title={`Run the tool “${toText(confirm.call.name)}”?`} data-confirm={confirm.id}>
      <Text size="sm">{`The robot asks to run ${toText(confirm.call.name)} with these arguments; it runs only if you approve:`}</Text>
      <Code block>{prettyArguments(confirm.call.arguments)}</Code>
      {asking ? (
        <Group mt="xs" gap="xs">
          <Button size="xs" color="red" loading={confirm.state === "sending"} onClick={() => void answer(true)}>
            Approve
          </Button>
          <Button size="xs" variant="default" disabled={confirm.state === "sending"} onClick={() => void answer(false)}>
            Refuse
          </Button>
          <Text size="xs" c="dimmed">{`refused after ${confirm.timeout} s without an answer`}</Text>
        </Group>
      ) : (
        <Text size="sm" mt="xs" data-testid="confirm-state">
          {confirm.state === "failed" ? `answer not taken: ${confirm.error ?? ""}` : confirm.state}
        </Text>
      )}
    </Alert>
  );
}

function prettyArguments(args: unknown): string {
  if (typeof args !== "string") return toText(args);
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** Whether `robot` chats; "" (no robot chosen yet) asks nothing, since `/api/robots//chat` names no robot. */
export function useChatAvailable(robot: string): boolean {
  const q = useQuery({
    queryKey: ["chat-probe", robot],
    queryFn: async () => {
      const res = await apiFetch(`/api/robots/${enc(robot)}/chat`);
      return res.status !== 404;
    },
    enabled: robot !== "",
    staleTime: Infinity,
  });
  return q.data === true;
}

function Attachments(props: { parts: unknown }) {
  const list = Array.isArray(props.parts) ? props.parts : [];
  const srcs = list.map(safeImageSrc).filter((s): s is string => !!s);
  if (!srcs.length) return null;
  return (
    <Group>
      {srcs.map((s, i) => (
        <Image key={i} src={s} alt={`attachment ${i + 1}`} w="auto" maw="100%" fit="contain" data-testid="trace-image" />
      ))}
    </Group>
  );
}

/** One trace record → the steps it holds, in order. A console output does not repeat a script that an
 * earlier record of the turn showed already (`shownScripts`): each TFL script is shown once. */
export function TraceRecord(props: { record: Rec; shownScripts?: ReadonlySet<string> }) {
  const r = props.record;
  const role = toText(r.role);
  const out: React.ReactNode[] = [];
  const reasoning = pick(r, "reasoningContent", "reasoning_content");
  if (reasoning) out.push(<TraceStep key="reasoning" kind="reasoning" body={toText(reasoning)} />);
  const text = contentText(r.content);
  if (text && role !== "tool" && role !== "console") out.push(<TraceStep key="text" kind={role || "message"} body={text} />);
  const refusal = pick(r, "refusal");
  if (refusal) out.push(<TraceStep key="refusal" kind="refusal" body={toText(refusal)} />);
  if (pick(r, "finishReason", "finish_reason") === "call_failed") out.push(<TraceStep key="failed" kind="LLM call failed" body={`${toText(r.model) || "the LLM"}: no reply (the turn's failure says why)`} />);
  out.push(<ServerBlocks key="server" message={r} />);
  const calls = pick(r, "toolCalls", "tool_calls");
  if (Array.isArray(calls)) {
    calls.forEach((c: Rec, i) => out.push(<TraceStep key={`call${i}`} kind="tool call" body={`${toText(c.name)}(${toText(c.arguments)})`} code />));
  }
  const scripts = pick(r, "tflScripts", "tfl_scripts");
  if (Array.isArray(scripts)) scripts.forEach((s, i) => out.push(<TraceStep key={`tfl${i}`} kind="TFL script" body={toText(s)} code />));
  const toolReses = pick(r, "toolReses", "tool_reses");
  if (Array.isArray(toolReses)) {
    toolReses.forEach((t, i) => {
      const tr = (t && typeof t === "object" ? t : { result: t }) as Rec;
      out.push(
        <TraceStep key={`res${i}`} kind={pick(tr, "isError", "is_error") ? "tool error" : "tool result"} body={`${toText(tr.name ?? "")} → ${toText(tr.result)}`}>
          <Attachments parts={tr.attachments} />
        </TraceStep>,
      );
    });
  } else if (role === "tool" && text) out.push(<TraceStep key="tooltext" kind="tool result" body={text} />);
  const consoles = pick(r, "consoleReses", "console_reses");
  if (Array.isArray(consoles)) {
    consoles.forEach((c, i) => {
      const cr = (c && typeof c === "object" ? c : { result: c }) as Rec;
      out.push(
        <TraceStep key={`con${i}`} kind="console" body={toText(cr.result)} code>
          {typeof cr.script === "string" && !props.shownScripts?.has(cr.script) && <Code block>{cr.script}</Code>}
          <Attachments parts={cr.attachments} />
        </TraceStep>,
      );
    });
  } else if (role === "console" && text) out.push(<TraceStep key="context" kind="console" body={text} code />);
  return <>{out}</>;
}

function TraceStep(props: { kind: string; body: string; code?: boolean; children?: React.ReactNode }) {
  return (
    <Paper withBorder p="xs" data-trace-kind={props.kind}>
      <Badge size="xs" variant="light" mb={4}>
        {props.kind}
      </Badge>
      {props.code ? <Code block>{props.body}</Code> : <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>{props.body}</Text>}
      {props.children}
    </Paper>
  );
}

async function* sse(res: Response): AsyncGenerator<{ event: string; data: unknown }> {
  const reader = res.body?.getReader();
  if (!reader) return;
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let idx: number;
    while ((idx = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, idx);
      buf = buf.slice(idx + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      try {
        yield { event, data: JSON.parse(data.join("\n")) };
      } catch {
        yield { event, data: data.join("\n") };
      }
    }
  }
}

/** The scripts the assistant records of a trace carry (the console outputs need not repeat them). */
function scriptsOf(trace: Rec[]): Set<string> {
  const out = new Set<string>();
  for (const r of trace) {
    const scripts = pick(r, "tflScripts", "tfl_scripts");
    if (Array.isArray(scripts)) scripts.forEach((sc) => typeof sc === "string" && out.add(sc));
  }
  return out;
}

/** A chain event that completes a step, as the trace record it will be stored as (undefined: not a step). */
export function liveRecord(event: Rec): Rec | undefined {
  const type = event.type;
  if (type === "assistant") {
    const msg = (event.message && typeof event.message === "object" ? event.message : {}) as Rec;
    const calls = pick(msg, "tool_calls", "toolCalls");
    const scripts = pick(msg, "tfl_scripts", "tflScripts");
    const acts = (Array.isArray(calls) && calls.length > 0) || (Array.isArray(scripts) && scripts.length > 0);
    return acts ? msg : undefined; // the answer itself is the reply, not a step
  }
  if (type === "tool_result") return { role: "tool", tool_reses: [event.result] };
  if (type === "console") return { role: "console", console_reses: [event.result] };
  return undefined;
}

/** Stored messages (`aget_messages` rows, oldest first) → the chat's turns. */
function storedTurns(rows: Rec[]): Turn[] {
  const turns: Turn[] = [];
  for (const row of rows) {
    const message = (row.message && typeof row.message === "object" ? row.message : {}) as Rec;
    if (row.role === "user") {
      const trace = (message.intermediate_trace && typeof message.intermediate_trace === "object" ? message.intermediate_trace : {}) as Rec;
      const f = (trace.failure && typeof trace.failure === "object" ? trace.failure : undefined) as Rec | undefined;
      const turn: Turn = { user: toText(row.text), reply: "", trace: Array.isArray(row.trace) ? (row.trace as Rec[]) : [], stored: true };
      if (typeof row.createTs === "number") turn.at = row.createTs;
      if (f && typeof f.kind === "string") {
        const typed = failureOf({ ...f, error: "provider_error", providerMessage: f.provider_message, retryAfter: f.retry_after });
        if (typed) turn.failure = typed;
      }
      turns.push(turn);
    } else if (row.role === "assistant" && turns.length) {
      const last = turns[turns.length - 1] as Turn;
      last.reply = (last.reply ? `${last.reply}\n` : "") + toText(row.text);
      last.answer = message;
    }
  }
  return turns;
}

function useStoredTurns(robot: string, conversation: string | undefined) {
  return useQuery({
    queryKey: ["chat-history", robot, conversation],
    enabled: !!conversation,
    queryFn: async () => {
      const res = await apiFetch(`/api/robots/${enc(robot)}/chat`);
      if (!res.ok) throw await failure(res);
      const component = toText(((await res.json()) as Rec).conversations);
      const rows: Rec[] = [];
      let cursor: string | null = null;
      do {
        const page = (await api.invoke(robot, component, "aget_messages", { conversation_id: conversation, cursor, page_size: 200 })) as Rec;
        if (Array.isArray(page.items)) rows.push(...(page.items as Rec[]));
        cursor = typeof page.nextCursor === "string" ? page.nextCursor : null;
      } while (cursor);
      return storedTurns(rows);
    },
    staleTime: Infinity,
  });
}

export function ChatView(props: { robot: string; conversation?: string | undefined }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [text, setText] = useState("");
  const [dryRun, setDryRun] = useState(false);
  const [busy, setBusy] = useState(false);
  const [conversationId, setConversationId] = useState<string | undefined>(props.conversation);
  const stored = useStoredTurns(props.robot, props.conversation);
  const components = useChatComponents(props.robot, turns.some((t) => t.request !== undefined));
  const [playing, setPlaying] = useState<unknown>(undefined);
  useEffect(() => {
    if (stored.data) setTurns((ts) => (ts.length ? ts : stored.data));
  }, [stored.data]);

  const adopt = (id: string) => {
    setConversationId(id);
    // the link names the conversation, without remounting this view (no hashchange for replaceState)
    window.history.replaceState(null, "", routeHash({ robot: props.robot, chat: true, conversation: id }));
  };

  const startNew = () => {
    setTurns([]);
    setConversationId(undefined);
    window.history.replaceState(null, "", routeHash({ robot: props.robot, chat: true }));
  };

  const update = (i: number, patch: Partial<Turn> | ((t: Turn) => Partial<Turn>)) =>
    setTurns((ts) => ts.map((t, j) => (j === i ? { ...t, ...(typeof patch === "function" ? patch(t) : patch) } : t)));

  const finish = (i: number, body: Rec) => {
    if (typeof body.conversationId === "string" && body.conversationId) adopt(body.conversationId);
    const msg = (body.message && typeof body.message === "object" ? body.message : {}) as Rec;
    const reply = contentText(msg.content ?? body.message ?? body.reply);
    const refused = pick(msg, "refusal") ?? (pick(msg, "finishReason", "finish_reason") === "refusal" ? "" : undefined);
    const refusal = refused === undefined ? undefined : toText(refused) || "The model refused to answer.";
    const request = body.request === null ? undefined : body.request;
    update(i, { reply, refusal, trace: Array.isArray(body.trace) ? (body.trace as Rec[]) : [], request, streaming: false, answer: msg });
  };

  const send = async () => {
    const message = text.trim();
    if (!message || busy) return;
    const i = turns.length;
    setTurns((ts) => [...ts, { user: message, at: Date.now(), reply: "", trace: [], streaming: true }]);
    setText("");
    setBusy(true);
    try {
      const body = JSON.stringify({ message, conversationId, dryRun });
      const res = await apiFetch(`/api/robots/${enc(props.robot)}/chat`, { method: "POST", body }, "text/event-stream, application/json");
      if (!res.ok) throw await failure(res);
      if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
        for await (const ev of sse(res)) {
          const d = (ev.data && typeof ev.data === "object" ? ev.data : {}) as Rec;
          if (ev.event === "delta") update(i, (t) => ({ reply: t.reply + toText(d.text) }));
          else if (ev.event === "event") {
            const live = liveRecord(d);
            if (live) update(i, (t) => ({ trace: [...t.trace, live] }));
          } else if (ev.event === "confirm") {
            const ask: Confirmation = { id: toText(d.id), call: (d.call ?? {}) as Rec, timeout: Number(d.timeout ?? 0), state: "asking" };
            update(i, (t) => ({ confirms: [...(t.confirms ?? []), ask] }));
          } else if (ev.event === "done") finish(i, d);
          else if (ev.event === "error") throw new ApiError(typeof d.status === "number" ? d.status : 0, toText(d.message ?? ev.data), d);
        }
      } else {
        finish(i, (await res.json()) as Rec);
      }
    } catch (err) {
      const body = err instanceof ApiError && err.body && typeof err.body === "object" ? (err.body as Rec) : {};
      // the failed turn is stored in this conversation: the next one goes on in it
      if (typeof body.conversationId === "string") adopt(body.conversationId);
      const typed = failureOf(body);
      const status = err instanceof ApiError ? err.status : 0;
      update(i, typed ? { failure: typed, streaming: false } : { error: err instanceof Error ? err.message : String(err), errorStatus: status, streaming: false });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap="sm" data-testid="chat">
      <Group justify="space-between">
        <Text size="sm" c="dimmed" data-testid="chat-conversation">
          {conversationId ? `Conversation ${conversationId}` : "New conversation"}
        </Text>
        <Group gap="xs">
          {conversationId && (
            <Button size="compact-sm" variant="subtle" component="a" href={routeHash({ robot: props.robot, traces: true, conversation: conversationId })}>
              Open in trace explorer
            </Button>
          )}
          <Button size="compact-sm" variant="default" onClick={startNew} disabled={busy}>
            New conversation
          </Button>
        </Group>
      </Group>
      {stored.isPending && props.conversation && <Text size="sm" c="dimmed">Loading the conversation…</Text>}
      {stored.error && <Alert color="red" title="Cannot resume this conversation">{stored.error.message}</Alert>}
      {turns.map((t, i) => (
        <Paper key={i} withBorder p="sm" data-turn={i + 1}>
          <Group justify="space-between">
            <Text size="sm" fw={600}>
              You
            </Text>
            {t.at !== undefined && <Text size="xs" c="dimmed" data-testid="turn-time">{when(t.at)}</Text>}
          </Group>
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
            {t.user}
          </Text>
          <Text size="sm" fw={600} mt="xs">
            {props.robot}
          </Text>
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }} data-testid="reply">
            {t.reply || (t.streaming ? "…" : "")}
          </Text>
          {t.answer && <ServerBlocks message={t.answer} />}
          {(t.confirms ?? []).map((c) => (
            <ConfirmCall
              key={c.id}
              robot={props.robot}
              confirm={c}
              onState={(patch) => update(i, (turn) => ({ confirms: (turn.confirms ?? []).map((x) => (x.id === c.id ? { ...x, ...patch } : x)) }))}
            />
          ))}
          {t.failure && <FailureNotice failure={t.failure} />}
          {t.refusal !== undefined && (
            <Alert color="yellow" title="Refused" data-testid="refusal">
              {t.refusal}
            </Alert>
          )}
          {t.error && (
            <Alert color="red" title={errorTitle(t.errorStatus ?? 0)} data-testid="turn-error">
              {t.error}
            </Alert>
          )}
          {(t.trace.length > 0 || t.request !== undefined) && (
            <Accordion variant="contained" mt="xs" defaultValue={t.stored ? null : "trace"}>
              <Accordion.Item value="trace">
                <Accordion.Control>{`Trace (${t.trace.length} records)`}</Accordion.Control>
                <Accordion.Panel>
                  <Stack gap={6}>
                    {t.trace.map((r, j) => (
                      <TraceRecord key={j} record={r} shownScripts={scriptsOf(t.trace.slice(0, j))} />
                    ))}
                    {t.request !== undefined && (
                      <TraceStep kind="provider request" body={JSON.stringify(t.request, null, 2)} code>
                        {components.data && (
                          <Button size="compact-xs" variant="light" color="grape" mt={4} onClick={() => setPlaying(t.request)}>
                            Open in playground
                          </Button>
                        )}
                      </TraceStep>
                    )}
                  </Stack>
                </Accordion.Panel>
              </Accordion.Item>
            </Accordion>
          )}
        </Paper>
      ))}
      {components.data && (
        <Modal opened={playing !== undefined} onClose={() => setPlaying(undefined)} size="90%" title="Playground — the dry run's request">
          {playing !== undefined && (
            <Playground robot={props.robot} llm={components.data.llm} prompt={components.data.prompt} original="(a dry run: nothing was sent)" initial={playMessagesOf(playing)} offerTools />
          )}
        </Modal>
      )}
      <Textarea
        aria-label="Message"
        placeholder="Message the robot… (Enter sends, Shift+Enter adds a line)"
        autosize
        minRows={2}
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <Group justify="space-between">
        <Switch label="Dry run (show the provider request)" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} />
        <Button onClick={() => void send()} loading={busy}>
          Send
        </Button>
      </Group>
    </Stack>
  );
}
