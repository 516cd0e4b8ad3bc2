/**
 * Every relative link and `#anchor` of the documentation resolves: README.md, docs/**, and the folder READMEs
 * (bin/ lib/ lambda/ core/ cli/ scripts/ bench/ test/). A page that moves or a heading that is renamed fails here,
 * with the file, line and link. The checker itself is tested on pages written into a temp dir.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  brokenLinks,
  githubSlug,
  headingAnchors,
  markdownFilesUnder,
  relativeLinks,
} from '../helpers/markdown-links';

const REPO = resolve(__dirname, '..', '..');
const FOLDERS = ['docs', 'bin', 'lib', 'lambda', 'core', 'cli', 'scripts', 'bench', 'test'];

describe('the documentation links', () => {
  const files = ['README.md', ...FOLDERS.flatMap((dir) => markdownFilesUnder(REPO, dir))];

  test('covers the front page, the docs pages and every folder README', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/deploy.md']));
    for (const dir of FOLDERS.filter((d) => d !== 'docs')) expect(files).toContain(`${dir}/README.md`);
  });

  test('every relative link names a file that exists, and every anchor a heading of it', () => {
    expect(brokenLinks(REPO, files)).toEqual([]);
  });
});

describe('githubSlug', () => {
  test.each([
    ['Delivery guarantee: at least once', 'delivery-guarantee-at-least-once'],
    ['Try it locally: `npm start`', 'try-it-locally-npm-start'],
    [
      'OpenSearch: mappings, retention, access and Dashboards',
      'opensearch-mappings-retention-access-and-dashboards',
    ],
    ['`kfek proxy`', 'kfek-proxy'],
    ['What the sandbox costs (approximate)', 'what-the-sandbox-costs-approximate'],
    [
      'The delivery loop (stand-in for Firehose; not shipped)',
      'the-delivery-loop-stand-in-for-firehose-not-shipped',
    ],
    ['Links [in](x.md) _emphasis_ and snake_case', 'links-in-emphasis-and-snake_case'],
    ['Flèches → and déjà vu', 'flèches--and-déjà-vu'],
  ])('%s -> #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});

describe('headingAnchors and relativeLinks', () => {
  test('number duplicate headings, take explicit ids, and ignore code', () => {
    // GIVEN a page with a repeated heading, an <a id>, and a heading and link inside a code fence
    const page = [
      '# Tests',
      '## Tests',
      '<a id="iterator-age"></a>**Iterator age.**',
      '```bash',
      '# not a heading [nor a link](gone.md)',
      '```',
      'A `[code span](gone.md)` and a [real link](other.md#x "title") and [web](https://example.com).',
      '[ref]: ./ref.md',
    ].join('\n');
    // THEN
    expect([...headingAnchors(page)].sort()).toEqual(['iterator-age', 'tests', 'tests-1']);
    expect(relativeLinks(page)).toEqual([
      { line: 7, target: 'other.md#x' },
      { line: 8, target: './ref.md' },
    ]);
  });
});

describe('brokenLinks', () => {
  let root: string;
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kfek-links-'));
    write('docs/a.md', '# Page A\n\n## Deploy to a sandbox, step by step\n\nSee [B](b.md#kfek-send).\n');
    write('docs/b.md', '# Page B\n\n### `kfek send`\n');
    write('src/x.ts', 'export {};\n');
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('passes links to files, folders, headings and line anchors that exist', () => {
    // GIVEN a front page whose links all resolve
    write(
      'README.md',
      [
        '[a](docs/a.md#deploy-to-a-sandbox-step-by-step) [b](./docs/b.md) [folder](docs/) [code](src/x.ts#L1)',
        '[self](#front) [root-relative](/docs/a.md#page-a)',
        '# Front',
      ].join('\n'),
    );
    // THEN
    expect(brokenLinks(root, ['README.md', 'docs/a.md', 'docs/b.md'])).toEqual([]);
  });

  test('fails when a link names a missing file, heading, or goes outside the repository', () => {
    // GIVEN a front page with one broken link of each kind
    write(
      'README.md',
      [
        '# Front',
        '[moved](docs/deploy.md)',
        '[renamed](docs/a.md#deploy-to-aws)',
        '[self](#nowhere)',
        '[not a line](src/x.ts#top)',
        '[outside](../elsewhere.md)',
      ].join('\n'),
    );
    // THEN each is reported with its file, line and reason
    expect(brokenLinks(root, ['README.md'])).toEqual([
      'README.md:2: docs/deploy.md: docs/deploy.md does not exist',
      'README.md:3: docs/a.md#deploy-to-aws: docs/a.md has no heading or id with the anchor #deploy-to-aws',
      'README.md:4: #nowhere: README.md has no heading or id with the anchor #nowhere',
      'README.md:5: src/x.ts#top: #top is not a line anchor (#L10) and src/x.ts is not Markdown',
      'README.md:6: ../elsewhere.md: points outside the repository',
    ]);
  });
});
