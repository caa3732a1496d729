/**
 * What a provider ran or cited on its side, in words: the blocks a reply keeps for replay
 * (`server_tool_blocks`: Anthropic's and the Responses API's server tools, Gemini's code execution and
 * grounding) and the Responses API's text items kept whole for their `url_citation` annotations
 * (`text_blocks`). Each block is read from the provider's own shape (`block`, as it came) into a label and
 * its content — code, output, search queries, cited sources as links; a block of a kind not known here
 * shows its type in words and its JSON, so nothing the provider sent is hidden.
 *
 * An answer may cite thousands of sources (a hostile or runaway provider sent 20,000; a resumed chat of 100
 * turns × 1,000 put 100,000 links in the page and blocked it for seconds): a block shows its first
 * `SOURCES_AT_ONCE` links and a button that reveals the rest `SOURCES_CHUNK` at a time.
 */
import { Anchor, Badge, Button, Code, Paper, Stack, Text } from "@mantine/core";
import { useState } from "react";

type Rec = Record<string, unknown>;

const rec = (v: unknown): Rec => (v && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

export interface Source {
  url: string;
  title: string;
}

export interface ShownBlock {
  /** What it is, in words ("Code run by Gemini (Python)", "Sources cited"). */
  label: string;
  provider: string;
  code?: string;
  text?: string;
  sources: Source[];
  failed?: boolean;
}

/** "web_search_tool_result" → "Web search tool result". */
function words(type: string): string {
  const s = type.replace(/[_-]+/g, " ").trim();
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : "Provider block";
}

/** Only web links open (a block is the provider's data, and could name any scheme). */
function source(url: unknown, title: unknown): Source | undefined {
  const u = str(url);
  if (!u || !/^https?:\/\//i.test(u)) return undefined;
  return { url: u, title: str(title) ?? u };
}

function unique(sources: (Source | undefined)[]): Source[] {
  const seen = new Map<string, Source>();
  for (const s of sources) if (s && !seen.has(s.url)) seen.set(s.url, s);
  return [...seen.values()];
}

/** The provider's type of a block: its `type`, or for a Gemini part (no `type`) its one key. */
function typeOf(block: Rec): string {
  const t = str(block.type);
  if (t) return t;
  return Object.keys(block).find((k) => k !== "thought_signature") ?? "";
}

function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

function serverBlock(provider: string, block: Rec): ShownBlock {
  const type = typeOf(block);
  const base = { provider, sources: [] as Source[] };
  switch (type) {
    case "executable_code": {
      const part = rec(block.executable_code);
      const language = str(part.language)?.toLowerCase();
      return { ...base, label: `Code run by Gemini${language ? ` (${language.charAt(0).toUpperCase()}${language.slice(1)})` : ""}`, code: str(part.code) ?? "" };
    }
    case "code_execution_result": {
      const part = rec(block.code_execution_result);
      const outcome = str(part.outcome) ?? "";
      const failed = outcome !== "" && outcome !== "OUTCOME_OK";
      return { ...base, label: failed ? `Code result: failed (${outcome})` : "Code result", code: str(part.output) ?? "(no output)", failed };
    }
    case "grounding_metadata": {
      const meta = rec(block.grounding_metadata);
      const chunks = list(meta.grounding_chunks).map((c) => rec(rec(c).web));
      const queries = list(meta.web_search_queries).filter((q): q is string => typeof q === "string");
      const shown: ShownBlock = { ...base, label: "Google Search sources", sources: unique(chunks.map((w) => source(w.uri, w.title))) };
      if (queries.length) shown.text = `searched: ${queries.join(" · ")}`;
      return shown;
    }
    case "url_context_metadata": {
      const meta = list(rec(block.url_context_metadata).url_metadata).map(rec);
      const shown: ShownBlock = { ...base, label: "Pages read (URL context)", sources: unique(meta.map((m) => source(m.retrieved_url, m.retrieved_url))) };
      const statuses = meta.map((m) => str(m.url_retrieval_status)).filter((s): s is string => !!s);
      if (statuses.length) shown.text = statuses.join(" · ");
      return shown;
    }
    case "web_search_call": {
      const action = rec(block.action);
      const queries = list(action.queries).filter((q): q is string => typeof q === "string");
      const asked = queries.length ? queries : [str(action.query)].filter((q): q is string => !!q);
      const sources = unique(list(action.sources).map((s) => source(rec(s).url, rec(s).title)));
      return { ...base, label: "Web search", text: asked.length ? `searched: ${asked.join(" · ")}` : str(block.status) ?? "", sources };
    }
    case "server_tool_use":
    case "mcp_tool_use":
      return { ...base, label: `${type === "mcp_tool_use" ? "MCP tool" : "Server tool"}: ${str(block.name) ?? "?"}`, code: json(block.input ?? {}) };
    case "web_search_tool_result": {
      const results = list(block.content).map(rec);
      return { ...base, label: "Web search results", sources: unique(results.map((r) => source(r.url, r.title))) };
    }
    default:
      return { ...base, label: words(type), code: json(block) };
  }
}

/** The sources a kept Responses text item cites (`url_citation` annotations of its `output_text` parts). */
function citations(provider: string, block: Rec): ShownBlock | undefined {
  const notes = list(block.content).flatMap((p) => list(rec(p).annotations)).map(rec);
  const sources = unique(notes.filter((a) => a.type === "url_citation").map((a) => source(a.url, a.title)));
  return sources.length ? { label: "Sources cited", provider, sources } : undefined;
}

/** A stored reply's (snake_case) or a chat event's (camelCase) provider blocks, in words. */
export function blocksOf(message: Rec): ShownBlock[] {
  const server = list(message.server_tool_blocks ?? message.serverToolBlocks).map(rec);
  const texts = list(message.text_blocks ?? message.textBlocks).map(rec);
  const out = server.map((b) => serverBlock(str(b.provider) ?? "", rec(b.block)));
  for (const t of texts) {
    const cited = citations(str(t.provider) ?? "", rec(t.block));
    if (cited) out.push(cited);
  }
  return out;
}

/** Links a block shows before the user asks for more. */
export const SOURCES_AT_ONCE = 20;
/** Links each "show more" adds. */
export const SOURCES_CHUNK = 500;

/** How many of `total` sources show after one more click when `shown` do. */
export function moreShown(shown: number, total: number): number {
  return Math.min(total, shown + SOURCES_CHUNK);
}

/** The label of the button that reveals more of `total` sources when `shown` do. */
export function moreLabel(shown: number, total: number): string {
  const n = total.toLocaleString("en-US");
  return shown <= SOURCES_AT_ONCE ? `show all ${n}` : `show more (${shown.toLocaleString("en-US")} of ${n})`;
}

function Sources(props: { sources: Source[] }) {
  const { sources } = props;
  const [shown, setShown] = useState(SOURCES_AT_ONCE);
  return (
    <Stack gap={0} data-testid="server-block-sources">
      {sources.slice(0, shown).map((s) => (
        <Anchor key={s.url} href={s.url} target="_blank" rel="noopener noreferrer" size="xs">
          {s.title}
        </Anchor>
      ))}
      {shown < sources.length && (
        <Button
          size="compact-xs"
          variant="subtle"
          w="fit-content"
          data-testid="server-block-more"
          onClick={() => setShown(moreShown(shown, sources.length))}
        >
          {moreLabel(shown, sources.length)}
        </Button>
      )}
    </Stack>
  );
}

export function ServerBlocks(props: { message: Rec }) {
  const blocks = blocksOf(props.message);
  if (!blocks.length) return null;
  return (
    <Stack gap={4} mt={4}>
      {blocks.map((b, i) => (
        <Paper key={i} withBorder p="xs" data-testid="server-block" data-label={b.label}>
          <Badge size="xs" variant="light" color={b.failed ? "red" : "cyan"} mb={4}>
            {b.label}
          </Badge>
          {b.provider && (
            <Text span size="xs" c="dimmed" ml={6}>
              {`by ${b.provider}`}
            </Text>
          )}
          {b.text && <Text size="xs">{b.text}</Text>}
          {b.code !== undefined && (
            <Code block data-testid="server-block-code">
              {b.code}
            </Code>
          )}
          {b.sources.length > 0 && <Sources sources={b.sources} />}
        </Paper>
      ))}
    </Stack>
  );
}
