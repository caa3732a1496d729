/**
 * The trace explorer: a robot's stored conversations → a timeline of turns → each turn's steps.
 *
 * Reads the robot's conversations component (`aget_conversations`, `aget_messages`, cursor-paged) and,
 * for an LLM step's request, its LLM component's `astep_request` (re-rendered from the stored history
 * through `construct_request_params`, and labelled so). Routes: #/r/{robot}/traces, …/traces/{conversation},
 * …/traces/{conversation}/{turn msg id} — a link to one turn. The conversation list is paged by cursor
 * (any number of conversations); a conversation's turns load page by page and render virtualised, so a
 * conversation of thousands of turns stays responsive. Filters (failed only, tool errors, model, date) apply
 * to the loaded turns.
 */
import { Alert, Badge, Button, Checkbox, Code, Grid, Group, Image, Loader, Modal, Paper, Select, Stack, Text, TextInput, Title, UnstyledButton } from "@mantine/core";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";

import { api } from "../api/client";
import { safeImageSrc, toText } from "../components/format";
import { routeHash } from "../route";
import { FailureNotice } from "./ChatView";
import { type ChatComponents, useChatComponents } from "./chatInfo";
import { Playground, playMessagesOf, stepMessagesOf } from "./Playground";
import { ServerBlocks } from "./ServerBlocks";
import { type ConsoleStep, type LLMStep, type Step, type ToolStep, type TraceTurn, type TurnFilter, matches, ms, turnsOf, when } from "./traceModel";

type Rec = Record<string, unknown>;
const MESSAGES_PAGE = 200;
const CONVERSATIONS_PAGE = 50;

/** Milliseconds from `start` to the first frame after `ready` turned true (what a user waits for). */
function useRenderMs(ready: boolean, start: React.RefObject<number>): number | undefined {
  const [value, setValue] = useState<number | undefined>();
  useEffect(() => {
    if (ready && value === undefined) requestAnimationFrame(() => setValue(Math.round(performance.now() - start.current)));
  }, [ready, value, start]);
  return value;
}

/** How many turns of a listed conversation failed (0 from a server that does not count them). */
function failedTurns(c: Rec): number {
  return typeof c.failedTurns === "number" ? c.failedTurns : 0;
}

function ConversationList(props: { robot: string; component: string }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const started = useRef(performance.now());
  const q = useQuery({
    queryKey: ["trace-conversations", props.robot, props.component, cursor],
    queryFn: () => api.invoke(props.robot, props.component, "aget_conversations", { cursor, page_size: CONVERSATIONS_PAGE }) as Promise<Rec>,
  });
  const [failedOnly, setFailedOnly] = useState(false);
  const renderMs = useRenderMs(q.data !== undefined, started);
  if (q.error) return <Alert color="red">{q.error.message}</Alert>;
  const page = Array.isArray(q.data?.items) ? (q.data.items as Rec[]) : [];
  const items = failedOnly ? page.filter((c) => failedTurns(c) > 0) : page;
  const next = typeof q.data?.nextCursor === "string" ? q.data.nextCursor : null;
  return (
    <Stack gap="xs" data-testid="trace-conversations">
      <Group justify="space-between">
        <Title order={4}>Conversations</Title>
        <Checkbox size="xs" label="With failed turns" checked={failedOnly} onChange={(e) => setFailedOnly(e.currentTarget.checked)} />
        {renderMs !== undefined && <Text size="xs" c="dimmed" data-testid="conversations-render-ms">{`${items.length} conversations in ${renderMs} ms`}</Text>}
      </Group>
      {q.isPending && <Loader size="sm" />}
      {!q.isPending && !items.length && <Text c="dimmed">No stored conversations yet: chat with the robot first.</Text>}
      <Stack gap={4}>
        {items.map((c) => {
          const id = toText(c.conversationId);
          const failed = failedTurns(c);
          return (
            <Paper key={id} withBorder p="xs" component="a" href={routeHash({ robot: props.robot, traces: true, conversation: id })} data-conversation={id} data-failed={failed > 0 ? "true" : undefined}>
              <Group justify="space-between" wrap="nowrap">
                <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                  <Text size="sm" fw={500} truncate>
                    {toText(c.title) || id}
                  </Text>
                  {failed > 0 && <Badge size="xs" color="red">{`${failed} failed`}</Badge>}
                </Group>
                <Text size="xs" c="dimmed" style={{ whiteSpace: "nowrap" }}>
                  {when(typeof c.updatedTs === "number" ? c.updatedTs : undefined)}
                </Text>
              </Group>
            </Paper>
          );
        })}
      </Stack>
      <Group gap="xs">
        <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((cs) => cs.slice(0, -1))}>
          Previous
        </Button>
        <Button size="xs" variant="default" disabled={!next} onClick={() => setCursors((cs) => [...cs, next])}>
          Next
        </Button>
        <Text size="xs" c="dimmed">{`page ${cursors.length}`}</Text>
      </Group>
    </Stack>
  );
}

