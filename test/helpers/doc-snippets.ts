/**
 * Executable documentation: reads the fenced code blocks of a Markdown file with the marker written before
 * each, substitutes documented placeholders, and runs shell blocks with bash in a sandbox (empty HOME, no
 * ~/.aws files, a PATH whose `npx` is {@link writeNpxShim}'s stand-in).
 *
 * Markers, on the last non-blank line before a fence:
 *
 *     <!-- kfek:doc-test id=bootstrap -->          run by a test, which refers to it by id
 *     <!-- kfek:doc-skip reason="why not here" --> not runnable here, with the reason (never empty)
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export class DocSnippetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocSnippetError';
  }
}

export type DocMarker =
  { readonly kind: 'test'; readonly id: string } | { readonly kind: 'skip'; readonly reason: string };

export interface DocSnippet {
  /** The fence's info string (`bash`, `json`, or empty). */
  readonly lang: string;
  /** The block's text, with the list-item indentation of its fence removed. */
  readonly code: string;
  /** 1-based line of the opening fence in the file. */
  readonly line: number;
  readonly marker?: DocMarker;
}

const MARKER = /^\s*<!--\s*kfek:doc-(test|skip)\s+(.*?)\s*-->\s*$/;
const ATTRIBUTE = /([a-z]+)=(?:"([^"]*)"|(\S+))/g;

function parseMarker(line: string, where: string): DocMarker | undefined {
  const m = MARKER.exec(line);
  if (m === null) return undefined;
  const attributes: Record<string, string> = {};
  for (const a of m[2].matchAll(ATTRIBUTE)) attributes[a[1]] = a[2] ?? a[3];
  if (m[1] === 'test') {
    if (!attributes.id) throw new DocSnippetError(`${where}: kfek:doc-test needs id=NAME`);
    return { kind: 'test', id: attributes.id };
  }
  if (!attributes.reason?.trim()) throw new DocSnippetError(`${where}: kfek:doc-skip needs reason="..."`);
  return { kind: 'skip', reason: attributes.reason };
}

/** Rows of the markdown tables in `markdown` as trimmed cells, separator rows left out (prettier pads columns). */
export function markdownTableCells(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

/** Every fenced block of `markdown` (``` fences, also indented inside list items). */
export function fencedBlocks(markdown: string, firstLine = 1, file = 'markdown'): DocSnippet[] {
  const lines = markdown.split('\n');
  const snippets: DocSnippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]);
    if (open === null) continue;
    const indent = open[1].length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(indent));
    if (j === lines.length) throw new DocSnippetError(`${file}:${firstLine + i}: unclosed code fence`);
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const marker = k >= 0 ? parseMarker(lines[k], `${file}:${firstLine + k}`) : undefined;
    snippets.push({
      lang: open[2],
      code: body.join('\n'),
      line: firstLine + i,
      ...(marker !== undefined ? { marker } : {}),
    });
    i = j;
  }
  return snippets;
}

/** The block marked `kfek:doc-test id=<id>`; fails when there is none or more than one. */
export function snippetById(snippets: readonly DocSnippet[], id: string): DocSnippet {
  const found = snippets.filter((s) => s.marker?.kind === 'test' && s.marker.id === id);
  if (found.length !== 1) {
    throw new DocSnippetError(`expected one block marked kfek:doc-test id=${id}, found ${found.length}`);
  }
  return found[0];
}

/** `<Name>` placeholders (stack outputs, values the reader fills in); shell redirections never match. */
const PLACEHOLDER = /<[A-Za-z][A-Za-z0-9_. -]*>/g;

/**
 * The documented substitution rule of the doc tests: every `<Name>` placeholder is replaced by `values[Name]`
 * (the value a reader would paste, e.g. a stack output); any placeholder without a value fails the test, so a new
 * placeholder in the docs needs a value here.
 */
export function substitutePlaceholders(code: string, values: Readonly<Record<string, string>>): string {
  return code.replace(PLACEHOLDER, (token) => {
    const value = values[token.slice(1, -1)];
    if (value === undefined) {
      throw new DocSnippetError(`no value for the placeholder ${token} in:\n${code}`);
    }
    return value;
  });
}

/**
 * Writes an `npx` stand-in into `binDir`: `npx kfek ...` runs the project's CLI (bin/kfek-cli.js) for real;
 * `npx cdk ...` only records its argv (NUL-separated, one file per call) under `recordDir`, because cdk
 * bootstrap/deploy cannot run against moto (no CloudFormation deployments of CDK assets there); anything else
 * fails, so an unexpected tool in the docs is noticed.
 */
