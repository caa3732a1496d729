/**
 * A stored conversation as the trace explorer reads it: messages (the conversations component's
 * `aget_messages` rows) → turns (a user message and the answers after it) → steps in order.
 *
 * A turn's steps come from its user message's trace records, each marked `__trace_meta`
 * ({seq, source, step} and, since per-step timing, {started_at, duration_ms, call_ms, provider}), plus
 * the answer (an assistant message marked the same way) and the typed failure of a turn that ended
 * without one (`intermediate_trace.failure`). An LLM call that failed is a record of its own (an empty reply
 * with `finish_reason` "call_failed", its model and timing); turns stored before that have only the failure.
 * Records stored before timing have no timing: their steps show no duration. Records are snake_case (the stored JSON); rows are camelCase.
 */
import { toText } from "../components/format";

type Rec = Record<string, unknown>;

const rec = (v: unknown): Rec => (v && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

export interface Timing {
  startedAt?: number;
  durationMs?: number;
}

export interface LLMStep extends Timing {
  kind: "llm";
  /** The LLM step of the turn (0-based), what the request view asks for. */
  step: number;
  model?: string;
  provider?: string;
  usage?: Usage;
  finishReason?: string;
  reasoning?: string;
  text: string;
  refusal?: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  scripts: number;
  answer: boolean;
  /** The call raised instead of replying (refused, unreachable, cut off): the turn's failure says why. */
  failed: boolean;
  /** The record itself, for what the provider ran or cited on its side (`ServerBlocks`). */
  record: Rec;
}

/** The `finish_reason` the chain gives the trace record of an LLM call that failed (`FAILED_CALL`). */
const FAILED_CALL = "call_failed";

export interface ToolStep extends Timing {
  kind: "tool";
  step: number;
  callId: string;
  name: string;
  arguments?: string;
  result: string;
  /** The tool failed. False for a call that never ran (`notRun`): that is no fault of the tool. */
  error: boolean;
  /** The call was not run because the user did not confirm it (refused, timed out, or the chat could not ask). */
  notRun: boolean;
  attachments: unknown[];
}

export interface ConsoleStep extends Timing {
  kind: "console";
  step: number;
  script?: string;
  result: string;
  ok?: boolean;
  attachments: unknown[];
}

export interface FailureStep {
  kind: "failure";
  failure: StoredFailure;
}

export type Step = LLMStep | ToolStep | ConsoleStep | FailureStep;

export interface StoredFailure {
  kind: string;
  message: string;
  provider?: string;
  providerMessage?: string;
  fix?: string;
  status?: number;
  retryAfter?: number;
  errorType?: string;
}

export interface TraceTurn {
  /** The user message's id: the turn's link and the request view's `msg_id`. */
  msgId: string;
  index: number;
  createTs: number;
  user: string;
  steps: Step[];
  failed: boolean;
  toolErrors: number;
  models: string[];
  durationMs?: number;
  tokens: number;
}

function mark(r: Rec): Rec {
  return rec(rec(r.additional_kwargs)["__trace_meta"]);
}

function timing(m: Rec): Timing {
  const out: Timing = {};
  const started = num(m.started_at);
  const duration = num(m.duration_ms);
  if (started !== undefined) out.startedAt = started;
  if (duration !== undefined) out.durationMs = duration;
  return out;
}

function usageOf(v: unknown): Usage | undefined {
  const u = rec(v);
  if (!Object.keys(u).length) return undefined;
  return {
    input: num(u.input_tokens) ?? 0,
    output: num(u.output_tokens) ?? 0,
    cacheRead: num(u.cache_read_tokens) ?? 0,
    cacheWrite: num(u.cache_write_tokens) ?? 0,
    reasoning: num(u.reasoning_tokens) ?? 0,
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return list(content)
    .map((p) => (typeof p === "string" ? p : toText(rec(p).text ?? "")))
    .join("");
}

function llmStep(r: Rec, answer: boolean): LLMStep {
  const m = mark(r);
  const out: LLMStep = {
    kind: "llm",
    step: num(m.step) ?? 0,
    ...timing(m),
    text: textOf(r.content),
    toolCalls: list(r.tool_calls).map((c) => {
      const call = rec(c);
      return { id: toText(call.id), name: toText(call.name), arguments: toText(call.arguments) };
    }),
    scripts: list(r.tfl_scripts).length,
    answer,
    failed: r.finish_reason === FAILED_CALL,
    record: r,
  };
  const [model, provider, finish, reasoning, refusal] = [str(r.model), str(m.provider), str(r.finish_reason), str(r.reasoning_content), str(r.refusal)];
  if (model) out.model = model;
  if (provider) out.provider = provider;
  if (finish && !out.failed) out.finishReason = finish;
  if (reasoning) out.reasoning = reasoning;
  if (refusal) out.refusal = refusal;
  const usage = usageOf(r.usage);
  if (usage) out.usage = usage;
  return out;
}

function failureOf(v: unknown): StoredFailure | undefined {
  const f = rec(v);
  if (typeof f.kind !== "string") return undefined;
  const out: StoredFailure = { kind: f.kind, message: toText(f.message) };
  const [provider, providerMessage, fix, errorType] = [str(f.provider), str(f.provider_message), str(f.fix), str(f.error_type)];
  if (provider) out.provider = provider;
  if (providerMessage) out.providerMessage = providerMessage;
  if (fix) out.fix = fix;
  if (errorType) out.errorType = errorType;
  const [status, retry] = [num(f.status), num(f.retry_after)];
  if (status !== undefined) out.status = status;
  if (retry !== undefined) out.retryAfter = retry;
  return out;
}

/** What the drive's `confirmation_refusal` puts after the tool's name when a `confirm=True` call did not run. */
const NOT_RUN = " was not run: ";

/** The steps of one turn: its trace records in order, then its answers, then its failure. */
export function stepsOf(trace: unknown[], answers: Rec[], failure: unknown): Step[] {
  const steps: Step[] = [];
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const raw of trace) {
    const r = rec(raw);
    const m = mark(r);
    const role = r.role;
    if (role === "assistant") {
      const s = llmStep(r, false);
      s.toolCalls.forEach((c) => calls.set(c.id, c));
      steps.push(s);
    } else if (role === "tool") {
      const callMs = rec(m.call_ms);
      for (const t of list(r.tool_reses)) {
        const tr = rec(t);
        const callId = toText(tr.call_id);
        const call = calls.get(callId);
        const name = toText(tr.name ?? call?.name ?? "");
        const result = toText(tr.result);
        const notRun = tr.is_error === true && result.startsWith(`${name}${NOT_RUN}`);
        const s: ToolStep = {
          kind: "tool",
          step: num(m.step) ?? 0,
          callId,
          name,
          result,
          error: tr.is_error === true && !notRun,
          notRun,
          attachments: list(tr.attachments),
        };
        const started = num(m.started_at);
        const duration = num(callMs[callId]) ?? num(m.duration_ms);
        if (started !== undefined) s.startedAt = started;
        if (duration !== undefined) s.durationMs = duration;
        if (call) s.arguments = call.arguments;
        steps.push(s);
      }
    } else if (role === "console") {
      for (const c of list(r.console_reses)) {
        const cr = rec(c);
        const s: ConsoleStep = { kind: "console", step: num(m.step) ?? 0, ...timing(m), result: toText(cr.result), attachments: list(cr.attachments) };
        const script = str(cr.script);
        if (script) s.script = script;
        const ok = rec(cr.trace_meta).ok;
        if (typeof ok === "boolean") s.ok = ok;
        steps.push(s);
      }
    }
  }
  for (const a of answers) if (a.role === "assistant") steps.push(llmStep(a, true));
  const f = failureOf(failure);
  if (f) steps.push({ kind: "failure", failure: f });
  return steps;
}

/** Stored messages (oldest first) → turns. A message before the first user message opens no turn. */
export function turnsOf(rows: Rec[]): TraceTurn[] {
  const turns: TraceTurn[] = [];
  let current: { row: Rec; answers: Rec[] } | undefined;
  const close = () => {
    if (!current) return;
    const { row, answers } = current;
    const message = rec(row.message);
    const failure = rec(message.intermediate_trace).failure;
    const steps = stepsOf(list(row.trace), answers.map((a) => rec(a.message)), failure);
    const llm = steps.filter((s): s is LLMStep => s.kind === "llm");
    const timed = steps.filter((s): s is LLMStep | ToolStep | ConsoleStep => s.kind !== "failure" && s.startedAt !== undefined);
    const turn: TraceTurn = {
      msgId: toText(row.msgId),
      index: turns.length,
      createTs: num(row.createTs) ?? 0,
      user: toText(row.text),
      steps,
      failed: steps.some((s) => s.kind === "failure"),
      toolErrors: steps.filter((s) => s.kind === "tool" && s.error).length,
      models: [...new Set(llm.map((s) => s.model).filter((m): m is string => !!m))],
      tokens: llm.reduce((n, s) => n + (s.usage ? s.usage.input + s.usage.output : 0), 0),
    };
    if (timed.length) {
      const start = Math.min(...timed.map((s) => s.startedAt as number));
      const end = Math.max(...timed.map((s) => (s.startedAt as number) + (s.durationMs ?? 0)));
      turn.durationMs = end - start;
    }
    turns.push(turn);
  };
  for (const row of rows) {
    if (row.role === "user") {
      close();
      current = { row, answers: [] };
    } else if (current) current.answers.push(row);
  }
  close();
  return turns;
}

export interface TurnFilter {
  failedOnly: boolean;
  toolErrors: boolean;
  model: string | null;
  /** yyyy-mm-dd: turns of that day or later (local time). */
  since: string | null;
}

export function matches(t: TraceTurn, f: TurnFilter): boolean {
  if (f.failedOnly && !t.failed) return false;
  if (f.toolErrors && t.toolErrors === 0) return false;
  if (f.model && !t.models.includes(f.model)) return false;
  if (f.since) {
    const since = new Date(`${f.since}T00:00:00`).getTime();
    if (Number.isFinite(since) && t.createTs < since) return false;
  }
  return true;
}

/** A timestamp (epoch ms) as a date and time the reader's locale writes. */
export function when(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return "";
  return new Date(ms).toLocaleString();
}

export function ms(v: number | undefined): string {
  if (v === undefined) return "—";
  return v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(2)} s`;
}
