// @vitest-environment jsdom
import { MantineProvider } from "@mantine/core";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { type ReactNode, useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { ActionInfo } from "../src/api/client";
import { FieldRenderer } from "../src/components/SchemaForm";
import type { Schema } from "../src/protocol/schema";
import { TraceRecord } from "../src/views/ChatView";
import { viewFor } from "../src/views/registry";

afterEach(cleanup);

function ui(node: ReactNode) {
  return render(<MantineProvider>{node}</MantineProvider>);
}

function field(schema: Schema, extra: Partial<Parameters<typeof FieldRenderer>[0]> = {}) {
  const onChange = vi.fn();
  ui(
    <FieldRenderer
      name="f"
      label="Field"
      schema={schema}
      root={schema}
      required={false}
      readOnly={false}
      value={undefined}
      onChange={onChange}
      {...extra}
    />,
  );
  return onChange;
}

function Stateful(props: { schema: Schema; onChange: (v: unknown) => void }) {
  const [value, setValue] = useState<unknown>(undefined);
  return (
    <FieldRenderer
      name="f"
      label="Field"
      schema={props.schema}
      root={props.schema}
      required={false}
      readOnly={false}
      value={value}
      onChange={(v) => {
        setValue(v);
        props.onChange(v);
      }}
    />
  );
}

describe("schema form fields", () => {
  it("renders an optional string as a text box; clearing it unsets the value", () => {
    const onChange = vi.fn();
    ui(<Stateful schema={{ type: "string" }} onChange={onChange} />);
    const box = screen.getByLabelText("Field");
    fireEvent.change(box, { target: { value: "abc" } });
    expect(onChange).toHaveBeenLastCalledWith("abc");
    fireEvent.change(box, { target: { value: "" } });
    expect(onChange).toHaveBeenLastCalledWith(undefined);
  });

  it("renders an enum as a select and an x-ref value read-only", () => {
    field({ enum: ["a", "b"] });
    expect(screen.getByRole("combobox")).toBeTruthy();
    cleanup();
    field({ type: "integer" }, { value: 3, readOnly: true });
    expect((screen.getByLabelText("Field") as HTMLInputElement).readOnly).toBe(true);
  });

  it("renders Options as a select of their labels and sends the key", () => {
    const onChange = field(
      { type: "string" },
      { options: [{ label: "Ann", value: "u1" }, { label: "Ben", value: "u2" }], value: "u2" },
    );
    expect((screen.getByRole("combobox") as HTMLInputElement).value).toBe("Ben");
    expect(onChange).not.toHaveBeenCalled();
  });

  it("renders nested objects field by field and arrays of strings as tags", () => {
    field({ type: "object", properties: { city: { type: "string", title: "City" }, zip: { type: "integer" } } });
    expect(screen.getByLabelText("City")).toBeTruthy();
    expect(screen.getByLabelText("Zip")).toBeTruthy();
    cleanup();
    field({ type: "array", items: { type: "string" } }, { value: ["x", "y"] });
    expect(screen.getByText("x")).toBeTruthy();
    expect(screen.getByText("y")).toBeTruthy();
  });
});

describe("free-form values", () => {
  it("fall back to a JSON editor that sends parsed JSON", () => {
    const onChange = vi.fn();
    ui(<Stateful schema={{ type: "object" }} onChange={onChange} />);
    fireEvent.change(screen.getByLabelText("Field"), { target: { value: '{"a": 1}' } });
    expect(onChange).toHaveBeenLastCalledWith({ a: 1 });
    fireEvent.change(screen.getByLabelText("Field"), { target: { value: "{oops" } });
    expect(screen.getByText("Invalid JSON")).toBeTruthy();
    expect(onChange).toHaveBeenCalledTimes(1);
  });
});

describe("base views", () => {
  const action = (category: ActionInfo["alias"], name = "x"): ActionInfo => ({
    name,
    alias: category,
    paramsSchema: {},
    retSchema: {},
  });

  it("are chosen by the alias before anything is called", () => {
    expect(viewFor(action({ category: "pageable", resource: "doc", resourceOpType: "get_list" })).name).toBe("table");
    expect(viewFor(action({ category: "graphical", resource: "g", resourceOpType: "get_graph" })).name).toBe("graph");
    expect(viewFor(action({ category: "pageable", resource: "doc", resourceOpType: "update" })).name).toBe("form");
    expect(viewFor(action(null)).name).toBe("form");
  });
});

describe("chat trace", () => {
  it("shows reasoning, tool calls, tool results with images and TFL output, all as text", () => {
    ui(
      <>
        <TraceRecord
          record={{
            role: "assistant",
            reasoning_content: "think <b>hard</b>",
            tool_calls: [{ id: "c1", name: "weather", arguments: '{"city":"Paris"}' }],
            tfl_scripts: ["print(1)"],
          }}
        />
        <TraceRecord
          record={{
            role: "tool",
            tool_reses: [{ call_id: "c1", name: "weather", result: "sunny", attachments: [{ type: "image", url: "data:image/png;base64,AAAA" }] }],
          }}
        />
        <TraceRecord record={{ role: "console", console_reses: [{ result: "1", script: "print(1)" }] }} />
      </>,
    );
    expect(screen.getByText("think <b>hard</b>")).toBeTruthy();
    expect(screen.getByText('weather({"city":"Paris"})')).toBeTruthy();
    expect(screen.getByText("weather → sunny")).toBeTruthy();
    expect(screen.getByAltText("attachment 1").getAttribute("src")).toBe("data:image/png;base64,AAAA");
    expect(document.querySelectorAll("[data-trace-kind]").length).toBe(5);
    expect(document.querySelector("b")).toBeNull();
  });
});
