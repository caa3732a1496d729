/**
 * Chat with a robot and read each turn's trace in order: reasoning, tool calls and results,
 * TFL scripts and their console output (images included), and the provider request (dry run).
 *
 * Endpoint (see README, "Console → chat endpoint"):
 *   POST /api/robots/{robot}/chat  {message, conversationId?, dryRun?}
 *   → application/json {conversationId?, message, trace: [records], request?}
 *   → or text/event-stream: `delta` {text}, `trace` {record}, `done` {the JSON body above}.
 * The view is hidden when `GET /api/robots/{robot}/chat` answers 404.
 */
import { Accordion, Alert, Badge, Button, Code, Group, Image, Paper, Stack, Switch, Text, Textarea } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";

import { failure, send as apiFetch } from "../api/client";
import { safeImageSrc, toText } from "../components/format";

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

export interface Turn {
  user: string;
  reply: string;
  /** The model refused (finish reason `refusal`): what it or its provider said instead of an answer. */
  refusal?: string;
  trace: Rec[];
  request?: unknown;
  error?: string;
  streaming?: boolean;
}

const enc = encodeURIComponent;

export function useChatAvailable(robot: string): boolean {
  const q = useQuery({
    queryKey: ["chat-probe", robot],
    queryFn: async () => {
      const res = await apiFetch(`/api/robots/${enc(robot)}/chat`);
      return res.status !== 404;
    },
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
        <Image key={i} src={s} alt={`attachment ${i + 1}`} maw={280} data-testid="trace-image" />
      ))}
    </Group>
  );
}

/** One trace record → the steps it holds, in order. */
export function TraceRecord(props: { record: Rec }) {
  const r = props.record;
  const role = toText(r.role);
  const out: React.ReactNode[] = [];
  const reasoning = pick(r, "reasoningContent", "reasoning_content");
  if (reasoning) out.push(<TraceStep key="reasoning" kind="reasoning" body={toText(reasoning)} />);
  const text = contentText(r.content);
  if (text && role !== "tool" && role !== "console") out.push(<TraceStep key="text" kind={role || "message"} body={text} />);
  const refusal = pick(r, "refusal");
  if (refusal) out.push(<TraceStep key="refusal" kind="refusal" body={toText(refusal)} />);
  const server = pick(r, "serverToolBlocks", "server_tool_blocks");
  if (Array.isArray(server)) {
    server.forEach((s: Rec, i) => {
      const block = (s.block ?? {}) as Rec;
      const what = [block.type, block.name].filter((v) => typeof v === "string").join(" ");
      out.push(<TraceStep key={`srv${i}`} kind={`server tool (${toText(s.provider)})`} body={what} code />);
    });
  }
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
          {typeof cr.script === "string" && <Code block>{cr.script}</Code>}
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

export function ChatView(props: { robot: string }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [text, setText] = useState("");
  const [dryRun, setDryRun] = useState(false);
  const [busy, setBusy] = useState(false);
  const [conversationId, setConversationId] = useState<string | undefined>();

  const update = (i: number, patch: Partial<Turn> | ((t: Turn) => Partial<Turn>)) =>
    setTurns((ts) => ts.map((t, j) => (j === i ? { ...t, ...(typeof patch === "function" ? patch(t) : patch) } : t)));

  const finish = (i: number, body: Rec) => {
    if (typeof body.conversationId === "string") setConversationId(body.conversationId);
    const msg = (body.message && typeof body.message === "object" ? body.message : {}) as Rec;
    const reply = contentText(msg.content ?? body.message ?? body.reply);
    const refused = pick(msg, "refusal") ?? (pick(msg, "finishReason", "finish_reason") === "refusal" ? "" : undefined);
    const refusal = refused === undefined ? undefined : toText(refused) || "The model refused to answer.";
    update(i, { reply, refusal, trace: Array.isArray(body.trace) ? (body.trace as Rec[]) : [], request: body.request, streaming: false });
  };

  const send = async () => {
    const message = text.trim();
    if (!message) return;
    const i = turns.length;
    setTurns((ts) => [...ts, { user: message, reply: "", trace: [], streaming: true }]);
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
          else if (ev.event === "trace") update(i, (t) => ({ trace: [...t.trace, (d.record ?? d) as Rec] }));
          else if (ev.event === "done") finish(i, d);
          else if (ev.event === "error") throw new Error(toText(d.message ?? ev.data));
        }
      } else {
        finish(i, (await res.json()) as Rec);
      }
    } catch (err) {
      update(i, { error: err instanceof Error ? err.message : String(err), streaming: false });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap="sm" data-testid="chat">
      {turns.map((t, i) => (
        <Paper key={i} withBorder p="sm" data-turn={i + 1}>
          <Text size="sm" fw={600}>
            You
          </Text>
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
            {t.user}
          </Text>
          <Text size="sm" fw={600} mt="xs">
            {props.robot}
          </Text>
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }} data-testid="reply">
            {t.reply || (t.streaming ? "…" : "")}
          </Text>
          {t.refusal !== undefined && (
            <Alert color="yellow" title="Refused" data-testid="refusal">
              {t.refusal}
            </Alert>
          )}
          {t.error && <Alert color="red">{t.error}</Alert>}
          {(t.trace.length > 0 || t.request !== undefined) && (
            <Accordion variant="contained" mt="xs">
              <Accordion.Item value="trace">
                <Accordion.Control>{`Trace (${t.trace.length} records)`}</Accordion.Control>
                <Accordion.Panel>
                  <Stack gap={6}>
                    {t.trace.map((r, j) => (
                      <TraceRecord key={j} record={r} />
                    ))}
                    {t.request !== undefined && <TraceStep kind="provider request" body={JSON.stringify(t.request, null, 2)} code />}
                  </Stack>
                </Accordion.Panel>
              </Accordion.Item>
            </Accordion>
          )}
        </Paper>
      ))}
      <Textarea
        aria-label="Message"
        placeholder="Message the robot…"
        autosize
        minRows={2}
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void send();
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
