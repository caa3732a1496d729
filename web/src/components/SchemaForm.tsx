/**
 * A form generated from a JSON Schema with Mantine inputs.
 *
 * Field renderers are chosen from the console's ranked registry (`./ranked`, JSON Forms'
 * tester/rank idea): each entry rates a schema and the highest rank renders it; the JSON editor
 * (rank 0) is the fallback for anything no entry understands. Unset optional fields stay `undefined` and are omitted from the request.
 */
import {
  ActionIcon,
  Button,
  FileInput,
  Fieldset,
  Group,
  JsonInput,
  NumberInput,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Textarea,
} from "@mantine/core";
import { type ReactNode, useState } from "react";

import { type Schema, deref, titleOf, typeOf, unwrapNullable } from "../protocol/schema";
import { NOT_APPLICABLE, type RankedEntry, rankWith, rankedRegistry } from "./ranked";

export interface SelectOption {
  label: string;
  value: unknown;
}

export interface FieldProps {
  name: string;
  label: string;
  description?: string;
  schema: Schema;
  root: Schema;
  required: boolean;
  value: unknown;
  onChange: (value: unknown) => void;
  readOnly: boolean;
  error?: string | undefined;
  options?: SelectOption[] | undefined;
}

export interface FieldEntry extends RankedEntry<FieldProps> {
  render: (p: FieldProps) => ReactNode;
}

function common(p: FieldProps) {
  return {
    label: p.label,
    description: p.description,
    withAsterisk: p.required,
    error: p.error,
    readOnly: p.readOnly,
    "data-field": p.name,
  };
}

