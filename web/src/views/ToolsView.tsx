/**
 * A robot's tools (the tools component's `aget_tools`), MCP Inspector's tools tab: each tool with its
 * description, source and read-only / confirm marks, and a form built from the tool's own input schema
 * to call it. Read-only tools are called with `acall_read_tool` (a read token suffices), others with
 * `acall_tool` (write); a tool that asks before each LLM call asks here too.
 */
import { Alert, Badge, Button, Code, Group, Image, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { modals } from "@mantine/modals";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";

import type { ActionInfo } from "../api/client";
import { queryKey, useComponent } from "../components/context";
import { safeImageSrc, toText } from "../components/format";
import { FieldRenderer } from "../components/SchemaForm";
import { type Schema, fieldsOf, titleOf } from "../protocol/schema";

export interface ToolRow {
  name: string;
  description: string;
  source: string;
  inputSchema: Schema;
  readOnly: boolean;
  confirm: boolean;
  timeout: number;
}

interface CallOutcome {
  isError: boolean;
  text: string;
  images: string[];
}

function outcomeOf(body: unknown): CallOutcome {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const result = (b.result && typeof b.result === "object" ? b.result : {}) as Record<string, unknown>;
  const parts = Array.isArray(result.attachments) ? result.attachments : [];
  return {
    isError: b.isError === true,
    text: toText(result.result),
    images: parts.map(safeImageSrc).filter((s): s is string => !!s),
  };
}

function ToolForm(props: { tool: ToolRow }) {
  const { tool } = props;
  const ctx = useComponent();
  const fields = useMemo(() => fieldsOf(tool.inputSchema), [tool.inputSchema]);
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [outcome, setOutcome] = useState<CallOutcome | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const action = tool.readOnly ? "acall_read_tool" : "acall_tool";

  const call = async () => {
    setRunning(true);
    setFailure(null);
    setOutcome(null);
    try {
      setOutcome(outcomeOf(await ctx.invoke(action, { tool_name: tool.name, arguments: values })));
    } catch (err) {
      setFailure(err instanceof Error ? err.message : String(err));
    } finally {
      setRunning(false);
    }
  };
  const submit = () => {
    if (!tool.confirm) return void call();
    modals.openConfirmModal({
      title: `Run ${tool.name}?`,
      children: <Text size="sm">{`${tool.name} asks before it runs (it may change things). Arguments: ${JSON.stringify(values)}`}</Text>,
      labels: { confirm: "Run", cancel: "Cancel" },
      confirmProps: { color: "red" },
      onConfirm: () => void call(),
    });
  };

  return (
    <Paper withBorder p="sm" data-tool-form={tool.name}>
      <Stack gap="xs">
        <Group gap="xs">
          <Title order={5}>{tool.name}</Title>
          <Badge variant="outline">{tool.source}</Badge>
          {tool.readOnly && <Badge color="green">read-only</Badge>}
          {tool.confirm && <Badge color="red">confirm</Badge>}
        </Group>
        {tool.description && <Text size="sm" c="dimmed">{tool.description}</Text>}
        {fields.map((f) => (
          <FieldRenderer
            key={f.name}
            name={f.name}
            label={titleOf(f.name, f.schema)}
            description={f.schema.description}
            schema={f.schema}
            root={tool.inputSchema}
            required={f.required}
            readOnly={false}
            value={values[f.name]}
            onChange={(v) =>
              setValues((prev) => {
                const next = { ...prev };
                if (v === undefined) delete next[f.name];
                else next[f.name] = v;
                return next;
              })
            }
          />
        ))}
        <Group justify="space-between">
          <Text size="xs" c="dimmed">{`${action} · timeout ${tool.timeout} s`}</Text>
          <Button onClick={submit} loading={running} color={tool.confirm ? "red" : undefined} data-testid="call-tool">
            Call
          </Button>
        </Group>
        {failure && (
          <Alert color="red" title="Call refused" role="alert">
            {failure}
          </Alert>
        )}
        {outcome && (
          <Stack gap={4} data-testid="tool-result" data-error={outcome.isError}>
            <Badge color={outcome.isError ? "red" : "green"}>{outcome.isError ? "tool error" : "result"}</Badge>
            <Code block>{outcome.text}</Code>
            {outcome.images.map((src, i) => (
              <Image key={i} src={src} alt={`result image ${i + 1}`} maw={200} data-testid="tool-image" />
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

export function ToolsView(props: { action: ActionInfo }) {
  const ctx = useComponent();
  const params = { page_size: 200 };
  const query = useQuery({
    queryKey: queryKey(ctx.robot, ctx.component, props.action, params),
    queryFn: () => ctx.invoke(props.action.name, params),
  });
  const [open, setOpen] = useState<string | null>(null);
  const data = (query.data && typeof query.data === "object" ? query.data : {}) as Record<string, unknown>;
  const tools = (Array.isArray(data.items) ? data.items : []) as ToolRow[];
  const selected = tools.find((t) => t.name === open);

  return (
    <Stack gap="sm" data-testid="tools-view">
      {query.error && <Alert color="red">{query.error.message}</Alert>}
      <Table striped highlightOnHover data-testid="tools-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Tool</Table.Th>
            <Table.Th>Description</Table.Th>
            <Table.Th>Source</Table.Th>
            <Table.Th>Marks</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tools.map((t) => (
            <Table.Tr key={t.name} data-tool={t.name}>
              <Table.Td>{t.name}</Table.Td>
              <Table.Td>{t.description}</Table.Td>
              <Table.Td>{t.source}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {t.readOnly && <Badge size="xs" color="green">read-only</Badge>}
                  {t.confirm && <Badge size="xs" color="red">confirm</Badge>}
                </Group>
              </Table.Td>
              <Table.Td>
                <Button size="compact-xs" variant="light" onClick={() => setOpen(t.name)} aria-label={`Open ${t.name}`}>
                  Open
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {!query.isPending && tools.length === 0 && <Text c="dimmed">This robot has no tools.</Text>}
      {selected && <ToolForm key={selected.name} tool={selected} />}
    </Stack>
  );
}
