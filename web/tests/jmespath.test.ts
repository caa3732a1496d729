/**
 * The console's JMESPath against the official compliance suite (`conformance/jmespath/`, 908
 * cases) and the parity cases whose expected values the server computed
 * (`conformance/jmespath-parity/`): every result equal, every error of the same kind.
 * The Python twin is `tests/tfrobotserver/actions/test_expressions.py`.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { ExpressionError, evaluate } from "../src/protocol/jmespath";

interface Case {
  expression: string;
  result?: unknown;
  error?: string;
  bench?: string;
}
interface Group {
  given: unknown;
  cases: Case[];
}

const ROOT = resolve(__dirname, "../../conformance");

function load(dir: string): [string, Group[]][] {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(ROOT, dir, f), "utf8")) as Group[]]);
}

/** What a case observes: the value as it crosses JSON (so -0 is 0), or the error kind. */
function outcome(group: Group, c: Case): unknown {
  try {
    const value = evaluate(c.expression, group.given);
    return c.bench ? "ran" : { value: JSON.parse(JSON.stringify(value)) as unknown };
  } catch (err) {
    if (err instanceof ExpressionError) return { error: err.kind };
    throw err;
  }
}

function expected(c: Case): unknown {
  if (c.bench) return "ran";
  return c.error !== undefined ? { error: c.error } : { value: c.result };
}

for (const [dir, minimum] of [
  ["jmespath", 908],
  ["jmespath-parity", 1000],
] as const) {
  describe(`conformance/${dir}`, () => {
    const files = load(dir);
    let total = 0;
    let failed = 0;
    for (const [file, groups] of files) {
      it(file, () => {
        const misses: string[] = [];
        for (const group of groups) {
          for (const c of group.cases) {
            total++;
            const got = outcome(group, c);
            try {
              expect(got).toEqual(expected(c));
            } catch {
              failed++;
              misses.push(`${c.expression} on ${JSON.stringify(group.given)?.slice(0, 120)}: got ${JSON.stringify(got)}, want ${JSON.stringify(expected(c))}`);
            }
          }
        }
        expect(misses).toEqual([]);
      });
    }
    afterAll(() => {
      console.log(`JMESPath ${dir}: ${total - failed}/${total} cases agree (TypeScript)`);
      expect(total).toBeGreaterThanOrEqual(minimum);
    });
  });
}