function SelectField(p: FieldProps & { choices: SelectOption[] }) {
  const data = p.choices.map((c, i) => ({ value: String(i), label: c.label }));
  const index = p.choices.findIndex((c) => JSON.stringify(c.value) === JSON.stringify(p.value));
  return (
    <Select
      {...common(p)}
      data={data}
      value={index >= 0 ? String(index) : null}
      clearable={!p.required && !p.readOnly}
      allowDeselect={!p.required}
      onChange={(v) => p.onChange(v === null ? undefined : p.choices[Number(v)]?.value)}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

function JsonField(p: FieldProps) {
  const [text, setText] = useState(() => (p.value === undefined ? "" : JSON.stringify(p.value, null, 2)));
  const [bad, setBad] = useState(false);
  return (
    <JsonInput
      {...common(p)}
      error={p.error ?? (bad ? "Invalid JSON" : undefined)}
      value={text}
      autosize
      minRows={2}
      maxRows={12}
      onChange={(t) => {
        setText(t);
        if (!t.trim()) {
          setBad(false);
          p.onChange(undefined);
          return;
        }
        try {
          p.onChange(JSON.parse(t));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

function ObjectField(p: FieldProps) {
  const obj = (p.value && typeof p.value === "object" ? p.value : {}) as Record<string, unknown>;
  const required = new Set(p.schema.required ?? []);
  return (
    <Fieldset legend={p.label} data-field={p.name} disabled={p.readOnly}>
      {p.description && (
        <Text size="xs" c="dimmed" mb="xs">
          {p.description}
        </Text>
      )}
      <Stack gap="xs">
        {Object.entries(p.schema.properties ?? {}).map(([key, raw]) => {
          const { schema } = unwrapNullable(raw, p.root);
          return (
            <FieldRenderer
              key={key}
              name={`${p.name}.${key}`}
              label={titleOf(key, schema)}
              description={schema.description}
              schema={schema}
              root={p.root}
              required={required.has(key)}
              readOnly={p.readOnly}
              value={obj[key]}
              onChange={(v) => {
                const next = { ...obj };
                if (v === undefined) delete next[key];
                else next[key] = v;
                p.onChange(Object.keys(next).length || p.required ? next : undefined);
              }}
            />
          );
        })}
      </Stack>
      {p.error && (
        <Text size="xs" c="red">
          {p.error}
        </Text>
      )}
    </Fieldset>
  );
}

function ArrayOfObjectsField(p: FieldProps) {
  const list = Array.isArray(p.value) ? p.value : [];
  const itemSchema = unwrapNullable(p.schema.items ?? {}, p.root).schema;
  return (
    <Fieldset legend={p.label} data-field={p.name}>
      <Stack gap="xs">
        {list.map((item, i) => (
          <Group key={i} align="flex-start" wrap="nowrap">
            <div style={{ flex: 1 }}>
              <FieldRenderer
                name={`${p.name}.${i}`}
                label={`#${i + 1}`}
                schema={itemSchema}
                root={p.root}
                required
                readOnly={p.readOnly}
                value={item}
                onChange={(v) => p.onChange(list.map((x, j) => (j === i ? v : x)))}
              />
            </div>
            {!p.readOnly && (
              <ActionIcon variant="subtle" color="red" aria-label={`Remove ${p.label} #${i + 1}`} onClick={() => p.onChange(list.filter((_, j) => j !== i))}>
                ×
              </ActionIcon>
            )}
          </Group>
        ))}
        {!p.readOnly && (
          <Button size="xs" variant="light" onClick={() => p.onChange([...list, {}])}>
            Add {itemSchema.title ?? "item"}
          </Button>
        )}
      </Stack>
      {p.error && (
        <Text size="xs" c="red">
          {p.error}
        </Text>
      )}
    </Fieldset>
  );
}

function numberValue(v: string | number): number | undefined {
  if (v === "" || v === undefined) return undefined;
  const n = typeof v === "number" ? v : Number(v);
  return Number.isNaN(n) ? undefined : n;
}

/**
 * A text longer than this gets a multi-line box; shorter ones (IRIs, file names and URIs, up to 1024
 * characters) stay one line, where Enter submits and the value reads as one thing.
 */
const ONE_LINE_MAX = 1024;

/** The bytes of a chosen file as base64 (what a `contentEncoding: base64` string takes). */
async function fileBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function FileField(p: FieldProps) {
  const [file, setFile] = useState<File | null>(null);
  const [reading, setReading] = useState<string | undefined>();
  // "reading" while the bytes are turned into base64, "read" once the form holds them: a Run pressed before
  // would send the form without the file, so the description says which (and tests wait for "read").
  const [state, setState] = useState<"reading" | "read" | undefined>();
  return (
    <FileInput
      {...common(p)}
      description={state === "reading" ? "reading the file…" : p.description}
      data-file-state={state}
      value={file}
      clearable
      placeholder="Choose a file"
      error={p.error ?? reading}
      onChange={(f) => {
        setFile(f);
        setReading(undefined);
        if (!f) {
          setState(undefined);
          p.onChange(undefined);
          return;
        }
        setState("reading");
        fileBase64(f).then(
          (b64) => {
            p.onChange(b64);
            setState("read");
          },
          (err: unknown) => {
            setState(undefined);
            setReading(`cannot read ${f.name}: ${err instanceof Error ? err.message : String(err)}`);
          },
        );
      }}
    />
  );
}

const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local", time: "time" };

/** The field renderers by rank; JsonField (rank 0) is the fallback; `FIELD_RENDERERS.register` adds one. */
export const FIELD_RENDERERS = rankedRegistry<FieldProps, FieldEntry>(
  "field renderer",
  [
    {
      name: "options",
      rank: rankWith(100, (p) => p.options !== undefined),
      render: (p) => <SelectField {...p} choices={p.options ?? []} />,
    },
    {
      name: "enum",
      rank: (p) => (p.schema.enum ? 50 : p.schema.const !== undefined ? 40 : NOT_APPLICABLE),
      render: (p) => (
        <SelectField {...p} choices={(p.schema.enum ?? [p.schema.const ?? null]).map((v) => ({ label: String(v), value: v }))} />
      ),
    },
    {
      name: "file",
      rank: rankWith(30, (p) => typeOf(p.schema) === "string" && p.schema.contentEncoding === "base64" && !p.readOnly),
      render: (p) => <FileField {...p} />,
    },
    {
      name: "boolean",
      rank: rankWith(10, (p) => typeOf(p.schema) === "boolean"),
      render: (p) => (
        <Switch
          label={p.label}
          description={p.description}
          error={p.error}
          checked={p.value === true}
          disabled={p.readOnly}
          data-field={p.name}
          onChange={(e) => p.onChange(e.currentTarget.checked)}
        />
      ),
    },
    {
      name: "number",
      rank: rankWith(10, (p) => ["integer", "number"].includes(typeOf(p.schema) ?? "")),
      render: (p) => (
        <NumberInput
          {...common(p)}
          value={typeof p.value === "number" ? p.value : ""}
          allowDecimal={typeOf(p.schema) === "number"}
          min={p.schema.minimum}
          max={p.schema.maximum}
          onChange={(v) => p.onChange(numberValue(v))}
        />
      ),
    },
    {
      name: "string",
      rank: rankWith(10, (p) => typeOf(p.schema) === "string"),
      render: (p) => {
        const value = typeof p.value === "string" ? p.value : p.value === undefined ? "" : String(p.value);
        const long = (p.schema.maxLength ?? 0) > ONE_LINE_MAX || p.schema.format === "textarea" || value.includes("\n");
        const onChange = (t: string) => p.onChange(t === "" && !p.required ? undefined : t);
        if (long) return <Textarea {...common(p)} autosize minRows={3} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
        return (
          <TextInput
            {...common(p)}
            type={INPUT_TYPES[p.schema.format ?? ""] ?? "text"}
            placeholder={p.schema.format}
            value={value}
            onChange={(e) => onChange(e.currentTarget.value)}
          />
        );
      },
    },
    {
      name: "tags",
      rank: (p) => {
        if (typeOf(p.schema) !== "array") return NOT_APPLICABLE;
        const t = typeOf(unwrapNullable(p.schema.items ?? {}, p.root).schema);
        return t === "string" || t === "integer" || t === "number" ? 20 : NOT_APPLICABLE;
      },
      render: (p) => {
        const numeric = ["integer", "number"].includes(typeOf(unwrapNullable(p.schema.items ?? {}, p.root).schema) ?? "");
        const list = Array.isArray(p.value) ? p.value.map(String) : [];
        return (
          <TagsInput
            {...common(p)}
            value={list}
            placeholder="Type and press Enter"
            onChange={(tags) => p.onChange(numeric ? tags.map(Number).filter((n) => !Number.isNaN(n)) : tags)}
          />
        );
      },
    },
    {
      name: "array-of-objects",
      rank: (p) => {
        if (typeOf(p.schema) !== "array") return NOT_APPLICABLE;
        return unwrapNullable(p.schema.items ?? {}, p.root).schema.properties ? 20 : NOT_APPLICABLE;
      },
      render: (p) => <ArrayOfObjectsField {...p} />,
    },
    {
      name: "object",
      rank: rankWith(15, (p) => typeOf(p.schema) === "object" && Object.keys(p.schema.properties ?? {}).length > 0),
      render: (p) => <ObjectField {...p} />,
    },
    { name: "json", rank: () => 0, render: (p) => <JsonField {...p} /> },
  ],
  (p) => `the field ${JSON.stringify(p.name)}`,
);

export function FieldRenderer(props: FieldProps) {
  const schema = deref(props.schema, props.root);
  // A null from the data (a node without properties) is an empty field, never the text "null".
  const p = { ...props, schema, value: props.value === null ? undefined : props.value };
  return <>{FIELD_RENDERERS.select(p).render(p)}</>;
}
