/** Navigation: robots → components → actions (and a chat per robot); the action's base view. */
import {
  Alert,
  AppShell,
  Badge,
  Code,
  Group,
  Loader,
  NavLink,
  PasswordInput,
  ScrollArea,
  Select,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";

import { type ActionInfo, ApiError, api, getToken, setToken } from "./api/client";
import { ActionModalHost } from "./components/ActionForm";
import { ComponentProvider, actionTitle } from "./components/context";
import { navigate, routeHash, useRoute } from "./route";
import { ChatView, useChatAvailable } from "./views/ChatView";
import { ConfigView } from "./views/ConfigView";
import { TraceView } from "./views/TraceView";
import { viewFor } from "./views/registry";

function errorText(err: unknown): string {
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return `${err.message} — set an API token (left).`;
  return err instanceof Error ? err.message : String(err);
}

function TokenInput() {
  const [value, setValue] = useState(getToken());
  return (
    <PasswordInput
      size="xs"
      label="API token"
      placeholder="bearer token (optional)"
      value={value}
      onChange={(e) => setValue(e.currentTarget.value)}
      onBlur={() => {
        if (value.trim() === getToken()) return;
        setToken(value.trim());
        window.location.reload();
      }}
    />
  );
}

function ActionNav(props: { robot: string; component: string; current?: string | undefined }) {
  const q = useQuery({ queryKey: ["actions", props.robot, props.component], queryFn: () => api.actions(props.robot, props.component) });
  if (q.isPending) return <Loader size="xs" m="xs" />;
  if (q.error) return <Text size="xs" c="red">{errorText(q.error)}</Text>;
  const order = (a: ActionInfo) => (viewFor(a).name === "form" ? 1 : 0);
  return (
    <>
      {[...q.data].sort((a, b) => order(a) - order(b)).map((a) => (
        <NavLink
          key={a.name}
          label={actionTitle(a)}
          title={a.name}
          description={a.description ?? undefined}
          active={a.name === props.current}
          rightSection={<Badge size="xs" variant="light" color={viewFor(a).name === "form" ? "gray" : "indigo"}>{viewFor(a).name}</Badge>}
          href={routeHash({ robot: props.robot, component: props.component, action: a.name })}
        />
      ))}
    </>
  );
}

function ActionPage(props: { robot: string; component: string; action?: string | undefined }) {
  const q = useQuery({ queryKey: ["actions", props.robot, props.component], queryFn: () => api.actions(props.robot, props.component) });
  if (q.isPending) return <Loader />;
  if (q.error) return <Alert color="red">{errorText(q.error)}</Alert>;
  const action = q.data.find((a) => a.name === props.action);
  return (
    <ComponentProvider robot={props.robot} component={props.component} actions={q.data}>
      <ActionModalHost>
        {action ? (
          <Stack gap="xs">
            <Group gap="xs">
              <Title order={4}>
                {actionTitle(action)} <Code fz="sm">{action.name}</Code>
              </Title>
              {action.alias?.category && <Badge>{action.alias.category}</Badge>}
              {action.alias?.resource && <Badge variant="outline">{`${action.alias.resource} · ${action.alias.resourceOpType ?? ""}`}</Badge>}
            </Group>
            {action.description && <Text size="sm" c="dimmed">{action.description}</Text>}
            {viewFor(action).render(action)}
          </Stack>
        ) : props.action ? (
          <Text c="dimmed">{`No action “${props.action}” on ${props.component}.`}</Text>
        ) : (
          <ConfigView />
        )}
      </ActionModalHost>
    </ComponentProvider>
  );
}

export function App() {
  const route = useRoute();
  const robots = useQuery({ queryKey: ["robots"], queryFn: api.robots });
  const robot = route.robot ?? robots.data?.[0]?.name;
  const components = useQuery({ queryKey: ["components", robot], queryFn: () => api.components(robot ?? ""), enabled: !!robot });
  const chat = useChatAvailable(robot ?? "");

  return (
    <AppShell header={{ height: 48 }} navbar={{ width: 300, breakpoint: "sm" }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Title order={4}>TFRobot console</Title>
          {robots.error && <Text size="sm" c="red">{errorText(robots.error)}</Text>}
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <Stack gap="xs" mb="xs">
          <Select
            label="Robot"
            size="xs"
            data={(robots.data ?? []).map((r) => r.name)}
            value={robot ?? null}
            allowDeselect={false}
            onChange={(v) => v && navigate({ robot: v })}
          />
        </Stack>
        <ScrollArea style={{ flex: 1 }}>
          {robot && chat && <NavLink label="Chat" active={!!route.chat} href={routeHash({ robot, chat: true })} />}
          {robot && chat && <NavLink label="Trace explorer" active={!!route.traces} href={routeHash({ robot, traces: true })} />}
          {components.isPending && robot && <Loader size="xs" m="xs" />}
          {components.error && <Text size="xs" c="red">{errorText(components.error)}</Text>}
          {(components.data ?? []).map((c) => (
            <NavLink
              key={c.name}
              label={c.name}
              description={c.type}
              opened={route.component === c.name}
              active={route.component === c.name && !route.action}
              href={routeHash({ robot, component: c.name })}
              childrenOffset={12}
            >
              {route.component === c.name && robot ? <ActionNav robot={robot} component={c.name} current={route.action} /> : null}
            </NavLink>
          ))}
        </ScrollArea>
        <TokenInput />
      </AppShell.Navbar>
      <AppShell.Main>
        {robot && route.chat && chat ? (
          <ChatView key={`${robot}/${route.conversation ?? ""}`} robot={robot} conversation={route.conversation} />
        ) : robot && route.traces && chat ? (
          <TraceView robot={robot} conversation={route.conversation} turn={route.turn} />
        ) : robot && route.component ? (
          <ActionPage robot={robot} component={route.component} action={route.action} />
        ) : (
          <Text c="dimmed">{robots.isPending ? "Loading robots…" : "Choose a component on the left."}</Text>
        )}
      </AppShell.Main>
    </AppShell>
  );
}
