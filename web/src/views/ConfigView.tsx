/**
 * A component's configuration, and where it comes from (the component's page, before an action is chosen).
 *
 * A configuration saved through the console (any config action) overrides the robot file at every start;
 * with `aget_config_provenance` the server says so — when, by whom, and the file's and the saved value of
 * every field that differs — and `arevert_config` goes back to the file (after a confirmation).
 */
import { Alert, Badge, Button, Code, Group, Stack, Table, Text, Title } from "@mantine/core";
import { modals } from "@mantine/modals";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

import { api } from "../api/client";
import { useComponent } from "../components/context";
import { toText } from "../components/format";

interface FieldProvenance {
  field: string;
  fileValue?: unknown;
  savedValue?: unknown;
  differs: boolean;
}

export interface ConfigProvenance {
  saved: boolean;
  differs: boolean;
  savedTs?: number | null;
  savedBy?: string | null;
  summary: string;
  fields: FieldProvenance[];
}

const PROVENANCE = "aget_config_provenance";
const REVERT = "arevert_config";

function Provenance(props: { provenance: ConfigProvenance; onRevert?: () => void; busy: boolean }) {
  const p = props.provenance;
  const changed = p.fields.filter((f) => f.differs);
  return (
    <Alert
      color={p.saved && p.differs ? "yellow" : "gray"}
      title={p.saved ? "A configuration saved through the console is in effect" : "The robot file's configuration is in effect"}
      data-testid="config-provenance"
      data-saved={String(p.saved)}
    >
      <Text size="sm">{p.summary}</Text>
      {changed.length > 0 && (
        <Table mt="xs" withTableBorder data-testid="config-differences">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>field</Table.Th>
              <Table.Th>robot file</Table.Th>
              <Table.Th>in effect (saved)</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {changed.map((f) => (
              <Table.Tr key={f.field} data-field={f.field}>
                <Table.Td>{f.field}</Table.Td>
                <Table.Td>
                  <Code>{toText(f.fileValue)}</Code>
                </Table.Td>
                <Table.Td>
                  <Code>{toText(f.savedValue)}</Code>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {p.saved && props.onRevert && (
        <Button mt="xs" size="xs" variant="light" color="yellow" onClick={props.onRevert} loading={props.busy}>
          Revert to the robot file
        </Button>
      )}
    </Alert>
  );
}

export function ConfigView() {
  const ctx = useComponent();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const components = useQuery({ queryKey: ["components", ctx.robot], queryFn: () => api.components(ctx.robot) });
  const config = components.data?.find((c) => c.name === ctx.component)?.config;
  const provenanceAction = ctx.byName[PROVENANCE];
  const revertAction = ctx.byName[REVERT];
  const provenance = useQuery({
    queryKey: ["tfs", ctx.robot, ctx.component, "config_provenance", PROVENANCE],
    queryFn: async () => (await ctx.invoke(PROVENANCE, {})) as ConfigProvenance,
    enabled: !!provenanceAction,
    staleTime: 0, // a config action elsewhere in the console changes it
  });
  const revert = () =>
    modals.openConfirmModal({
      title: "Revert to the robot file?",
      children: <Text size="sm">The configuration saved through the console is dropped; the robot file's applies now and at every start.</Text>,
      labels: { confirm: "Revert", cancel: "Cancel" },
      confirmProps: { color: "yellow" },
      onConfirm: async () => {
        setBusy(true);
        setError(undefined);
        try {
          await ctx.invoke(REVERT, {});
          if (revertAction) await ctx.afterMutation(revertAction);
          await client.invalidateQueries({ queryKey: ["components", ctx.robot] });
        } catch (err) {
          setError(err instanceof Error ? err.message : String(err));
        } finally {
          setBusy(false);
        }
      },
    });
  return (
    <Stack gap="xs" data-testid="config-view">
      <Group gap="xs">
        <Title order={4}>{ctx.component}</Title>
        <Badge variant="outline">configuration</Badge>
      </Group>
      {provenance.data && <Provenance provenance={provenance.data} busy={busy} {...(revertAction ? { onRevert: revert } : {})} />}
      {provenance.error && <Alert color="red">{toText((provenance.error as Error).message)}</Alert>}
      {error && <Alert color="red">{error}</Alert>}
      {config !== undefined && <Code block data-testid="config-json">{JSON.stringify(config, null, 2)}</Code>}
      <Text size="sm" c="dimmed">
        Choose an action on the left.
      </Text>
    </Stack>
  );
}
