/**
 * A real single-node OpenSearch on 127.0.0.1 for tests and for `npm start`, from the integ-test zip on Maven Central.
 *
 * - Download once into the local Maven repository (~/.m2) with `mvn dependency:get` (Maven Central only), unpack
 *   once into `.kfek/opensearch-<version>/` (git-ignored).
 * - Each start gets its own temp dir (config copy, data, logs), free HTTP and transport ports, a 512 MB heap.
 * - OpenSearch refuses to run as root, so as root it runs as `nobody` through `setpriv`, with the temp dir owned by
 *   that user. It runs in its own process group; `stop()` ends the group and waits.
 *
 * Usage from code: `const node = await startOpenSearch(); ... await node.stop();`
 * CLI: `npx ts-node scripts/opensearch-node.ts start` (stays in the foreground, prints the URL; Ctrl-C stops) or
 * `... stop` (stops a node started with `start --detach`, from its pid file).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Errors of the local node family. */
export class LocalOpenSearchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalOpenSearchError';
  }
}

/** No JDK >= the required version was found. */
export class JavaNotFoundError extends LocalOpenSearchError {
  constructor(message: string) {
    super(message);
    this.name = 'JavaNotFoundError';
  }
}

/** The node exited or did not become healthy in time. */
export class OpenSearchStartError extends LocalOpenSearchError {
  constructor(message: string) {
    super(message);
    this.name = 'OpenSearchStartError';
  }
}

export interface StartOpenSearchOptions {
  /** @default '3.6.0' (OpenSearch 3.x needs Java 21+) */
  readonly version?: string;
  /** Where the unpacked distribution is cached. @default '<repo>/.kfek' */
  readonly cacheDir?: string;
  /** @default '512m' */
  readonly heap?: string;
  /** @default 120000 */
  readonly startTimeoutMillis?: number;
  /** Keep the temp dir (data, logs) after stop, for post-mortems. @default false */
  readonly keepData?: boolean;
  /**
   * The HTTP port. A restart of a killed node passes the port it had, so clients see connection refused while it
   * is down and find it again at the same URL (the fault tests).
   * @default - a free port
   */
  readonly httpPort?: number;
  /**
   * The data folder, kept across a restart (never deleted by `stop()`); it must be writable by the node's user.
   * @default - `data/` in the node's temp dir
   */
  readonly dataDir?: string;
}

export interface RunningOpenSearch {
  /** e.g. `http://127.0.0.1:37211`. */
  readonly url: string;
  readonly pid: number;
  /** Temp dir with config, data and logs of this node. */
  readonly homeDir: string;
  readonly version: string;
  /** Ends the process group and waits for it; safe to call twice. */
  stop(): Promise<void>;
  /** Lets this process exit while the node keeps running (stop it later by pid, see {@link stopDetached}). */
  detach(): void;
}

export const DEFAULT_OPENSEARCH_VERSION = '3.6.0';
const MIN_JAVA_MAJOR = 21;
const REPO_ROOT = resolve(__dirname, '..');

function mavenZipPath(version: string): string {
  return join(
    homedir(),
    '.m2/repository/org/opensearch/distribution/integ-test-zip/opensearch',
    version,
    `opensearch-${version}.zip`,
  );
}

