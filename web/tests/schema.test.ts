import { describe, expect, it } from "vitest";

import { fieldErrors } from "../src/api/client";
import { safeImageSrc, toText } from "../src/components/format";
import { type Schema, deref, elementSlots, fieldsOf, titleOf, typeOf, unwrapNullable } from "../src/protocol/schema";

describe("JSON Schema helpers", () => {
  const root: Schema = {
    $defs: { Doc: { type: "object", title: "Doc", properties: { docId: { type: "integer" } }, "x-actions": ["a"] } },
    properties: { items: { type: "array", items: { $ref: "#/$defs/Doc" } }, page: { type: "integer" } },
  };

  it("follows $ref and keeps the keys written beside it", () => {
    expect(deref({ $ref: "#/$defs/Doc", description: "beside" }, root)).toMatchObject({ title: "Doc", description: "beside" });
    expect(deref({ $ref: "#/$defs/Missing" }, root)).toEqual({ $ref: "#/$defs/Missing" });
  });

  it("renders anyOf-with-null as an optional field of its type, x-* from the branch kept", () => {
    const { schema, nullable } = unwrapNullable(
      { anyOf: [{ type: "string", "x-ref": "nodeLabel" }, { type: "null" }], default: null, title: "Label" },
      root,
    );
    expect(nullable).toBe(true);
    expect(schema.type).toBe("string");
    expect(schema.title).toBe("Label");
    expect(schema["x-ref"]).toBe("nodeLabel");
    expect(schema.anyOf).toBeUndefined();
    expect(unwrapNullable({ type: ["integer", "null"] }, root)).toEqual({ schema: { type: "integer" }, nullable: true });
  });

  it("lists params with required flags and x-* (property keys win over branch keys)", () => {
    const fields = fieldsOf({
      required: ["a"],
      properties: {
        a: { type: "integer", "x-ref": "docId" },
        b: { anyOf: [{ type: "string", "x-default": "inner", "x-fetch": "f" }, { type: "null" }], "x-default": "outer" },
      },
    });
    expect(fields.map((f) => [f.name, f.required, f.nullable, f.xRef, f.xDefault, f.xFetch])).toEqual([
      ["a", true, false, "docId", undefined, undefined],
      ["b", false, true, undefined, "outer", "f"],
    ]);
  });

  it("finds the element schema of items, nodes and edges", () => {
    expect(elementSlots(root, ["items", "nodes"])).toEqual([{ key: "items", schema: root.$defs?.Doc }]);
    expect(typeOf({ properties: {} })).toBe("object");
    expect(typeOf({ enum: [1, 2] })).toBe("number");
  });

  it("titles fields from the schema unless it is pydantic's squashed key", () => {
    expect(titleOf("userId", { title: "Userid" })).toBe("User Id");
    expect(titleOf("doc_id", { title: "Doc Id" })).toBe("Doc Id");
    expect(titleOf("x", { title: "Something else" })).toBe("Something else");
  });
});

describe("server errors", () => {
  it("maps the server's ErrorBody paths to top-level params", () => {
    expect(
      fieldErrors({
        error: "invalid_params",
        errors: [
          { path: "keywords.0", message: "bad" },
          { path: "doc_id", message: "not an int" },
          { path: "(params)", message: "whole body" },
        ],
      }),
    ).toEqual({ keywords: ["0: bad"], doc_id: ["not an int"], "": ["whole body"] });
  });

  it("also reads FastAPI's detail list", () => {
    expect(fieldErrors({ detail: [{ loc: ["body", "page"], msg: "too small" }] })).toEqual({ page: ["too small"] });
  });
});

describe("data as text", () => {
  it("turns values into text, never markup", () => {
    expect(toText('<img src=x onerror="alert(1)">')).toBe('<img src=x onerror="alert(1)">');
    expect(toText(["a", 1, null])).toBe("a, 1, ");
    expect(toText({ a: [1] })).toBe('{"a":[1]}');
    expect(toText(null)).toBe("");
  });

  it("accepts only data:image and http(s) image sources", () => {
    expect(safeImageSrc({ type: "image", url: "javascript:alert(1)" })).toBeUndefined();
    expect(safeImageSrc({ type: "image", url: "data:image/png;base64,AAAA" })).toBe("data:image/png;base64,AAAA");
    expect(safeImageSrc({ type: "image", data: "AAAA", mediaType: "image/gif" })).toBe("data:image/gif;base64,AAAA");
    expect(safeImageSrc({ type: "file", data: "AAAA", mediaType: "text/plain" })).toBeUndefined();
  });
});
