/**
 * The playground: an LLM step's messages, edited and sent again — to the robot's LLM or to another
 * provider, model and parameters, or to two side by side — with the reply beside the original.
 *
 * Sends through the LLM component's `aplay` (write token): the request each column shows is the one
 * that call built and sent; nothing is stored. The messages start as the step's own (`astep_request`'s
 * `messages`: text, tool calls and tool results, so sending them unchanged sends the step's request), or as the
 * text messages of a request from a server that does not give them; tool calls are shown, not edited. A system prompt draft renders
 * through the prompt component's `arender_draft` with the variables given, unsaved.
 */
import { Alert, Badge, Button, Checkbox, Code, Grid, Group, Paper, Select, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { useState } from "react";

import { api } from "../api/client";
import { toText } from "../components/format";

type Rec = Record<string, unknown>;

export interface PlayToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A message of the draft, as the LLM component's `aplay` takes it (and `astep_request` gives a step's). */
export interface PlayMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** assistant: the tool calls it made (shown, not editable). */
  toolCalls?: PlayToolCall[];
  /** tool: the call this result answers. */
  toolCallId?: string;
  name?: string;
  isError?: boolean;
  reasoning?: string;
  model?: string;
}

const ROLES = ["system", "user", "assistant", "tool"] as const;

/** The model answers the last message: the user's, or a tool result (a step after tool calls). */
const answerable = (m: PlayMessage | undefined) => m?.role === "user" || m?.role === "tool";

/** A step's messages as `astep_request` gives them (`messages`): kept whole, tool calls and results included. */
export function stepMessagesOf(messages: unknown): PlayMessage[] | undefined {
  if (!Array.isArray(messages) || !messages.length) return undefined;
  return messages.filter((m): m is PlayMessage => !!m && typeof m === "object" && ROLES.includes((m as Rec).role as PlayMessage["role"]));
}

function partText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((p) => (p && typeof p === "object" && typeof (p as Rec).text === "string" ? ((p as Rec).text as string) : "")).filter(Boolean);
  return texts.length ? texts.join("\n") : undefined;
}

/** The text messages of a provider request (system/developer, user, assistant), in order. */
export function playMessagesOf(request: unknown): PlayMessage[] {
  const r = (request && typeof request === "object" ? request : {}) as Rec;
  const out: PlayMessage[] = [];
  if (typeof r.system === "string") out.push({ role: "system", content: r.system });
  const list = Array.isArray(r.messages) ? r.messages : Array.isArray(r.contents) ? r.contents : [];
  for (const m of list) {
    const msg = (m && typeof m === "object" ? m : {}) as Rec;
    const role = msg.role === "developer" ? "system" : msg.role === "model" ? "assistant" : msg.role;
    const text = partText(msg.content ?? msg.parts);
    if ((role === "system" || role === "user" || role === "assistant") && text !== undefined) out.push({ role, content: text });
  }
  return out;
}

interface Target {
  provider: string;
  model: string;
  params: string;
}

interface Outcome {
  state: "sending" | "done" | "failed";
  reply?: string;
  error?: string;
  request?: unknown;
  model?: string;
}

function TargetForm(props: { label: string; target: Target; onChange: (t: Target) => void }) {
  const t = props.target;
  return (
    <Group gap="xs" grow align="start">
      <TextInput size="xs" label={`${props.label} provider`} placeholder="the robot's" value={t.provider} onChange={(e) => props.onChange({ ...t, provider: e.currentTarget.value })} />
      <TextInput size="xs" label={`${props.label} model`} placeholder="the robot's" value={t.model} onChange={(e) => props.onChange({ ...t, model: e.currentTarget.value })} />
      <TextInput size="xs" label={`${props.label} parameters (JSON)`} placeholder='{"temperature": 0.2}' value={t.params} onChange={(e) => props.onChange({ ...t, params: e.currentTarget.value })} />
    </Group>
  );
}

