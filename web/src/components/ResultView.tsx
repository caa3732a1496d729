/**
 * An action's result: text as text, a page of stored messages (`aget_messages`) as a conversation,
 * images as images, anything else as a JSON tree.
 */
import { Alert, Badge, Code, Group, Image, Paper, Stack, Tabs, Text, Tree, type TreeNodeData, useTree } from "@mantine/core";
import { useMemo } from "react";

import type { Schema } from "../protocol/schema";
import { dateText, safeImageSrc, toText } from "./format";

/** One stored message as `aget_messages` lists it (ChatMessageItem). */
interface MessageItem {
  msgId?: string;
  role: string;
  msgType?: string | null;
  text: string;
  createTs?: number;
  trace?: unknown[];
  failed?: string | null;
}

function isMessage(v: unknown): v is MessageItem {
  if (!v || typeof v !== "object") return false;
  const m = v as Record<string, unknown>;
  return typeof m.role === "string" && typeof m.text === "string";
}

/** The messages of a result that is a page of them (`{items: [{role, text, …}]}`), else undefined. */
export function messagesOf(value: unknown): MessageItem[] | undefined {
  if (!value || typeof value !== "object") return undefined;
  const items = (value as Record<string, unknown>).items;
  if (!Array.isArray(items) || items.length === 0 || !items.every(isMessage)) return undefined;
  return items;
}

const ROLE_COLORS: Record<string, string> = { user: "blue", assistant: "teal", system: "gray", tool: "violet" };

function MessagesView(props: { messages: MessageItem[] }) {
  return (
    <Stack gap="xs" data-testid="messages">
      {props.messages.map((m, i) => (
        <Paper key={m.msgId ?? i} withBorder p="xs" data-testid="message" data-role={m.role}>
          <Group gap="xs" mb={4}>
            <Badge size="sm" variant="light" color={ROLE_COLORS[m.role] ?? "gray"}>
              {m.role}
            </Badge>
            {m.msgType && m.msgType !== m.role && (
              <Text size="xs" c="dimmed">
                {m.msgType}
              </Text>
            )}
            {m.createTs !== undefined && (
              <Text size="xs" c="dimmed">
                {dateText("createTs", m.createTs)}
              </Text>
            )}
            {(m.trace?.length ?? 0) > 0 && (
              <Text size="xs" c="dimmed">{`${m.trace?.length ?? 0} trace records`}</Text>
            )}
          </Group>
          {m.text ? (
            <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
              {m.text}
            </Text>
          ) : (
            <Text size="sm" c="dimmed">
              (no text)
            </Text>
          )}
          {m.failed && (
            <Alert color="red" mt="xs" title="The turn failed" data-testid="message-failed">
              {m.failed}
            </Alert>
          )}
        </Paper>
      ))}
    </Stack>
  );
}

function toTree(value: unknown, path: string, label: string): TreeNodeData {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    return {
      value: path,
      label: `${label} ${Array.isArray(value) ? `[${value.length}]` : `{${entries.length}}`}`,
      children: entries.slice(0, 500).map(([k, v]) => toTree(v, `${path}/${k}`, k)),
    };
  }
  return { value: path, label: `${label}: ${value === null ? "null" : toText(value)}` };
}

function collectImages(value: unknown, out: string[], depth = 0): string[] {
  if (depth > 6 || out.length > 20 || value === null || typeof value !== "object") return out;
  const src = safeImageSrc(value);
  if (src) out.push(src);
  for (const v of Array.isArray(value) ? value : Object.values(value)) collectImages(v, out, depth + 1);
  return out;
}

export function ResultView(props: { value: unknown; schema?: Schema }) {
  const { value } = props;
  const data = useMemo(() => [toTree(value, "$", "result")], [value]);
  const tree = useTree({ initialExpandedState: { $: true } });
  const images = useMemo(() => collectImages(value, []), [value]);
  const messages = useMemo(() => messagesOf(value), [value]);
  if (value === null || value === undefined) {
    return (
      <Paper withBorder p="xs" data-testid="result">
        <Text size="sm">Done (no content).</Text>
      </Paper>
    );
  }
  if (typeof value !== "object") {
    return (
      <Paper withBorder p="xs" data-testid="result">
        <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
          {toText(value)}
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder p="xs" data-testid="result">
      <Tabs defaultValue={messages ? "messages" : "tree"}>
        <Tabs.List>
          {messages && <Tabs.Tab value="messages">Messages</Tabs.Tab>}
          <Tabs.Tab value="tree">Tree</Tabs.Tab>
          <Tabs.Tab value="json">JSON</Tabs.Tab>
          {images.length > 0 && <Tabs.Tab value="images">Images</Tabs.Tab>}
        </Tabs.List>
        {messages && (
          <Tabs.Panel value="messages" pt="xs">
            <MessagesView messages={messages} />
          </Tabs.Panel>
        )}
        <Tabs.Panel value="tree" pt="xs">
          <Tree data={data} tree={tree} levelOffset={16} />
        </Tabs.Panel>
        <Tabs.Panel value="json" pt="xs">
          <Code block>{JSON.stringify(value, null, 2)}</Code>
        </Tabs.Panel>
        {images.length > 0 && (
          <Tabs.Panel value="images" pt="xs">
            <Stack>
              <Group>
                {images.map((src, i) => (
                  <Image key={i} src={src} alt={`image ${i + 1}`} maw={320} />
                ))}
              </Group>
            </Stack>
          </Tabs.Panel>
        )}
      </Tabs>
    </Paper>
  );
}