function Attachments(props: { parts: unknown[] }) {
  if (!props.parts.length) return null;
  return (
    <Group gap="xs" mt={4}>
      {props.parts.map((p, i) => {
        const src = safeImageSrc(p);
        if (src) return <Image key={i} src={src} alt={`attachment ${i + 1}`} w="auto" maw="100%" fit="contain" data-testid="step-image" />;
        const part = (p && typeof p === "object" ? p : {}) as Rec;
        const name = toText(part.name ?? part.filename ?? part.url ?? part.media_type ?? "file");
        return (
          <Badge key={i} variant="outline" data-testid="step-file">
            {name}
          </Badge>
        );
      })}
    </Group>
  );
}

function Tokens(props: { step: LLMStep }) {
  const u = props.step.usage;
  if (!u) return <Text size="xs" c="dimmed">no usage reported</Text>;
  const parts = [`in ${u.input}`, `out ${u.output}`];
  if (u.cacheRead) parts.push(`cache read ${u.cacheRead}`);
  if (u.cacheWrite) parts.push(`cache write ${u.cacheWrite}`);
  if (u.reasoning) parts.push(`reasoning ${u.reasoning}`);
  return (
    <Text size="xs" data-testid="step-tokens">
      {`tokens: ${parts.join(" · ")}`}
    </Text>
  );
}

function StepHead(props: { kind: string; label: string; durationMs?: number | undefined; startedAt?: number | undefined; color?: string; children?: React.ReactNode }) {
  return (
    <Group justify="space-between" wrap="nowrap" mb={4}>
      <Group gap="xs">
        <Badge size="sm" variant="light" color={props.color ?? "indigo"}>
          {props.kind}
        </Badge>
        <Text size="sm" fw={600}>
          {props.label}
        </Text>
        {props.children}
      </Group>
      <Text size="xs" c="dimmed" data-testid="step-duration" title={when(props.startedAt)}>
        {ms(props.durationMs)}
      </Text>
    </Group>
  );
}

function LLMCard(props: { step: LLMStep; onRequest: () => void; onPlay: () => void }) {
  const s = props.step;
  return (
    <Paper withBorder p="xs" data-step="llm" data-llm-step={s.step}>
      <StepHead
        kind={s.failed ? "LLM call failed" : s.answer ? "LLM answer" : "LLM call"}
        color={s.failed ? "red" : "indigo"}
        label={(s.provider && s.model?.startsWith(`${s.provider}:`) ? s.model : [s.provider, s.model].filter(Boolean).join(" · ")) || "model not recorded"}
        durationMs={s.durationMs}
        startedAt={s.startedAt}
      >
        {s.finishReason && <Badge size="xs" variant="outline">{`finish: ${s.finishReason}`}</Badge>}
      </StepHead>
      {s.failed ? (
        <Text size="xs" c="dimmed" data-testid="step-failed">
          No reply: the provider did not answer this call (why: below). Request shows what it was sent.
        </Text>
      ) : (
        <Tokens step={s} />
      )}
      {s.reasoning && (
        <Text size="sm" c="dimmed" fs="italic" style={{ whiteSpace: "pre-wrap" }} data-testid="step-reasoning">
          {s.reasoning}
        </Text>
      )}
      {s.text && (
        <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
          {s.text}
        </Text>
      )}
      <ServerBlocks message={s.record} />
      {s.refusal && <Alert color="yellow" title="Refused">{s.refusal}</Alert>}
      {s.toolCalls.map((c) => (
        <Code key={c.id} block mt={4}>{`${c.name}(${c.arguments})`}</Code>
      ))}
      {s.scripts > 0 && <Text size="xs" c="dimmed">{`wrote ${s.scripts} TFL script(s): see the console step`}</Text>}
      <Group gap="xs" mt={6}>
        <Button size="compact-xs" variant="light" onClick={props.onRequest}>
          Request
        </Button>
        <Button size="compact-xs" variant="light" color="grape" onClick={props.onPlay}>
          Playground
        </Button>
      </Group>
    </Paper>
  );
}

