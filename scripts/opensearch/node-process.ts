/**
 * Starts and stops one OpenSearch node process: its own temp dir (config written by node-config.ts, data, logs),
 * free ports on 127.0.0.1, a fixed heap, its own process group (process-group.ts), readiness by polling. OpenSearch
 * refuses to run as root, so as root the node runs as `nobody`/`nogroup`, switched by Node's spawn itself
 * (`uid`/`gid`; libuv also drops supplementary groups), which needs no `setpriv` binary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalOpenSearchError, OpenSearchStartError } from './errors';
import { writeNodeConfig } from './node-config';
import { NOBODY_UID, NOGROUP_GID, chownTree, isRoot, killGroup, waitForExit } from './process-group';
import { freePort } from '../free-port';

/** How to run one node of an unpacked distribution. */
export interface NodeProcessOptions {
  /** The unpacked distribution (`.../opensearch-<version>`). */
  readonly distribution: string;
  readonly javaHome: string;
  readonly version: string;
  /**
   * JVM options added after jvm.options, in a file of the node's own `jvm.options.d` (the shared distribution is
   * never changed).
   * @default - none
   */
  readonly extraJvmOptions?: readonly string[];
  /**
   * Modules the runtime lacks: jvm.options' `--add-modules=<module>` lines for them are dropped from the node's
   * copy (the JVM refuses to start on a module it does not have).
   * @default - none
   */
  readonly missingModules?: readonly string[];
  /** @default '512m' */
  readonly heap?: string;
  /**
   * How the JVM compiles: `full` (tiered C1 then C2, for a node that indexes for minutes: `npm start`, the
   * benchmarks) or `startup` (C1 only, `-XX:TieredStopAtLevel=1`), for the short-lived nodes of the tests:
   * measured on this 2-core machine, a start took 4 s of CPU instead of 8-9 s (5.2 s instead of 6.2 s to ready)
   * and the first index and bulk 0.6-0.7 s instead of 1.0-1.1 s. What a node answers does not depend on it.
   * @default 'full'
   */
  readonly jit?: 'full' | 'startup';
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
  /**
   * More `opensearch.yml` settings, after kfek's own (a test delays the cluster state's recovery with
   * `gateway.expected_data_nodes` and `gateway.recover_after_time`).
   * @default - none
   */
  readonly settings?: Readonly<Record<string, string | number | boolean>>;
  /**
   * When the start resolves: `healthy` once the cluster is yellow or green, `listening` as soon as the HTTP port
   * answers anything (the cluster state may not be recovered yet: requests then meet its blocks).
   * @default 'healthy'
   */
  readonly readyWhen?: 'healthy' | 'listening';
  /**
   * Files for the node's config folder, by path relative to it (the secured node's TLS material and security
   * plugin config); written before the folder is handed to the node's user.
   * @default - none
   */
  readonly configFiles?: Readonly<Record<string, string>>;
  /**
   * `https` when the node's REST layer speaks TLS (the security plugin's `plugins.security.ssl.http.enabled`).
   * @default 'http'
   */
  readonly scheme?: 'http' | 'https';
  /**
   * How the readiness probes reach the node: a secured node's answer only counts with its CA trusted and a user's
   * credentials sent, and it answers 503 until the security plugin has initialised its index.
   * @default globalThis.fetch
   */
  readonly probeFetch?: typeof fetch;
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

export { freePort };

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Attempts at a start whose port another process took first (see {@link startNodeProcess}). */
const BIND_ATTEMPTS = 3;

/**
 * Starts a node and resolves when the cluster is green or yellow. A node that exits because its HTTP or transport
 * port was taken between the choice of the port and its bind (10-15 s later) is started again on new ports, at most
 * {@link BIND_ATTEMPTS} times; ports the caller fixed (`httpPort`) are kept.
 */
export async function startNodeProcess(options: NodeProcessOptions): Promise<RunningOpenSearch> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startNodeProcessOnce(options);
    } catch (error) {
      if (attempt >= BIND_ATTEMPTS || !isPortTaken(error)) throw error;
    }
  }
}

/** True for a start that failed only because a port was in use. */
export function isPortTaken(error: unknown): boolean {
  return (
    error instanceof OpenSearchStartError &&
    /Bind(Http|Transport)Exception[^\n]*Address already in use|BindException: Address already in use/.test(
      error.message,
    )
  );
}

/** Where and how {@link spawnNode} starts a node. */
interface SpawnedNodeSetting {
  readonly homeDir: string;
  readonly confDir: string;
  readonly javaHome: string;
  /** @default '512m' */
  readonly heap?: string;
  readonly distribution: string;
  readonly runAsNobody: boolean;
}

/**
 * Spawns the node's launcher detached, its output in `logs/console.log` of its home; answers the child, its pid and
 * a reader of the output's last lines. Removes the home and throws when the launcher cannot be spawned.
 */
