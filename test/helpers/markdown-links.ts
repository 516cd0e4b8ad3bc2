/**
 * Relative links and `#anchors` of Markdown files, resolved the way GitHub renders them, so a page that moves or a
 * heading that is renamed breaks a test instead of a reader's click (test/docs/links.test.ts).
 *
 * Anchors are the slugs GitHub gives headings (github-slugger, which is not installed here, so its rule is written
 * out in {@link githubSlug}) plus explicit `<a id="...">` / `<a name="...">` targets. Headings, links and anchors
 * inside fenced code blocks and inline code spans are not Markdown and are ignored.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/**
 * The anchor GitHub gives a heading: its rendered text (code spans, links and emphasis reduced to their text),
 * lower-cased, with every character that is not a letter, mark, number, connector (`_`), space or hyphen removed,
 * and spaces turned into hyphens. Duplicates are numbered by {@link headingAnchors}.
 */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/<[^>]*>/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(^|[^\p{L}\p{N}])_+(?=\S)(.*?\S)_+(?=[^\p{L}\p{N}]|$)/gu, '$1$2')
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Each line of `markdown`, with whether it is inside (or is) a fenced code block's fence. */
function linesWithFences(markdown: string): { readonly text: string; readonly fenced: boolean }[] {
  let fence: string | undefined;
  return markdown.split('\n').map((text) => {
    const marker = /^\s*(```+|~~~+)/.exec(text)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return { text, fenced: true };
    }
    if (fence !== undefined) {
      if (
        marker !== undefined &&
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        /^\s*(```+|~~~+)\s*$/.test(text)
      ) {
        fence = undefined;
      }
      return { text, fenced: true };
    }
    return { text, fenced: false };
  });
}

/** Every anchor a link may name in `markdown`: heading slugs (duplicates get `-1`, `-2`, ...) and explicit ids. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const add = (heading: string): void => {
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  };
  const lines = linesWithFences(markdown);
  lines.forEach(({ text, fenced }, i) => {
    if (fenced) return;
    const atx = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text);
    if (atx !== null) add(atx[1]);
    // A setext heading: a paragraph line underlined with = or - (not a table row, not after a blank line).
    const previous = lines[i - 1];
    if (
      /^\s{0,3}(=+|-+)\s*$/.test(text) &&
      previous !== undefined &&
      !previous.fenced &&
      previous.text.trim() !== '' &&
      !previous.text.trim().startsWith('|') &&
      !/^\s{0,3}#/.test(previous.text)
    ) {
      add(previous.text.trim());
    }
    for (const m of stripCodeSpans(text).matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  });
  return anchors;
}

/** `text` with inline code spans blanked out (their content is code, not Markdown). */
function stripCodeSpans(text: string): string {
  return text.replace(/(`+)(.+?)\1/g, (span) => ' '.repeat(span.length));
}

export interface MarkdownLink {
  /** 1-based line of the link. */
  readonly line: number;
  /** The destination as written (`docs/x.md#a`, `#a`, `../README.md`). */
  readonly target: string;
}

const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const HREF = /<a\s[^>]*\bhref="([^"]+)"/g;

/** Links that point into the repository: no scheme (`https:`, `mailto:`), no protocol-relative `//host`. */
function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//');
}

/** Every relative link of `markdown` outside code: inline links and images, reference definitions, `<a href>`. */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  linesWithFences(markdown).forEach(({ text, fenced }, i) => {
    if (fenced) return;
    const prose = stripCodeSpans(text);
    const targets = [
      ...[...prose.matchAll(INLINE_LINK)].map((m) => m[1]),
      ...[...prose.matchAll(HREF)].map((m) => m[1]),
      ...(REFERENCE_DEFINITION.exec(prose)?.slice(1, 2) ?? []),
    ];
    for (const raw of targets) {
      const target = raw.replace(/^<|>$/g, '');
      if (isRelative(target)) links.push({ line: i + 1, target });
    }
  });
  return links;
}

/**
 * Every broken relative link of `files` (paths relative to `root`), as `file:line: target: why`. A link must name
 * a file or folder that exists inside `root`; an anchor on a Markdown file must be one of its
 * {@link headingAnchors}; an anchor on another file must be a GitHub line anchor (`#L10`, `#L10-L20`).
 */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string): Set<string> => {
    let found = anchorsOf.get(path);
    if (found === undefined) {
      found = headingAnchors(readFileSync(join(root, path), 'utf8'));
      anchorsOf.set(path, found);
    }
    return found;
  };
  const problems: string[] = [];
  for (const file of files) {
    for (const { line, target } of relativeLinks(readFileSync(join(root, file), 'utf8'))) {
      const where = `${file}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved =
        pathPart === ''
          ? file
          : normalize(pathPart.startsWith('/') ? pathPart.slice(1) : join(dirname(file), pathPart));
      if (resolved === '..' || resolved.startsWith(`..${sep}`)) {
        problems.push(`${where}: points outside the repository`);
        continue;
      }
      if (!existsSync(join(root, resolved))) {
        problems.push(`${where}: ${resolved} does not exist`);
        continue;
      }
      if (anchor === undefined) continue;
      if (resolved.endsWith('.md') && statSync(join(root, resolved)).isFile()) {
        if (!anchors(resolved).has(anchor)) {
          problems.push(`${where}: ${resolved} has no heading or id with the anchor #${anchor}`);
        }
      } else if (!/^L\d+(-L\d+)?$/.test(anchor)) {
        problems.push(`${where}: #${anchor} is not a line anchor (#L10) and ${resolved} is not Markdown`);
      }
    }
  }
  return problems;
}

/** Every `*.md` file under `dir` (relative to `root`), skipping installed and generated folders. */
export function markdownFilesUnder(root: string, dir: string): string[] {
  const skip = new Set(['node_modules', '.venv', '.kfek', '.git', '__snapshots__']);
  const found: string[] = [];
  const walk = (relativeDir: string): void => {
    for (const entry of readdirSync(join(root, relativeDir), { withFileTypes: true })) {
      const path = join(relativeDir, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(entry.name) && !entry.name.startsWith('cdk.out')) walk(path);
      } else if (entry.name.endsWith('.md')) {
        found.push(relative(root, join(root, path)));
      }
    }
  };
  walk(dir);
  return found.sort();
}
