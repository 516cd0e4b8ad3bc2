/**
 * The servers a local run starts (moto, OpenSearch) and the pipeline over them, stopped in reverse order on exit,
 * error or Ctrl-C; plus the prerequisites step (the Python venv) and the record of a node kept with `--keep`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { startOpenSearch, type RunningOpenSearch } from '../opensearch-node';
import { startMoto, type MotoServer } from '../moto-server';
import { REPO_ROOT } from './config-spec';
import { LocalRunError } from './errors';
import type { RunningStandin } from '../serverless/standin';
import type { LocalPipeline } from './pipeline';

/** Where `--keep` records the node it leaves running; `scripts/opensearch-node.ts stop` reads it. */
export const KEPT_NODE_STATE = path.join(REPO_ROOT, '.kfek', 'opensearch-node.json');

/**
 * A fresh node is healthy in about 15 s on a quiet 2-core machine; with a load average of 25-30 (other test runs)
 * it once needed more than the node helper's default 120 s.
 */
const OPENSEARCH_START_TIMEOUT_MILLIS = 300_000;

/** What `main` started, stopped in reverse order on exit, error or Ctrl-C. */
export class Processes {
  moto: MotoServer | undefined;
  openSearch: RunningOpenSearch | undefined;
  pipeline: LocalPipeline | undefined;
  /** The Serverless stand-in in front of the node, on a serverless profile (local-collection.ts). */
  collection: RunningStandin | undefined;
  private starting: Promise<unknown> | undefined;
  private stopping: Promise<void> | undefined;

  /**
   * Starts moto and OpenSearch in parallel and records each as soon as it is up, so a Ctrl-C during the start
   * still finds (after waiting for it) a node to stop. Throws the first start failure.
   */
  async startServers(): Promise<{ moto: MotoServer; openSearch: RunningOpenSearch }> {
    const starts = Promise.allSettled([
      startMoto({ serialized: true }).then((m) => (this.moto = m)),
      startOpenSearch({ startTimeoutMillis: OPENSEARCH_START_TIMEOUT_MILLIS }).then(
        (o) => (this.openSearch = o),
      ),
    ]);
    this.starting = starts;
    const [moto, openSearch] = await starts;
    if (moto.status === 'rejected') throw moto.reason;
    if (openSearch.status === 'rejected') throw openSearch.reason;
    return { moto: moto.value, openSearch: openSearch.value };
  }

  /** Stops everything started so far; safe to call twice (the second call waits for the first). */
  stopAll(keepOpenSearch = false): Promise<void> {
    this.stopping ??= (async () => {
      if (this.starting !== undefined && (this.moto === undefined || this.openSearch === undefined)) {
        // A server still starting has no handle yet, and runs in its own process group (a terminal's Ctrl-C
        // does not reach it). Ending the groups of this process' own children makes its start fail fast; the
        // starter then cleans up after it. Waiting instead would take up to the start timeout.
        for (const pid of ownChildPids()) {
          try {
            process.kill(-pid, 'SIGTERM');
          } catch {
            // Not a group leader, or gone already.
          }
        }
      }
      await this.starting;
      await this.pipeline?.stop().catch((error: unknown) => console.error(`pipeline: ${String(error)}`));
      await this.collection?.close().catch((error: unknown) => console.error(`stand-in: ${String(error)}`));
      await this.moto?.stop().catch((error: unknown) => console.error(`moto: ${String(error)}`));
      if (!keepOpenSearch) {
        await this.openSearch
          ?.stop()
          .catch((error: unknown) => console.error(`OpenSearch: ${String(error)}`));
      }
    })();
    return this.stopping;
  }
}

/** The URL of a node an earlier `npm start -- --keep` left running, if its process is still alive. */
export function keptNodeStillRunning(): string | undefined {
  try {
    const state = JSON.parse(readFileSync(KEPT_NODE_STATE, 'utf8')) as { url?: string; pid?: number };
    if (typeof state.pid !== 'number' || typeof state.url !== 'string') return undefined;
    process.kill(state.pid, 0);
    return state.url;
  } catch {
    return undefined;
  }
}

/** Pids of this process' direct children, from /proc (Linux); empty where /proc is not readable. */
function ownChildPids(): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Runs `bash scripts/ensure-python-tools.sh` (idempotent; creates .venv with moto on first use). */
export function ensurePythonTools(): void {
  const result = spawnSync('bash', [path.join(REPO_ROOT, 'scripts', 'ensure-python-tools.sh')], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    throw new LocalRunError(
      'scripts/ensure-python-tools.sh failed: it needs python3 with venv and pip access to PyPI on the first run',
    );
  }
}