function ToolCard(props: { step: ToolStep }) {
  const s = props.step;
  return (
    <Paper withBorder p="xs" data-step="tool" data-error={s.error ? "true" : undefined} data-not-run={s.notRun ? "true" : undefined}>
      <StepHead
        kind={s.notRun ? "not run (not confirmed)" : s.error ? "tool error" : "tool"}
        color={s.notRun ? "gray" : s.error ? "red" : "teal"}
        label={s.name}
        durationMs={s.durationMs}
        startedAt={s.startedAt}
      />
      {s.arguments !== undefined && <Code block>{s.arguments}</Code>}
      <Text size="sm" c={s.error ? "red" : s.notRun ? "dimmed" : undefined} style={{ whiteSpace: "pre-wrap" }} mt={4}>
        {s.result}
      </Text>
      <Attachments parts={s.attachments} />
    </Paper>
  );
}

function ConsoleCard(props: { step: ConsoleStep }) {
  const s = props.step;
  return (
    <Paper withBorder p="xs" data-step="console">
      <StepHead kind="TFL" color={s.ok === false ? "red" : "grape"} label={s.ok === false ? "script failed" : "script"} durationMs={s.durationMs} startedAt={s.startedAt} />
      {s.script && (
        <Code block data-testid="step-script">
          {s.script}
        </Code>
      )}
      <Code block mt={4} data-testid="step-console">
        {s.result}
      </Code>
      <Attachments parts={s.attachments} />
    </Paper>
  );
}

function StepCard(props: { step: Step; onRequest: (step: number) => void; onPlay: (step: LLMStep) => void }) {
  const s = props.step;
  if (s.kind === "llm") return <LLMCard step={s} onRequest={() => props.onRequest(s.step)} onPlay={() => props.onPlay(s)} />;
  if (s.kind === "tool") return <ToolCard step={s} />;
  if (s.kind === "console") return <ConsoleCard step={s} />;
  return (
    <div data-step="failure">
      <FailureNotice failure={s.failure} />
      {s.failure.errorType && <Text size="xs" c="dimmed">{`error type: ${s.failure.errorType}`}</Text>}
    </div>
  );
}

function RequestModal(props: { robot: string; llm: string; conversation: string; turn: TraceTurn; step: number | null; onClose: () => void }) {
  const q = useStepRequest(props.robot, props.llm, props.conversation, props.turn, props.step);
  return (
    <Modal opened={props.step !== null} onClose={props.onClose} size="xl" title={`Request of LLM step ${props.step ?? ""}`}>
      {q.isPending && <Loader size="sm" />}
      {q.error && <Alert color="red">{q.error.message}</Alert>}
      {q.data && (
        <Stack gap="xs" data-testid="step-request">
          <Group gap="xs">
            <Badge color="orange" data-testid="request-rendered">
              {toText(q.data.rendered)}
            </Badge>
            <Text size="xs" c="dimmed">
              {`rebuilt now from the stored history by construct_request_params for ${toText(q.data.provider)} · ${toText(q.data.model)} (the robot's current system prompt and tools)`}
            </Text>
          </Group>
          <Code block style={{ maxHeight: 520, overflow: "auto" }}>
            {JSON.stringify(q.data.request, null, 2)}
          </Code>
        </Stack>
      )}
    </Modal>
  );
}

function useStepRequest(robot: string, llm: string, conversation: string, turn: TraceTurn, step: number | null) {
  return useQuery({
    queryKey: ["step-request", robot, conversation, turn.msgId, step],
    queryFn: () => api.invoke(robot, llm, "astep_request", { conversation_id: conversation, msg_id: turn.msgId, step }) as Promise<Rec>,
    enabled: step !== null,
  });
}

