/** An action's result: text as text, images as images, anything else as a JSON tree. */
import { Code, Group, Image, Paper, Stack, Tabs, Text, Tree, type TreeNodeData, useTree } from "@mantine/core";
import { useMemo } from "react";

import type { Schema } from "../protocol/schema";
import { safeImageSrc, toText } from "./format";

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
      <Tabs defaultValue="tree">
        <Tabs.List>
          <Tabs.Tab value="tree">Tree</Tabs.Tab>
          <Tabs.Tab value="json">JSON</Tabs.Tab>
          {images.length > 0 && <Tabs.Tab value="images">Images</Tabs.Tab>}
        </Tabs.List>
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