export function writeNpxShim(binDir: string, recordDir: string, repoRoot: string): void {
  mkdirSync(binDir, { recursive: true });
  mkdirSync(recordDir, { recursive: true });
  const shim = `#!/usr/bin/env bash
set -euo pipefail
tool="\${1:-}"
shift || true
case "$tool" in
  cdk)
    n=$(ls ${JSON.stringify(recordDir)} | wc -l)
    printf '%s\\0' "$@" > ${JSON.stringify(recordDir)}/"$(printf '%03d' "$n").argv"
    echo "npx cdk $* (recorded by the doc-test shim, not run)" >&2
    ;;
  kfek)
    exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(repoRoot, 'bin', 'kfek-cli.js'))} "$@"
    ;;
  *)
    echo "npx shim: npx $tool is not expected in the documentation" >&2
    exit 127
    ;;
esac
`;
  writeFileSync(join(binDir, 'npx'), shim);
  chmodSync(join(binDir, 'npx'), 0o755);
}

/** The argv of every recorded `npx cdk` call, in call order. */
export function recordedCdkCalls(recordDir: string): string[][] {
  if (!existsSync(recordDir)) return [];
  return readdirSync(recordDir)
    .filter((name) => name.endsWith('.argv'))
    .sort()
    .map((name) => readFileSync(join(recordDir, name), 'utf8').split('\0').slice(0, -1));
}

export interface BlockResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The block ran to its end (under `set -euo pipefail`). */
  readonly completed: boolean;
}

export interface SessionResult {
  readonly exitCode: number | null;
  readonly blocks: ReadonlyMap<string, BlockResult>;
  /** bash's own stderr (outside every block). */
  readonly stderr: string;
}

export interface RunSessionOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Where the script and the per-block output go. */
  readonly workDir: string;
  readonly timeoutMs: number;
}

/**
 * Runs `blocks` in order in ONE `bash` process with `set -euo pipefail`, as a reader pasting them into one
 * terminal would (variables exported by one block are seen by the next). Each block's stdout and stderr are
 * kept apart; the first failing command ends the session, and its block is the last with `completed: false`.
 */
export async function runBashSession(
  blocks: readonly { readonly id: string; readonly code: string }[],
  options: RunSessionOptions,
): Promise<SessionResult> {
  mkdirSync(options.workDir, { recursive: true });
  const script = ['set -euo pipefail'];
  blocks.forEach((block, i) => {
    const out = join(options.workDir, `${i}`);
    script.push(`{\n${block.code}\n} >${JSON.stringify(`${out}.out`)} 2>${JSON.stringify(`${out}.err`)}`);
    script.push(`: >${JSON.stringify(`${out}.done`)}`);
  });
  const scriptPath = join(options.workDir, 'session.sh');
  writeFileSync(scriptPath, `${script.join('\n')}\n`);
  const { exitCode, stderr } = await runProcess('bash', [scriptPath], options);
  const read = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : '');
  const results = new Map<string, BlockResult>();
  blocks.forEach((block, i) => {
    const out = join(options.workDir, `${i}`);
    results.set(block.id, {
      stdout: read(`${out}.out`),
      stderr: read(`${out}.err`),
      completed: existsSync(`${out}.done`),
    });
  });
  return { exitCode, blocks: results, stderr };
}

