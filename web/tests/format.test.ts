/** Timestamps as dates (ms or s since the epoch under a timestamp key, date-time strings), nothing else. */
import { describe, expect, it } from "vitest";

import { cellText, dateText } from "../src/components/format";
import { messagesOf } from "../src/components/ResultView";

const MS = Date.UTC(2026, 11, 1, 10, 30);

describe("dates", () => {
  it("reads ms and s under timestamp keys alike", () => {
    expect(dateText("createdTs", MS)).toBe(dateText("created_ts", MS / 1000));
    expect(dateText("updatedAt", MS)).toContain("2026");
  });

  it("leaves other numbers and keys alone", () => {
    expect(dateText("docId", MS)).toBeUndefined();
    expect(dateText("stats", MS)).toBeUndefined();
    expect(cellText("version", 3)).toBe("3");
    expect(cellText("createdTs", null)).toBe("");
  });

  it("reads date-time strings by their format only", () => {
    expect(dateText("when", "2026-12-01T10:30:00Z", "date-time")).toContain("2026");
    expect(dateText("when", "2026-12-01T10:30:00Z")).toBeUndefined();
  });
});

describe("a page of messages", () => {
  it("is recognised by role and text on every item", () => {
    expect(messagesOf({ items: [{ role: "user", text: "hi" }] })).toHaveLength(1);
    expect(messagesOf({ items: [{ role: "user", text: "hi" }, { docId: 1 }] })).toBeUndefined();
    expect(messagesOf({ items: [] })).toBeUndefined();
  });
});
