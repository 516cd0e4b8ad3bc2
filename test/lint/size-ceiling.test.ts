/**
 * The house's size ceiling (issue 40, item 6): no file over 400 lines and no function over 80 (test/lint/code-size.ts
 * says how they are measured) unless it is listed here by name.
 *
 * - {@link EXCEPTIONS}: at most five, each with the reason it stays large.
 * - {@link DEBT}: what was over the ceiling when the test was written and has not been split yet, each with its size
 *   then. An entry may only shrink: it fails when it grows, and when it falls under the ceiling it must be taken off
 *   the list, so the list can only get shorter. Nothing new may join it: new code keeps under the ceiling.
 */
import * as path from 'node:path';
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, oversizeUnder, type Oversize } from './code-size';

const ROOT = path.resolve(__dirname, '..', '..');

/** Large on purpose, with the reason. At most five. */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  'cli/args/options.ts':
    "The CLI's one options table: one entry per option of every command, read top to bottom; splitting it by " +
    'command would bring back the per-command option readers issue 40 removed.',
};

/** Over the ceiling when the ceiling came (2026-11-29), with the size then; may only shrink, then leaves. */
const DEBT: Readonly<Record<string, number>> = {
};

function listed(id: string): boolean {
  return Object.hasOwn(EXCEPTIONS, id) || Object.hasOwn(DEBT, id);
}

describe('size ceiling', () => {
  let oversize: readonly Oversize[];
  beforeAll(() => {
    oversize = oversizeUnder(ROOT);
  });

  it(`lists every file over ${MAX_FILE_LINES} lines and function over ${MAX_FUNCTION_LINES} lines by name`, () => {
    // GIVEN the measured code
    // WHEN it is held to the ceiling
    const unlisted = oversize.filter((o) => !listed(o.id)).map((o) => `${o.id} (${o.lines} lines)`);
    // THEN nothing is over it without a name here (split it along its seams instead of listing it)
    expect(unlisted).toEqual([]);
  });

  it('keeps no entry for something that is now under the ceiling', () => {
    // GIVEN the lists
    const over = new Set(oversize.map((o) => o.id));
    // WHEN each entry is looked up
    const stale = [...Object.keys(EXCEPTIONS), ...Object.keys(DEBT)].filter((id) => !over.has(id));
    // THEN each is still over (take it off the list when it is not: the list only shrinks)
    expect(stale).toEqual([]);
  });

  it('lets no debt entry grow', () => {
    // GIVEN the sizes recorded when the ceiling came
    // WHEN they are compared with today's
    const grown = oversize
      .filter((o) => Object.hasOwn(DEBT, o.id) && o.lines > DEBT[o.id])
      .map((o) => `${o.id}: ${DEBT[o.id]} -> ${o.lines} lines`);
    // THEN none grew
    expect(grown).toEqual([]);
  });

  it('names at most five exceptions, each with a reason', () => {
    expect(Object.keys(EXCEPTIONS).length).toBeLessThanOrEqual(5);
    for (const reason of Object.values(EXCEPTIONS)) expect(reason.length).toBeGreaterThan(40);
  });
});