function PlaygroundModal(props: { robot: string; components: ChatComponents; conversation: string; turn: TraceTurn; step: LLMStep | null; onClose: () => void }) {
  const q = useStepRequest(props.robot, props.components.llm, props.conversation, props.turn, props.step?.step ?? null);
  return (
    <Modal opened={props.step !== null} onClose={props.onClose} size="90%" title={`Playground — LLM step ${props.step?.step ?? ""} of turn ${props.turn.index + 1}`}>
      {q.isPending && <Loader size="sm" />}
      {q.error && <Alert color="red">{q.error.message}</Alert>}
      {q.data && props.step && (
        <Playground
          robot={props.robot}
          llm={props.components.llm}
          prompt={props.components.prompt}
          original={props.step.failed ? "(no reply: the call failed)" : [props.step.text, ...props.step.toolCalls.map((c) => `${c.name}(${c.arguments})`)].filter(Boolean).join("\n")}
          initial={stepMessagesOf(q.data.messages) ?? playMessagesOf(q.data.request)}
          offerTools
        />
      )}
    </Modal>
  );
}

function TurnDetail(props: { robot: string; components: ChatComponents; conversation: string; turn: TraceTurn }) {
  const [requestOf, setRequestOf] = useState<number | null>(null);
  const [playOf, setPlayOf] = useState<LLMStep | null>(null);
  const t = props.turn;
  return (
    <Stack gap="xs" data-testid="turn-detail" data-turn-id={t.msgId}>
      <Group justify="space-between">
        <Title order={5}>{`Turn ${t.index + 1}`}</Title>
        <Text size="xs" c="dimmed">
          {`${when(t.createTs)} · ${ms(t.durationMs)}${t.tokens ? ` · ${t.tokens} tokens` : ""}`}
        </Text>
      </Group>
      <Paper withBorder p="xs" bg="gray.0">
        <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
          {t.user}
        </Text>
      </Paper>
      {t.steps.map((s, i) => (
        <StepCard key={i} step={s} onRequest={setRequestOf} onPlay={setPlayOf} />
      ))}
      <RequestModal robot={props.robot} llm={props.components.llm} conversation={props.conversation} turn={t} step={requestOf} onClose={() => setRequestOf(null)} />
      <PlaygroundModal robot={props.robot} components={props.components} conversation={props.conversation} turn={t} step={playOf} onClose={() => setPlayOf(null)} />
    </Stack>
  );
}

const ROW_HEIGHT = 58;

function TurnRow(props: { turn: TraceTurn; href: string; active: boolean }) {
  const t = props.turn;
  return (
    <UnstyledButton
      component="a"
      href={props.href}
      data-turn-row={t.index + 1}
      data-active={props.active ? "true" : undefined}
      style={{ display: "block", height: ROW_HEIGHT, padding: "4px 8px", borderBottom: "1px solid var(--mantine-color-gray-3)", background: props.active ? "var(--mantine-color-indigo-0)" : undefined }}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" truncate style={{ flex: 1 }}>
          {`${t.index + 1}. ${t.user}`}
        </Text>
        {t.failed && <Badge size="xs" color="red">failed</Badge>}
        {t.toolErrors > 0 && <Badge size="xs" color="orange">{`${t.toolErrors} tool error(s)`}</Badge>}
      </Group>
      <Text size="xs" c="dimmed" truncate>
        {`${when(t.createTs)} · ${t.steps.length} step${t.steps.length === 1 ? "" : "s"} · ${ms(t.durationMs)}${t.models.length ? ` · ${t.models.join(", ")}` : ""}`}
      </Text>
    </UnstyledButton>
  );
}