function OutcomeView(props: { label: string; outcome: Outcome | undefined }) {
  const o = props.outcome;
  if (!o) return null;
  return (
    <Paper withBorder p="xs" data-testid="play-outcome" data-column={props.label}>
      <Group gap="xs" mb={4}>
        <Badge>{props.label}</Badge>
        {o.model && <Text size="xs" c="dimmed">{o.model}</Text>}
      </Group>
      {o.state === "sending" && <Text size="sm">Sending…</Text>}
      {o.reply !== undefined && (
        <Text size="sm" style={{ whiteSpace: "pre-wrap" }} data-testid="play-reply">
          {o.reply}
        </Text>
      )}
      {o.error && <Alert color="red" title="The provider did not answer">{o.error}</Alert>}
      {o.request !== undefined && (
        <>
          <Text size="xs" fw={600} mt={6}>
            Request sent (exactly)
          </Text>
          <Code block style={{ maxHeight: 240, overflow: "auto" }} data-testid="play-request">
            {JSON.stringify(o.request, null, 2)}
          </Code>
        </>
      )}
    </Paper>
  );
}

export function Playground(props: { robot: string; llm: string; prompt?: string | undefined; original: string; initial: PlayMessage[]; offerTools?: boolean }) {
  const [messages, setMessages] = useState<PlayMessage[]>(props.initial.length ? props.initial : [{ role: "user", content: "" }]);
  const [targets, setTargets] = useState<Target[]>([
    { provider: "", model: "", params: "" },
    { provider: "", model: "", params: "" },
  ]);
  const [compare, setCompare] = useState(false);
  const [offerTools, setOfferTools] = useState(props.offerTools ?? false);
  const [outcomes, setOutcomes] = useState<(Outcome | undefined)[]>([]);
  const [draft, setDraft] = useState({ template: "", variables: "{}" });
  const [rendered, setRendered] = useState<{ ok: boolean; text: string } | undefined>();

  const setMessage = (i: number, patch: Partial<PlayMessage>) => setMessages((ms) => ms.map((m, j) => (j === i ? { ...m, ...patch } : m)));

  const sendTo = async (i: number, t: Target) => {
    setOutcomes((os) => Object.assign([...os], { [i]: { state: "sending" } }));
    try {
      const params: Rec = { messages, offer_tools: offerTools };
      if (t.provider.trim()) params.provider = t.provider.trim();
      if (t.model.trim()) params.model = t.model.trim();
      if (t.params.trim()) params.params = JSON.parse(t.params) as unknown;
      const out = (await api.invoke(props.robot, props.llm, "aplay", params)) as Rec;
      const msg = (out.message && typeof out.message === "object" ? out.message : undefined) as Rec | undefined;
      const o: Outcome = { state: "done", request: out.request, model: `${toText(out.provider)} · ${toText(out.model)}` };
      if (msg) {
        const calls = Array.isArray(msg.tool_calls) ? (msg.tool_calls as Rec[]).map((c) => `${toText(c.name)}(${toText(c.arguments)})`) : [];
        o.reply = [partText(msg.content) ?? toText(msg.content), ...calls].filter(Boolean).join("\n");
      }
      if (typeof out.error === "string") o.error = out.error;
      setOutcomes((os) => Object.assign([...os], { [i]: o }));
    } catch (err) {
      setOutcomes((os) => Object.assign([...os], { [i]: { state: "failed", error: err instanceof Error ? err.message : String(err) } }));
    }
  };

  const send = () => {
    setOutcomes([]);
    void sendTo(0, targets[0] as Target);
    if (compare) void sendTo(1, targets[1] as Target);
  };

  const render = async () => {
    if (!props.prompt) return;
    try {
      const variables = JSON.parse(draft.variables || "{}") as unknown;
      const out = (await api.invoke(props.robot, props.prompt, "arender_draft", { template: draft.template, variables })) as Rec;
      setRendered(out.ok === true ? { ok: true, text: toText(out.text) } : { ok: false, text: toText(out.error) });
    } catch (err) {
      setRendered({ ok: false, text: err instanceof Error ? err.message : String(err) });
    }
  };

  const useAsSystem = (text: string) =>
    setMessages((ms) => (ms[0]?.role === "system" ? [{ role: "system", content: text }, ...ms.slice(1)] : [{ role: "system", content: text }, ...ms]));

  return (
    <Stack gap="sm" data-testid="playground">
      <Text size="xs" c="dimmed">
        Edit the messages and send them again. Nothing is stored; tool calls are kept as the step made them, and tools are
        offered but never run.
      </Text>
      {messages.map((m, i) => (
        <Group key={i} gap="xs" align="start" wrap="nowrap" data-play-message={i} data-role={m.role}>
          <Select size="xs" w={120} aria-label={`Role of message ${i + 1}`} data={[...ROLES]} value={m.role} allowDeselect={false} onChange={(v) => v && setMessage(i, { role: v as PlayMessage["role"] })} />
          <Stack gap={2} style={{ flex: 1 }}>
            {m.role === "tool" && <Text size="xs" c="dimmed">{`result of ${m.name ?? "tool"} (call ${m.toolCallId ?? "?"})${m.isError ? " · error" : ""}`}</Text>}
            <Textarea size="xs" autosize minRows={1} maxRows={8} aria-label={`Message ${i + 1}`} value={m.content} onChange={(e) => setMessage(i, { content: e.currentTarget.value })} />
            {m.role === "assistant" &&
              (m.toolCalls ?? []).map((c) => (
                <Code key={c.id} block data-testid="play-tool-call">{`${c.name}(${c.arguments})  · call ${c.id}`}</Code>
              ))}
          </Stack>
          <Button size="xs" variant="subtle" color="red" onClick={() => setMessages((ms) => ms.filter((_, j) => j !== i))}>
            Remove
          </Button>
        </Group>
      ))}
      <Group gap="xs">
        <Button size="xs" variant="default" onClick={() => setMessages((ms) => [...ms, { role: "user", content: "" }])}>
          Add message
        </Button>
      </Group>
      {props.prompt && (
        <Paper withBorder p="xs">
          <Title order={6}>System prompt draft</Title>
          <Group gap="xs" grow align="start">
            <Textarea size="xs" label="Template (unsaved)" autosize minRows={2} value={draft.template} onChange={(e) => setDraft({ ...draft, template: e.currentTarget.value })} />
            <Textarea size="xs" label="Variables (JSON)" autosize minRows={2} value={draft.variables} onChange={(e) => setDraft({ ...draft, variables: e.currentTarget.value })} />
          </Group>
          <Group gap="xs" mt={4}>
            <Button size="xs" variant="light" onClick={() => void render()} disabled={!draft.template.trim()}>
              Render draft
            </Button>
            {rendered?.ok && (
              <Button size="xs" variant="default" onClick={() => useAsSystem(rendered.text)}>
                Use as system prompt
              </Button>
            )}
          </Group>
          {rendered && (
            <Text size="sm" c={rendered.ok ? undefined : "red"} style={{ whiteSpace: "pre-wrap" }} mt={4} data-testid="draft-rendered">
              {rendered.text}
            </Text>
          )}
        </Paper>
      )}
      <TargetForm label="A" target={targets[0] as Target} onChange={(t) => setTargets((ts) => [t, ts[1] as Target])} />
      <Group gap="md">
        <Checkbox size="xs" label="Compare with a second model" checked={compare} onChange={(e) => setCompare(e.currentTarget.checked)} />
        <Checkbox size="xs" label="Offer the robot's tools (never run; always with tool calls)" checked={offerTools} onChange={(e) => setOfferTools(e.currentTarget.checked)} />
      </Group>
      {compare && <TargetForm label="B" target={targets[1] as Target} onChange={(t) => setTargets((ts) => [ts[0] as Target, t])} />}
      <Group>
        <Button onClick={send} disabled={!answerable(messages[messages.length - 1])}>
          Send
        </Button>
        {!answerable(messages[messages.length - 1]) && <Text size="xs" c="red">The last message must be the user's or a tool result.</Text>}
      </Group>
      <Grid>
        <Grid.Col span={compare ? 4 : 6}>
          <Paper withBorder p="xs" data-testid="play-original">
            <Badge color="gray" mb={4}>
              original
            </Badge>
            <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
              {props.original || "(no text: the step called tools)"}
            </Text>
          </Paper>
        </Grid.Col>
        <Grid.Col span={compare ? 4 : 6}>
          <OutcomeView label="A" outcome={outcomes[0]} />
        </Grid.Col>
        {compare && (
          <Grid.Col span={4}>
            <OutcomeView label="B" outcome={outcomes[1]} />
          </Grid.Col>
        )}
      </Grid>
    </Stack>
  );
}