/** Runs a process in its own process group; kills the group at the timeout (and says so in stderr). */
export function runProcess(
  command: string,
  args: readonly string[],
  options: Omit<RunSessionOptions, 'workDir'> & {
    /** Sends SIGINT (Ctrl-C) to the process group when aborted: how a reader stops a long-running command. */
    readonly stop?: AbortSignal;
    /** Sees stdout as it comes (the whole output so far). */
    readonly onStdout?: (soFar: string) => void;
  },
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      options.onStdout?.(stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      stderr += `\n[doc test: killed after ${options.timeoutMs} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, options.timeoutMs);
    options.stop?.addEventListener('abort', () => {
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        // Already gone.
      }
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
  });
}

export interface SandboxEnvOptions {
  /** A temp dir: HOME, and where AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE point (absent files). */
  readonly home: string;
  /** Directories put first on PATH (the npx shim, .venv/bin). */
  readonly path: readonly string[];
  readonly extra?: Readonly<Record<string, string>>;
}

/**
 * A clean environment for documented commands: nothing of the machine's AWS setup leaks in (no ~/.aws, no
 * AWS_* variables but the ones given), dummy credentials, HOME in a temp dir.
 */
export function sandboxEnv(options: SandboxEnvOptions): Record<string, string> {
  mkdirSync(join(options.home, '.aws'), { recursive: true });
  return {
    HOME: options.home,
    PATH: [...options.path, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    LANG: 'C.UTF-8',
    AWS_CONFIG_FILE: join(options.home, '.aws', 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(options.home, '.aws', 'credentials'),
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_PAGER: '',
    ...options.extra,
  };
}

/** The port `kfek proxy` listens on by default, which the documented examples use. */
export const DOCUMENTED_PROXY_PORT = 9200;
const PROXY_PORT_LOCK = join(tmpdir(), `kfek-doc-test-port-${DOCUMENTED_PROXY_PORT}.lock`);

/**
 * Holds a lock across processes (jest workers, other checkouts' test runs) while a documented example listens on
 * port 9200 as written, so two such examples never race for the port. A lock left by a dead process is taken over.
 */
async function withProxyPortLock<T>(work: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(PROXY_PORT_LOCK);
      writeFileSync(join(PROXY_PORT_LOCK, 'pid'), String(process.pid));
      break;
    } catch {
      const owner = Number(
        existsSync(join(PROXY_PORT_LOCK, 'pid')) ? readFileSync(join(PROXY_PORT_LOCK, 'pid'), 'utf8') : 'NaN',
      );
      let alive = true;
      try {
        process.kill(owner, 0);
      } catch {
        alive = Number.isInteger(owner) ? false : alive;
      }
      if (!alive) rmSync(PROXY_PORT_LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new DocSnippetError(`${PROXY_PORT_LOCK} is held by process ${owner}`);
      else await new Promise((done) => setTimeout(done, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(PROXY_PORT_LOCK, { recursive: true, force: true });
  }
}

export interface ProxyExampleResult {
  /** The answer to `GET http://127.0.0.1:9200<probePath>` through the proxy. */
  readonly status: number;
  readonly body: string;
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a documented `npx kfek proxy ...` example as written (it listens on 127.0.0.1:9200 until Ctrl-C), opens
 * `probePath` through it, then stops it with Ctrl-C as a reader would.
 */
export async function runProxyExample(
  code: string,
  options: Omit<RunSessionOptions, 'workDir' | 'timeoutMs'> & { readonly probePath: string },
): Promise<ProxyExampleResult> {
  return withProxyPortLock(async () => {
    const ctrlC = new AbortController();
    let ready = false;
    const running = runProcess('bash', ['-c', `set -euo pipefail\n${code}`], {
      cwd: options.cwd,
      env: options.env,
      timeoutMs: 30_000,
      stop: ctrlC.signal,
      // The reader presses Ctrl-C after the proxy said it may (it listens a moment before it handles Ctrl-C).
      onStdout: (soFar) => (ready ||= soFar.includes('Ctrl-C stops it')),
    });
    let answer: { status: number; body: string } | undefined;
    for (let i = 0; i < 100 && answer === undefined; i++) {
      try {
        const response = await fetch(`http://127.0.0.1:${DOCUMENTED_PROXY_PORT}${options.probePath}`);
        answer = { status: response.status, body: await response.text() };
      } catch {
        await new Promise((done) => setTimeout(done, 200));
      }
    }
    for (let i = 0; i < 100 && !ready; i++) await new Promise((done) => setTimeout(done, 100));
    ctrlC.abort();
    const finished = await running;
    if (answer === undefined) {
      throw new DocSnippetError(
        `the proxy never answered on port ${DOCUMENTED_PROXY_PORT}:\n${finished.stderr}`,
      );
    }
    return { ...answer, ...finished };
  });
}

export interface CliExample {
  readonly file: string;
  readonly line: number;
  /** The command as written, without a `$ ` prompt (environment assignments in front are kept). */
  readonly command: string;
}

const FENCED_EXAMPLE = /^\s*(?:\$ )?((?:[A-Z_]+=\S+ )*npx kfek [a-z].*)$/;
const INLINE_EXAMPLE = /`((?:[A-Z_]+=\S+ )*npx kfek [a-z]+ --[^`]*)`/g;

/**
 * Every `npx kfek ...` command a reader could run from `markdown`: lines of fenced blocks (with or without a
 * `$ ` prompt) and inline code spans that carry options. Bare synopses (`npx kfek send|verify`) are not examples.
 */
export function cliExamples(markdown: string, file: string): CliExample[] {
  const examples: CliExample[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*```/.test(text)) {
      fenced = !fenced;
      return;
    }
    if (fenced) {
      const m = FENCED_EXAMPLE.exec(text);
      if (m !== null) examples.push({ file, line: i + 1, command: m[1] });
      return;
    }
    for (const m of text.matchAll(INLINE_EXAMPLE)) examples.push({ file, line: i + 1, command: m[1] });
  });
  return examples;
}
