/**
 * An action's form: params resolved from the element's scope (x-ref read-only, x-default
 * prefilled, x-fetch when both fail), confirmation for deletes, 422 messages on their fields,
 * a stale write's 409 with "Reload" / "Overwrite", cache invalidation after mutations. Also the
 * row/node/edge buttons that open it.
 */
import { Alert, Badge, Button, Code, Collapse, Group, Loader, Modal, Stack, Text, Tooltip } from "@mantine/core";
import { modals } from "@mantine/modals";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, createContext, useContext, useEffect, useMemo, useState } from "react";

import { type ActionInfo, ApiError, type Conflict, api, conflictOf } from "../api/client";
import { type Params, type Scope, type UiResolution, optionsFor, pruneParams, resolveForUi } from "../protocol/resolver";
import { type FieldInfo, fieldsOf, titleOf } from "../protocol/schema";
import { actionTitle, isDestructive, isMutation, useComponent } from "./context";
import { toText } from "./format";
import { ResultView } from "./ResultView";
import { FieldRenderer } from "./SchemaForm";
import { notifyDone } from "./toast";

type ResolutionState = { status: "pending" } | { status: "done"; value: UiResolution } | { status: "error"; message: string };

/** The scopes an element action resolves in: the element's own over its container's. */
export interface Scopes {
  element: Scope;
  container: Scope;
}

export const NO_SCOPES: Scopes = { element: {}, container: {} };

