/**
 * One ranked registry for everything the console chooses by rating (JSON Forms' `rankWith` /
 * `maxBy` idea): the view of an action, the input of a schema field. Every entry's tester returns
 * a rank for the subject; the highest wins, a tie goes to the entry registered first, and a
 * subject that no entry rates at 0 or above is an error naming the subject and every entry —
 * never a silent blank. Registries that must always answer register a fallback ranked 0.
 *
 * Pure TypeScript, no React: the entries carry whatever the caller renders with.
 */

/** The rank of an entry that does not apply to the subject. */
export const NOT_APPLICABLE = -1;

/** What every registry entry has: a name for errors and badges, and its tester. */
export interface RankedEntry<S> {
  name: string;
  rank: (subject: S) => number;
}

/** A tester that rates `rank` where `applies` holds and NOT_APPLICABLE elsewhere (JSON Forms' `rankWith`). */
export function rankWith<S>(rank: number, applies: (subject: S) => boolean): (subject: S) => number {
  return (subject) => (applies(subject) ? rank : NOT_APPLICABLE);
}

export interface RankedRegistry<S, E extends RankedEntry<S>> {
  /** The entries in registration order (the order that breaks ties). */
  readonly entries: readonly E[];
  /** Add an entry after the others: it wins only where it ranks strictly higher than they do. */
  register: (entry: E) => void;
  /** The highest-ranked entry for `subject`; throws when none ranks it 0 or above. */
  select: (subject: S) => E;
}

/**
 * A registry of `entries` for subjects described, in errors, by `describe`. `what` names the
 * registry in the error ("view", "field renderer").
 */
export function rankedRegistry<S, E extends RankedEntry<S>>(
  what: string,
  entries: readonly E[],
  describe: (subject: S) => string,
): RankedRegistry<S, E> {
  const list: E[] = [...entries];
  return {
    entries: list,
    register: (entry) => {
      if (list.some((e) => e.name === entry.name)) {
        throw new Error(`a ${what} named ${JSON.stringify(entry.name)} is already registered: give the new one another name`);
      }
      list.push(entry);
    },
    select: (subject) => {
      let best: E | undefined;
      let bestRank = NOT_APPLICABLE;
      const ranks: string[] = [];
      for (const entry of list) {
        const rank = entry.rank(subject);
        ranks.push(`${entry.name} ${rank}`);
        if (rank > bestRank) {
          best = entry;
          bestRank = rank;
        }
      }
      if (best === undefined) {
        throw new Error(
          `no ${what} applies to ${describe(subject)} (ranks: ${ranks.join(", ") || "none registered"}): ` +
            `register a ${what} whose tester ranks it 0 or above`,
        );
      }
      return best;
    },
  };
}
