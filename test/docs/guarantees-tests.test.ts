/**
 * docs/guarantees.md names, for each guarantee and each delivery, the test that proves it (issue 41): a file under
 * test/ in a code span, then the test's name in double quotes. Every file named must exist and hold every name given
 * after it (in the same table cell or paragraph), so a renamed or removed test fails here instead of leaving the page
 * pointing at nothing. The checker itself is tested on a page written here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '..', '..');

interface NamedTest {
  readonly path: string;
  /** The test's (or describe block's) name, as it reads in the file; undefined when only the file is named. */
  readonly name?: string;
}

/**
 * Every `test/...` file a page names, with the quoted names that follow it in the same table cell or paragraph.
 * A quoted text before any file of its cell or paragraph is not a test name (it quotes something else).
 */
function namedTests(markdown: string): NamedTest[] {
  const named: NamedTest[] = [];
  for (const part of markdown.split(/\n\s*\n|\|/)) {
    let path: string | undefined;
    for (const token of part.matchAll(/`(test\/[^`\s]+)`|"([^"]+)"/g)) {
      if (token[1] !== undefined) {
        path = token[1];
        named.push({ path });
      } else if (path !== undefined) {
        named.push({ path, name: token[2].replace(/\s*\n\s*/g, ' ') });
      }
    }
  }
  return named;
}

/** The source of a test file as a reader sees its names (`\u2019` escapes read as the character). */
function readable(source: string): string {
  return source.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** What a page names that is not there: a missing file, or a name its file does not hold. */
function unproven(repo: string, named: readonly NamedTest[]): string[] {
  const problems: string[] = [];
  for (const { path, name } of named) {
    const file = join(repo, path);
    if (!existsSync(file)) {
      if (name === undefined) problems.push(`${path}: no such file`);
      continue;
    }
    if (name !== undefined && !readable(readFileSync(file, 'utf8')).includes(name)) {
      problems.push(`${path}: no test named "${name}"`);
    }
  }
  return problems;
}

describe('docs/guarantees.md names the tests that prove each guarantee', () => {
  const page = readFileSync(join(REPO, 'docs', 'guarantees.md'), 'utf8');

  test('every test file it names exists and holds the test named', () => {
    const named = namedTests(page);
    // (the direct delivery table alone names over 40)
    expect(named.filter((n) => n.name !== undefined).length).toBeGreaterThan(40);
    expect(unproven(REPO, named)).toEqual([]);
  });

  test('fails when a named file or a named test is not there', () => {
    // GIVEN a page naming a file that exists with a name it holds and one it does not, and a file that does not
    const markdown = [
      '| x | `test/docs/guarantees-tests.test.ts` "fails when a named file or a named test is not there" |',
      'Also `test/docs/links.test.ts` "a test nobody\nwrote" and `test/no/such.test.ts`.',
      '',
      '"a quote before any file" is not a name.',
    ].join('\n');
    // WHEN / THEN
    expect(unproven(REPO, namedTests(markdown))).toEqual([
      'test/docs/links.test.ts: no test named "a test nobody wrote"',
      'test/no/such.test.ts: no such file',
    ]);
  });
});