/** Resolve `action` in `scope`; re-runs when the scope objects or the x-fetch cache change. */
export function useResolution(action: string, scope: Scopes): ResolutionState {
  const ctx = useComponent();
  const [state, setState] = useState<ResolutionState>({ status: "pending" });
  useEffect(() => {
    let live = true;
    setState({ status: "pending" });
    resolveForUi({
      action,
      actions: ctx.schemas,
      elementScope: scope.element,
      containerScope: scope.container,
      fetch: ctx.invoke,
      cache: ctx.fetchCache,
    }).then(
      (value) => live && setState({ status: "done", value }),
      (err: unknown) => live && setState({ status: "error", message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [action, scope, ctx.schemas, ctx.invoke, ctx.fetchCache]);
  return state;
}

interface OpenRequest {
  action: ActionInfo;
  scope: Scopes;
  /** Resources of the view the action was opened from: refreshed after a mutation. */
  sources: string[];
  key: number;
}

const ModalCtx = createContext<(req: Omit<OpenRequest, "key">) => void>(() => undefined);

/** Hosts the one modal in which element actions open. */
export function ActionModalHost(props: { children: ReactNode }) {
  const [req, setReq] = useState<OpenRequest | null>(null);
  const open = useMemo(() => (r: Omit<OpenRequest, "key">) => setReq({ ...r, key: Date.now() }), []);
  return (
    <ModalCtx.Provider value={open}>
      {props.children}
      <Modal
        opened={req !== null}
        onClose={() => setReq(null)}
        title={req && <ActionHeading action={req.action} />}
        size="lg"
        keepMounted={false}
      >
        {req && (
          <ActionForm key={req.key} action={req.action} scope={req.scope} sources={req.sources} onDone={() => setReq(null)} />
        )}
      </Modal>
    </ModalCtx.Provider>
  );
}

/** An action's title with its name beside it (the name is what the API, the logs and the docs use). */
export function ActionHeading(props: { action: ActionInfo }) {
  const title = actionTitle(props.action);
  return (
    <Group gap="xs" component="span">
      <Text component="span" fw={600}>
        {title}
      </Text>
      {title !== props.action.name && <Code>{props.action.name}</Code>}
    </Group>
  );
}

export function ActionButton(props: { action: ActionInfo; scope: Scopes; sources: string[]; size?: string }) {
  const { action, scope } = props;
  const open = useContext(ModalCtx);
  const state = useResolution(action.name, scope);
  const reason = state.status === "done" ? state.value.blocked : state.status === "error" ? state.message : undefined;
  const warning = state.status === "done" ? state.value.warning : undefined;
  const color = isDestructive(action) ? "red" : warning ? "orange" : undefined;
  const button = (
    <Button
      size={props.size ?? "compact-xs"}
      variant="light"
      color={color}
      loading={state.status === "pending"}
      disabled={!!reason}
      data-action={action.name}
      data-blocked-reason={reason}
      title={reason ?? warning ?? action.description ?? undefined}
      onClick={(e) => {
        e.stopPropagation();
        open({ action, scope, sources: props.sources });
      }}
    >
      {warning ? `⚠ ${actionTitle(action)}` : actionTitle(action)}
    </Button>
  );
  if (!reason) return button;
  return (
    <Tooltip label={reason} multiline w={320} withinPortal>
      <span>{button}</span>
    </Tooltip>
  );
}

/** The buttons of one element: its schema's x-actions that the component registers. */
export function ActionButtons(props: { names: string[] | undefined; scope: Scopes; sources: string[] }) {
  const ctx = useComponent();
  const actions = (props.names ?? []).map((n) => ctx.byName[n]).filter((a): a is ActionInfo => !!a);
  if (!actions.length) return null;
  return (
    <Group gap={4} wrap="nowrap">
      {actions.map((a) => (
        <ActionButton key={a.name} action={a} scope={props.scope} sources={props.sources} />
      ))}
    </Group>
  );
}

/**
 * A config action's form starts from the component's configuration in effect: its scalar and list
 * values (a template, a provider, a model). Objects (`params`, `defaults`) start empty: the config
 * actions keep them when they are not sent, and a stored one may hold deployment settings that are
 * not writable over HTTP.
 */
function configValues(config: unknown, fields: FieldInfo[]): Params {
  if (!config || typeof config !== "object") return {};
  const c = config as Record<string, unknown>;
  const out: Params = {};
  for (const f of fields) {
    const v = c[f.name];
    if (v !== null && v !== undefined && (typeof v !== "object" || Array.isArray(v))) out[f.name] = v;
  }
  return out;
}

export function ActionForm(props: { action: ActionInfo; scope: Scopes; sources?: string[]; standalone?: boolean; onDone?: () => void }) {
  const { action, scope } = props;
  const ctx = useComponent();
  const state = useResolution(action.name, scope);
  const fields = useMemo(() => fieldsOf(action.paramsSchema), [action.paramsSchema]);
  const [values, setValues] = useState<Params | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [result, setResult] = useState<{ value: unknown } | null>(null);
  const [running, setRunning] = useState(false);
  const [showScope, setShowScope] = useState(false);

  const client = useQueryClient();
  const isConfig = action.alias?.resourceOpType === "config";
  const components = useQuery({
    queryKey: ["components", ctx.robot],
    queryFn: () => api.components(ctx.robot),
    enabled: isConfig,
  });
  const configWait = isConfig && components.isPending;
  const config = components.data?.find((c) => c.name === ctx.component)?.config;

  const resolution = state.status === "done" ? state.value : undefined;
  useEffect(() => {
    if (!resolution || configWait) return;
    const resolved = Object.fromEntries(Object.entries(resolution.params).filter(([, v]) => v !== null && v !== undefined));
    setValues({ ...(isConfig ? configValues(config, fields) : {}), ...resolved });
  }, [resolution, configWait, isConfig, config, fields]);

  if (state.status === "pending" || configWait || (resolution && values === null)) return <Loader size="sm" aria-label="Resolving parameters" />;
  if (state.status === "error") return <Alert color="red">{state.message}</Alert>;
  const r = resolution as UiResolution;
  const current = values ?? {};
  const locked = new Set(props.standalone && r.blocked ? [] : r.locked);
  const missing = fields.filter((f) => f.required && current[f.name] === undefined).map((f) => f.name);
  const blockedHere = !props.standalone && !!r.blocked;

  const run = async (sent: Params = current) => {
    setRunning(true);
    setFailure(null);
    setConflict(null);
    setErrors({});
    try {
      const out = await ctx.invoke(action.name, pruneParams(sent, fields));
      if (isMutation(action)) {
        await ctx.afterMutation(action, props.sources ?? []);
        if (isConfig) await client.invalidateQueries({ queryKey: ["components", ctx.robot] });
        notifyDone(action);
      }
      setResult({ value: out });
      if (isMutation(action) && props.onDone) props.onDone();
    } catch (err) {
      const stale = conflictOf(err);
      if (stale) {
        setConflict(stale);
        return;
      }
      if (err instanceof ApiError && err.status === 422 && Object.keys(err.fields).length) {
        // Each message once, where it belongs: on its field; only what no field shows goes in the alert.
        const known = new Set(fields.map((f) => f.name));
        const entries = Object.entries(err.fields);
        setErrors(Object.fromEntries(entries.filter(([k]) => known.has(k))));
        const elsewhere = entries.filter(([k]) => !known.has(k)).flatMap(([k, ms]) => ms.map((m) => (k ? `${k}: ${m}` : m)));
        setFailure(elsewhere.length ? elsewhere.join("; ") : null);
        return;
      }
      setFailure(err instanceof Error ? err.message : String(err));
    } finally {
      setRunning(false);
    }
  };

  /** Show what is stored now: refresh the views (and close the form, which reopens from the fresh row). */
  const reload = async () => {
    setConflict(null);
    await ctx.afterMutation(action, props.sources ?? []);
    if (props.onDone) props.onDone();
  };

  /** Keep this form's values: send them again with the version the server named. */
  const overwrite = (stale: Conflict) => {
    const sent = { ...current, ...stale.overwrite };
    setValues(sent);
    void run(sent);
  };

  const submit = () => {
    if (missing.length) {
      setErrors(Object.fromEntries(missing.map((m) => [m, ["Required"]])));
      return;
    }
    if (!isDestructive(action)) {
      void run();
      return;
    }
    const shown = Object.entries(pruneParams(current, fields))
      .map(([k, v]) => `${k}=${toText(v)}`)
      .join(", ");
    modals.openConfirmModal({
      title: `Confirm: ${actionTitle(action)}`,
      children: <Text size="sm">{`This cannot be undone. Run ${action.name} with ${shown || "no parameters"}?`}</Text>,
      labels: { confirm: "Delete", cancel: "Cancel" },
      confirmProps: { color: "red" },
      onConfirm: () => void run(),
    });
  };

  return (
    <Stack gap="sm" data-form={action.name}>
      {action.description && !props.standalone && (
        <Text size="sm" c="dimmed">
          {action.description}
        </Text>
      )}
      {r.warning && (
        <Alert color="orange" title="x-fetch" role="alert">
          {r.warning}
        </Alert>
      )}
      {r.blocked && (
        <Alert color={props.standalone ? "yellow" : "red"} title="Unresolved parameter">
          {r.blocked}
        </Alert>
      )}
      {fields.map((f) => (
        <FieldRenderer
          key={f.name}
          name={f.name}
          label={titleOf(f.name, f.schema)}
          description={[f.schema.description, locked.has(f.name) ? `from ${f.xRef ?? ""}` : undefined].filter(Boolean).join(" · ") || undefined}
          schema={f.schema}
          root={action.paramsSchema}
          required={f.required}
          readOnly={locked.has(f.name)}
          value={current[f.name]}
          error={errors[f.name]?.join("; ")}
          options={optionsFor(f, r.scope)}
          onChange={(v) =>
            setValues((prev) => {
              const next = { ...(prev ?? {}) };
              if (v === undefined) delete next[f.name];
              else next[f.name] = v;
              return next;
            })
          }
        />
      ))}
      {failure && (
        <Alert color="red" title="Request failed" role="alert">
          {failure}
        </Alert>
      )}
      {conflict && (
        <Alert color="orange" title="Changed since you read it" role="alert" data-testid="conflict">
          <Stack gap="xs">
            <Text size="sm">{conflict.message}</Text>
            <Text size="sm">Reload to see the change and edit again, or overwrite it with the values of this form.</Text>
            <Code block data-testid="conflict-current">
              {JSON.stringify(conflict.current, null, 2)}
            </Code>
            <Group gap="xs">
              <Button size="xs" variant="light" onClick={() => void reload()}>
                Reload
              </Button>
              <Button size="xs" color="orange" loading={running} onClick={() => overwrite(conflict)}>
                Overwrite
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
      <Group justify="space-between">
        <Button variant="subtle" size="xs" onClick={() => setShowScope((s) => !s)}>
          {showScope ? "Hide scope" : "Show scope"}
        </Button>
        <Group gap="xs">
          {r.fetches.length > 0 && <Badge variant="light">{`x-fetch: ${r.fetches.map((f) => f.action).join(", ")}`}</Badge>}
          <Button color={isDestructive(action) ? "red" : undefined} loading={running} disabled={blockedHere} onClick={submit}>
            {isDestructive(action) ? "Delete" : "Run"}
          </Button>
        </Group>
      </Group>
      <Collapse expanded={showScope}>
        <Code block data-testid="scope">
          {JSON.stringify(r.scope, null, 2)}
        </Code>
      </Collapse>
      {result && <ResultView value={result.value} schema={action.retSchema} />}
    </Stack>
  );
}
