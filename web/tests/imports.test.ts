/**
 * The console's import direction, enforced: no file under web/src imports itself through a circle,
 * and each folder imports only the layers below it (views → components → api → protocol, the app
 * shell above them all). Reads every file's `import` / `export … from` / `import()` specifiers.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

/**
 * Which layers each layer may import (its own included). A file's layer is its folder under src/;
 * the files directly in src/ are named here one by one, so that a new one has to choose its place.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  protocol: ["protocol"],
  api: ["api", "protocol"],
  route: ["route"],
  components: ["components", "api", "protocol"],
  views: ["views", "components", "api", "protocol", "route"],
  app: ["app", "views", "components", "api", "protocol", "route"],
};
const TOP_FILES: Record<string, string> = { "App.tsx": "app", "main.tsx": "app", "route.ts": "route" };

type Graph = Map<string, string[]>;

/** The module specifiers a source file imports (static, re-exports, dynamic), comments left out. */
function specifiersOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g, /\bimport\s*["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) if (m[1]) found.push(m[1]);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function resolveLocal(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  const candidate = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")].find(
    (p) => existsSync(p) && statSync(p).isFile(),
  );
  if (!candidate) throw new Error(`${relative(SRC, from)} imports ${JSON.stringify(spec)}, which is no file under web/src: fix the path`);
  return candidate;
}

/** src-relative path → the src-relative paths it imports (packages left out). */
function importGraph(root: string): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(root)) {
    const local = specifiersOf(readFileSync(file, "utf8")).filter((s) => s.startsWith("."));
    graph.set(
      relative(root, file),
      local.map((s) => relative(root, resolveLocal(file, s))),
    );
  }
  return graph;
}

/** Every circle of the graph, each as the path that walks it (`a → b → a`); Tarjan's components. */
function circlesOf(graph: Graph): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let top: string | undefined;
    do {
      top = stack.pop();
      if (top === undefined) break;
      onStack.delete(top);
      members.push(top);
    } while (top !== node);
    if (members.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(walk(graph, node, new Set(members)));
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** One circle through `start` inside its strongly connected `members`, as `a → b → a`. */
function walk(graph: Graph, start: string, members: Set<string>): string {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift() as string;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0] as string) as string);
        return [...path, start].join(" → ");
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return start;
}

function layerOf(file: string): string {
  const [head, ...rest] = file.split(/[\\/]/);
  const layer = rest.length ? (head as string) : TOP_FILES[head as string];
  if (!layer || !(layer in MAY_IMPORT)) {
    throw new Error(`web/src/${file} is in no layer: put it in one of ${Object.keys(MAY_IMPORT).join(", ")} or name it in TOP_FILES`);
  }
  return layer;
}

/** Every import that points up or sideways across layers, as `from → to (layer → layer)`. */
function layerBreaches(graph: Graph): string[] {
  const breaches: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [layerOf(from), layerOf(to)];
      if (!MAY_IMPORT[a]?.includes(b)) breaches.push(`${from} → ${to} (${a} may import ${MAY_IMPORT[a]?.join(", ")} only)`);
    }
  }
  return breaches;
}

describe("the checker", () => {
  it("reads static, type-only, re-exported, side-effect and dynamic imports, not comments", () => {
    const source = [
      '/** import { x } from "./inDoc"; */',
      '// import { y } from "./inLineComment";',
      'import { a,',
      '  b } from "./multi";',
      'import type { T } from "../types";',
      'export { c } from "./reexport";',
      'import "./styles.css";',
      'const Lazy = lazy(() => import("./Lazy"));',
      'import { useState } from "react";',
    ].join("\n");
    expect(specifiersOf(source).sort()).toEqual(["../types", "./Lazy", "./multi", "./reexport", "./styles.css", "react"]);
  });

  it("finds a circle, names its path, and leaves a chain alone", () => {
    const graph: Graph = new Map([
      ["views/A.tsx", ["components/B.tsx"]],
      ["components/B.tsx", ["components/C.tsx"]],
      ["components/C.tsx", ["views/A.tsx"]],
      ["protocol/D.ts", []],
    ]);
    expect(circlesOf(graph)).toEqual(["views/A.tsx → components/B.tsx → components/C.tsx → views/A.tsx"]);
    expect(circlesOf(new Map([["a", ["b"]], ["b", []]]))).toEqual([]);
    expect(circlesOf(new Map([["a", ["a"]]]))).toEqual(["a → a"]);
  });

  it("flags an import from components into views", () => {
    const graph: Graph = new Map([
      ["components/Form.tsx", ["views/context.tsx"]],
      ["views/context.tsx", []],
    ]);
    expect(layerBreaches(graph)).toEqual(["components/Form.tsx → views/context.tsx (components may import components, api, protocol only)"]);
  });
});

describe("web/src", () => {
  const graph = importGraph(SRC);

  it("has no import circle", () => {
    expect(graph.size).toBeGreaterThan(20);
    expect(circlesOf(graph)).toEqual([]);
  });

  it("imports one way only: views → components → api → protocol", () => {
    expect(layerBreaches(graph)).toEqual([]);
  });
});