async function spawnNode(
  where: SpawnedNodeSetting,
): Promise<{ readonly child: ChildProcess; readonly pid: number; readonly tail: () => string }> {
  const { homeDir, confDir, javaHome, distribution, runAsNobody } = where;
  const heap = where.heap ?? '512m';
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: homeDir,
    OPENSEARCH_JAVA_HOME: javaHome,
    OPENSEARCH_PATH_CONF: confDir,
    OPENSEARCH_JAVA_OPTS: `-Xms${heap} -Xmx${heap}`,
    // The launcher's temp dir must be writable by the node's user.
    OPENSEARCH_TMPDIR: homeDir,
  };
  const command = join(distribution, 'bin', 'opensearch');
  // Output goes to a file, not a pipe: a detached node (CLI `start --detach`, `npm start -- --keep`) outlives this
  // process, and a pipe without a reader would break its console logging.
  const outputFile = join(homeDir, 'logs', 'console.log');
  const outputFd = openSync(outputFile, 'a');
  const child = spawn(command, [], {
    env,
    cwd: homeDir,
    detached: true,
    stdio: ['ignore', outputFd, outputFd],
    ...(runAsNobody ? { uid: NOBODY_UID, gid: NOGROUP_GID } : {}),
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
    // spawn reports why (EACCES, ENOENT) in an 'error' event on the next tick.
    const reason = await new Promise<string>((resolveReason) => {
      child.once('error', (error) => resolveReason(error.message));
      setTimeout(() => resolveReason('no reason given'), 1_000);
    });
    rmSync(homeDir, { recursive: true, force: true });
    throw new OpenSearchStartError(
      `Could not spawn ${command}: ${reason}.` +
        (runAsNobody
          ? ' As root the node runs as nobody, which needs read and execute access to that folder and every ' +
            'folder above it (a checkout under /root or a mktemp folder is mode 700).'
          : ''),
    );
  }
  return { child, pid, tail };
}

async function startNodeProcessOnce(options: NodeProcessOptions): Promise<RunningOpenSearch> {
  const { distribution, javaHome, version } = options;
  const [httpPort, transportPort] = [options.httpPort ?? (await freePort()), await freePort()];
  const homeDir = mkdtempSync(join(tmpdir(), 'kfek-opensearch-'));
  const dataDir = options.dataDir ?? join(homeDir, 'data');
  const confDir = writeNodeConfig({
    distribution,
    homeDir,
    httpPort,
    transportPort,
    dataDir,
    extraJvmOptions: [
      ...(options.extraJvmOptions ?? []),
      ...(options.jit === 'startup' ? ['-XX:TieredStopAtLevel=1'] : []),
    ],
    missingModules: options.missingModules ?? [],
    settings: options.settings ?? {},
    files: options.configFiles ?? {},
  });
  chmodSync(homeDir, 0o755);
  const runAsNobody = isRoot();
  if (runAsNobody) {
    chownTree(homeDir, NOBODY_UID, NOGROUP_GID);
    if (options.dataDir !== undefined) chownTree(options.dataDir, NOBODY_UID, NOGROUP_GID);
  }

  const { child, pid, tail } = await spawnNode({
    homeDir,
    confDir,
    javaHome,
    heap: options.heap,
    distribution,
    runAsNobody,
  });
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

  const url = `${options.scheme ?? 'http'}://127.0.0.1:${httpPort}`;
  try {
    await waitUntilReady(url, child, {
      timeoutMillis: options.startTimeoutMillis ?? 120_000,
      tail,
      readyWhen: options.readyWhen ?? 'healthy',
      fetchImpl: options.probeFetch ?? fetch,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid, homeDir, version, stop, detach: () => child.unref() };
}

interface ReadinessOptions {
  readonly timeoutMillis: number;
  readonly tail: () => string;
  readonly readyWhen: 'healthy' | 'listening';
  readonly fetchImpl: typeof fetch;
}

async function waitUntilReady(url: string, child: ChildProcess, options: ReadinessOptions): Promise<void> {
  const { timeoutMillis, tail, readyWhen, fetchImpl } = options;
  const deadline = Date.now() + timeoutMillis;
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
      if (readyWhen === 'listening') {
        await fetchImpl(url, { signal: AbortSignal.timeout(5_000) });
        return;
      }
      const response = await fetchImpl(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, {
        signal: AbortSignal.timeout(5_000),
      });
      const body = (await response.json()) as { status?: string };
      if (response.status === 200 && (body.status === 'green' || body.status === 'yellow')) {
        return;
      }
    } catch {
      // Not listening yet.
    }
    await sleep(500);
  }
}

/** Reads a pid file written by `start --detach` and stops that process group. */
export async function stopDetached(pidFile: string): Promise<boolean> {
  let text: string;
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return false;
  }
  const pid = Number(text.trim());
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