function Timeline(props: { robot: string; components: ChatComponents; conversation: string; turn?: string | undefined }) {
  const { robot, conversation } = props;
  const component = props.components.conversations;
  const started = useRef(performance.now());
  const q = useInfiniteQuery({
    queryKey: ["trace-messages", robot, component, conversation],
    queryFn: ({ pageParam }) =>
      api.invoke(robot, component, "aget_messages", { conversation_id: conversation, cursor: pageParam, page_size: MESSAGES_PAGE }) as Promise<Rec>,
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (typeof last.nextCursor === "string" ? last.nextCursor : undefined),
  });
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = q;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const rows = useMemo(() => (q.data?.pages ?? []).flatMap((p) => (Array.isArray(p.items) ? (p.items as Rec[]) : [])), [q.data]);
  const turns = useMemo(() => turnsOf(rows), [rows]);
  const [filter, setFilter] = useState<TurnFilter>({ failedOnly: false, toolErrors: false, model: null, since: null });
  const shown = useMemo(() => turns.filter((t) => matches(t, filter)), [turns, filter]);
  const models = useMemo(() => [...new Set(turns.flatMap((t) => t.models))].sort(), [turns]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: shown.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const loaded = q.data !== undefined && !hasNextPage;
  const renderMs = useRenderMs(loaded, started);
  const selected = turns.find((t) => t.msgId === props.turn);
  const selectedIndex = selected ? shown.indexOf(selected) : -1;
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);

  if (q.error) return <Alert color="red">{q.error.message}</Alert>;
  return (
    <Grid>
      <Grid.Col span={5}>
        <Stack gap="xs">
          <Group justify="space-between">
            <Button size="compact-xs" variant="subtle" component="a" href={routeHash({ robot, traces: true })}>
              ← Conversations
            </Button>
            <Button size="compact-xs" variant="light" component="a" href={routeHash({ robot, chat: true, conversation })}>
              Continue in chat
            </Button>
          </Group>
          <Text size="sm" fw={600} truncate>
            {conversation}
          </Text>
          <Group gap="xs" align="end">
            <Checkbox size="xs" label="Failed only" checked={filter.failedOnly} onChange={(e) => setFilter({ ...filter, failedOnly: e.currentTarget.checked })} />
            <Checkbox size="xs" label="Tool errors" checked={filter.toolErrors} onChange={(e) => setFilter({ ...filter, toolErrors: e.currentTarget.checked })} />
          </Group>
          <Group gap="xs" grow>
            <Select size="xs" label="Model" placeholder="any model" clearable data={models} value={filter.model} onChange={(v) => setFilter({ ...filter, model: v })} />
            <TextInput size="xs" type="date" label="Since" value={filter.since ?? ""} onChange={(e) => setFilter({ ...filter, since: e.currentTarget.value || null })} />
          </Group>
          <Group justify="space-between">
            <Text size="xs" c="dimmed" data-testid="turn-count">{`${shown.length} of ${turns.length} turns${hasNextPage ? " (loading…)" : ""}`}</Text>
            {renderMs !== undefined && <Text size="xs" c="dimmed" data-testid="turns-render-ms">{`${turns.length} turns in ${renderMs} ms`}</Text>}
          </Group>
          <div ref={scrollRef} style={{ height: 560, overflow: "auto", border: "1px solid var(--mantine-color-gray-3)" }} data-testid="turn-scroll">
            <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
              {virtualizer.getVirtualItems().map((vi) => {
                const t = shown[vi.index] as TraceTurn;
                return (
                  <div key={t.msgId} style={{ position: "absolute", top: 0, left: 0, right: 0, transform: `translateY(${vi.start}px)` }}>
                    <TurnRow turn={t} active={t === selected} href={routeHash({ robot, traces: true, conversation, turn: t.msgId })} />
                  </div>
                );
              })}
            </div>
          </div>
        </Stack>
      </Grid.Col>
      <Grid.Col span={7}>
        {selected ? (
          <TurnDetail robot={robot} components={props.components} conversation={conversation} turn={selected} />
        ) : props.turn && loaded ? (
          <Alert color="yellow">{`No turn ${props.turn} in this conversation.`}</Alert>
        ) : (
          <Text c="dimmed">Choose a turn to see its steps.</Text>
        )}
      </Grid.Col>
    </Grid>
  );
}

export function TraceView(props: { robot: string; conversation?: string | undefined; turn?: string | undefined }) {
  const components = useChatComponents(props.robot);
  if (components.isPending) return <Loader />;
  if (components.error) return <Alert color="red">{components.error.message}</Alert>;
  return (
    <div data-testid="trace-explorer">
      {props.conversation ? (
        <Timeline key={props.conversation} robot={props.robot} components={components.data} conversation={props.conversation} turn={props.turn} />
      ) : (
        <ConversationList robot={props.robot} component={components.data.conversations} />
      )}
    </div>
  );
}