/** Downloads the zip into ~/.m2 unless it is there already; returns its path. */
export function ensureDownloaded(version: string): string {
  const zip = mavenZipPath(version);
  if (existsSync(zip)) {
    return zip;
  }
  const result = spawnSync(
    'mvn',
    [
      '-q',
      '-B',
      'dependency:get',
      `-Dartifact=org.opensearch.distribution.integ-test-zip:opensearch:${version}:zip`,
      '-Dtransitive=false',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
  );
  if (result.error !== undefined || result.status !== 0 || !existsSync(zip)) {
    throw new LocalOpenSearchError(
      `Could not download OpenSearch ${version} from Maven Central with mvn (exit ${String(result.status)}): ` +
        `${result.error?.message ?? ''}${result.stderr ?? ''}${result.stdout ?? ''}. Install Maven ` +
        '(apt-get install maven) or place the zip at ' +
        zip,
    );
  }
  return zip;
}

/** Unpacks the distribution once into `<cacheDir>/opensearch-<version>`; returns that directory. */
export function ensureUnpacked(version: string, cacheDir: string): string {
  const target = join(cacheDir, `opensearch-${version}`);
  if (existsSync(join(target, 'bin', 'opensearch'))) {
    return target;
  }
  const zip = ensureDownloaded(version);
  mkdirSync(cacheDir, { recursive: true });
  // Unpack beside the target and rename, so an interrupted unzip never leaves a half distribution that looks whole.
  const staging = mkdtempSync(join(cacheDir, '.unpack-'));
  try {
    const result = spawnSync('unzip', ['-q', '-o', zip, '-d', staging], { encoding: 'utf8' });
    if (result.error !== undefined || result.status !== 0) {
      throw new LocalOpenSearchError(`unzip ${zip} failed: ${result.error?.message ?? result.stderr}`);
    }
    const inner = join(staging, `opensearch-${version}`);
    if (!existsSync(inner)) {
      throw new LocalOpenSearchError(`${zip} does not contain opensearch-${version}/`);
    }
    try {
      renameSync(inner, target);
    } catch (error) {
      // Another process (a parallel test file) finished unpacking first: use its copy.
      if (!existsSync(join(target, 'bin', 'opensearch'))) {
        throw new LocalOpenSearchError(`Could not move the unpacked distribution to ${target}`, {
          cause: error,
        });
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

function javaMajor(javaHome: string): number | undefined {
  const java = join(javaHome, 'bin', 'java');
  if (!existsSync(java)) {
    return undefined;
  }
  const out = spawnSync(java, ['-version'], { encoding: 'utf8' });
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${out.stderr}${out.stdout}`);
  if (match === null) {
    return undefined;
  }
  // Java 8 and older print 1.x.
  return match[1] === '1' ? Number(match[2]) : Number(match[1]);
}

/** Finds a JDK >= 21: OPENSEARCH_JAVA_HOME, then /usr/lib/jvm/*, then JAVA_HOME; the newest that qualifies. */
export function findJavaHome(env: NodeJS.ProcessEnv = process.env, jvmRoot = '/usr/lib/jvm'): string {
  const candidates: string[] = [];
  if (env.OPENSEARCH_JAVA_HOME) {
    candidates.push(env.OPENSEARCH_JAVA_HOME);
  }
  if (existsSync(jvmRoot)) {
    for (const entry of readdirSync(jvmRoot).sort()) {
      candidates.push(join(jvmRoot, entry));
    }
  }
  if (env.JAVA_HOME) {
    candidates.push(env.JAVA_HOME);
  }
  // An explicit OPENSEARCH_JAVA_HOME that qualifies wins; otherwise the newest qualifying JDK.
  const explicit = env.OPENSEARCH_JAVA_HOME;
  if (explicit && (javaMajor(explicit) ?? 0) >= MIN_JAVA_MAJOR) {
    return explicit;
  }
  const seen: string[] = [];
  let best: { home: string; major: number } | undefined;
  for (const home of candidates) {
    const major = javaMajor(home);
    seen.push(`${home} (${major ?? 'no java'})`);
    if (major !== undefined && major >= MIN_JAVA_MAJOR && (best === undefined || major > best.major)) {
      best = { home, major };
    }
  }
  if (best === undefined) {
    throw new JavaNotFoundError(
      `OpenSearch 3.x needs Java ${MIN_JAVA_MAJOR} or newer; none found. Looked at: ${seen.join(', ') || 'nothing'}. ` +
        'Install one (e.g. apt-get install openjdk-21-jdk-headless) or set OPENSEARCH_JAVA_HOME.',
    );
  }
  return best.home;
}

/** Asks the kernel for a free port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

const NOBODY_UID = 65534;
const NOGROUP_GID = 65534;

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) {
      chownTree(join(path, entry), uid, gid);
    }
  }
}

async function waitForExit(child: ChildProcess, timeoutMillis: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return true;
  }
  return new Promise((resolveExit) => {
    const timer = setTimeout(() => resolveExit(false), timeoutMillis);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveExit(true);
    });
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Starts a node and resolves when the cluster is green or yellow. */
export async function startOpenSearch(options: StartOpenSearchOptions = {}): Promise<RunningOpenSearch> {
  const version = options.version ?? DEFAULT_OPENSEARCH_VERSION;
  const dist = ensureUnpacked(version, options.cacheDir ?? join(REPO_ROOT, '.kfek'));
  const javaHome = findJavaHome();
  const [httpPort, transportPort] = [options.httpPort ?? (await freePort()), await freePort()];

  const homeDir = mkdtempSync(join(tmpdir(), 'kfek-opensearch-'));
  const confDir = join(homeDir, 'config');
  cpSync(join(dist, 'config'), confDir, { recursive: true });
  const dataDir = options.dataDir ?? join(homeDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(join(homeDir, 'logs'));
  writeFileSync(
    join(confDir, 'opensearch.yml'),
    [
      'cluster.name: kfek-local',
      'node.name: kfek-local-1',
      'discovery.type: single-node',
      'network.host: 127.0.0.1',
      `http.port: ${httpPort}`,
      `transport.port: ${transportPort}`,
      `path.data: ${dataDir}`,
      `path.logs: ${join(homeDir, 'logs')}`,
      // A developer machine's disk is often over 90 % full; the default watermarks would make indices read-only.
      'cluster.routing.allocation.disk.threshold_enabled: false',
      // Tests create and delete indices freely.
      'action.destructive_requires_name: false',
      '',
    ].join('\n'),
  );
  // jvm.options points GC logs, heap dumps and crash files at paths relative to the distribution, which is shared
  // and not writable by the node's user: send them to this node's own dirs.
  const jvmOptionsFile = join(confDir, 'jvm.options');
  writeFileSync(
    jvmOptionsFile,
    readFileSync(jvmOptionsFile, 'utf8')
      .replaceAll('logs/', `${join(homeDir, 'logs')}/`)
      .replace(/HeapDumpPath=data\b/, `HeapDumpPath=${dataDir}`),
  );
  chmodSync(homeDir, 0o755);
  const runAsNobody = isRoot();
  if (runAsNobody) {
    chownTree(homeDir, NOBODY_UID, NOGROUP_GID);
    if (options.dataDir !== undefined) chownTree(options.dataDir, NOBODY_UID, NOGROUP_GID);
  }

  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: homeDir,
    OPENSEARCH_JAVA_HOME: javaHome,
    OPENSEARCH_PATH_CONF: confDir,
    OPENSEARCH_JAVA_OPTS: `-Xms${options.heap ?? '512m'} -Xmx${options.heap ?? '512m'}`,
    // The launcher's temp dir must be writable by the node's user.
    OPENSEARCH_TMPDIR: homeDir,
  };
  const command = runAsNobody ? 'setpriv' : join(dist, 'bin', 'opensearch');
  const args = runAsNobody
    ? ['--reuid=nobody', '--regid=nogroup', '--clear-groups', '--', join(dist, 'bin', 'opensearch')]
    : [];
  // Output goes to a file, not a pipe: a detached node (CLI `start --detach`, `npm start -- --keep`) outlives this
  // process, and a pipe without a reader would break its console logging.
  const outputFile = join(homeDir, 'logs', 'console.log');
  const outputFd = openSync(outputFile, 'a');
  const child = spawn(command, args, {
    env,
    cwd: homeDir,
    detached: true,
    stdio: ['ignore', outputFd, outputFd],
  });
  closeSync(outputFd);
  const tail = (): string => {
    try {
      return readFileSync(outputFile, 'utf8').split('\n').slice(-40).join('\n');
    } catch {
      return '(no output)';
    }
  };
  const pid = child.pid;
  if (pid === undefined) {
    throw new OpenSearchStartError(`Could not spawn ${command}`);
  }
  writeFileSync(join(homeDir, 'node.pid'), String(pid));

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) {
      return;
    }
    stopped = true;
    killGroup(pid, 'SIGTERM');
    if (!(await waitForExit(child, 20_000))) {
      killGroup(pid, 'SIGKILL');
      await waitForExit(child, 5_000);
    }
    if (options.keepData !== true) {
      rmSync(homeDir, { recursive: true, force: true });
    }
  };

  const url = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + (options.startTimeoutMillis ?? 120_000);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new OpenSearchStartError(
          `OpenSearch exited (${child.exitCode ?? child.signalCode}) before it became healthy:\n${tail()}`,
        );
      }
      if (Date.now() > deadline) {
        throw new OpenSearchStartError(`OpenSearch did not become healthy at ${url} in time:\n${tail()}`);
      }
      try {
        const response = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, {
          signal: AbortSignal.timeout(5_000),
        });
        const body = (await response.json()) as { status?: string };
        if (response.status === 200 && (body.status === 'green' || body.status === 'yellow')) {
          break;
        }
      } catch {
        // Not listening yet.
      }
      await sleep(500);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid, homeDir, version, stop, detach: () => child.unref() };
}

/** Reads a pid file written by `start --detach` and stops that process group. */
export async function stopDetached(pidFile: string): Promise<boolean> {
  if (!existsSync(pidFile)) {
    return false;
  }
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 1) {
    throw new LocalOpenSearchError(`${pidFile} does not hold a pid.`);
  }
  killGroup(pid, 'SIGTERM');
  for (let i = 0; i < 40; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(pidFile, { force: true });
      return true;
    }
    await sleep(500);
  }
  killGroup(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  return true;
}

async function main(argv: readonly string[]): Promise<void> {
  const [command] = argv;
  const stateFile = join(REPO_ROOT, '.kfek', 'opensearch-node.json');
  if (command === 'start') {
    const node = await startOpenSearch({ keepData: false });
    if (argv.includes('--detach')) {
      // Leave the node running; `stop` ends it. The child keeps running because it is in its own group.
      writeFileSync(stateFile, JSON.stringify({ url: node.url, pid: node.pid, homeDir: node.homeDir }));
      node.detach();
      console.log(
        `OpenSearch ${node.version} is up at ${node.url} (pid ${node.pid}); stop it with: npx ts-node scripts/opensearch-node.ts stop`,
      );
      process.exit(0);
    }
    console.log(`OpenSearch ${node.version} is up at ${node.url} (pid ${node.pid}). Ctrl-C stops it.`);
    const shutdown = (): void => {
      void node.stop().then(() => process.exit(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    return;
  }
  if (command === 'stop') {
    if (!existsSync(stateFile)) {
      console.log('No detached node recorded in .kfek/opensearch-node.json.');
      return;
    }
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number; homeDir: string };
    const pidFile = join(state.homeDir, 'node.pid');
    await stopDetached(pidFile);
    rmSync(state.homeDir, { recursive: true, force: true });
    rmSync(stateFile, { force: true });
    console.log(`Stopped OpenSearch (pid ${state.pid}).`);
    return;
  }
  if (command === 'download') {
    console.log(ensureUnpacked(DEFAULT_OPENSEARCH_VERSION, join(REPO_ROOT, '.kfek')));
    return;
  }
  console.error('usage: npx ts-node scripts/opensearch-node.ts start [--detach] | stop | download');
  process.exitCode = 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
