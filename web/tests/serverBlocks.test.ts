/**
 * Provider blocks in words: Responses citations, web search, Gemini code execution and grounding, and any
 * other block by its type in words with its JSON (nothing the provider sent is hidden).
 */
import { describe, expect, it } from "vitest";

import { blocksOf, moreLabel, moreShown, SOURCES_AT_ONCE, SOURCES_CHUNK } from "../src/views/ServerBlocks";

describe("provider blocks", () => {
  it("reads citations, searches, code and grounding; only web links", () => {
    const shown = blocksOf({
      server_tool_blocks: [
        { provider: "openai-responses", block: { type: "web_search_call", action: { type: "search", queries: ["q1", "q2"] } } },
        { provider: "gemini", block: { executable_code: { code: "print(1)", language: "PYTHON" } } },
        { provider: "gemini", block: { code_execution_result: { outcome: "OUTCOME_FAILED", output: "oops" } } },
        { provider: "gemini", block: { grounding_metadata: { grounding_chunks: [{ web: { uri: "https://a.example", title: "A" } }, { web: { uri: "javascript:alert(1)", title: "X" } }], web_search_queries: ["w"] } } },
        { provider: "anthropic", block: { type: "bash_code_execution_tool_result", content: { stdout: "1" } } },
      ],
      text_blocks: [
        { provider: "openai-responses", block: { type: "message", content: [{ type: "output_text", text: "t", annotations: [{ type: "url_citation", url: "https://b.example/x", title: "B" }] }] } },
      ],
    });
    expect(shown.map((b) => b.label)).toEqual([
      "Web search",
      "Code run by Gemini (Python)",
      "Code result: failed (OUTCOME_FAILED)",
      "Google Search sources",
      "Bash code execution tool result",
      "Sources cited",
    ]);
    expect(shown[0]?.text).toBe("searched: q1 · q2");
    expect(shown[1]?.code).toBe("print(1)");
    expect(shown[3]?.sources).toEqual([{ url: "https://a.example", title: "A" }]);
    expect(shown[4]?.code).toContain('"stdout": "1"');
    expect(shown[5]?.sources).toEqual([{ url: "https://b.example/x", title: "B" }]);
  });

  it("shows nothing for a reply without blocks, and a text item without citations is no block", () => {
    expect(blocksOf({ content: "hi" })).toEqual([]);
    expect(blocksOf({ textBlocks: [{ provider: "openai-responses", block: { type: "message", phase: "final_answer", content: [{ type: "output_text", text: "t" }] } }] })).toEqual([]);
  });

  it("reveals thousands of cited sources in chunks, not all at once", () => {
    expect(SOURCES_AT_ONCE).toBe(20);
    const total = 20_000;
    expect(moreLabel(SOURCES_AT_ONCE, total)).toBe("show all 20,000");
    let shown = SOURCES_AT_ONCE;
    let clicks = 0;
    while (shown < total) {
      const next = moreShown(shown, total);
      expect(next - shown).toBeLessThanOrEqual(SOURCES_CHUNK);
      shown = next;
      clicks += 1;
    }
    expect(shown).toBe(total);
    expect(clicks).toBe(Math.ceil((total - SOURCES_AT_ONCE) / SOURCES_CHUNK));
    expect(moreLabel(520, total)).toBe("show more (520 of 20,000)");
    expect(moreShown(30, 35)).toBe(35);
  });
});
