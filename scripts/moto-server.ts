/**
 * Starts a real moto server (AWS API emulator, `.venv/bin/moto_server`) on 127.0.0.1 and a random free port,
 * for `npm start` (scripts/local/main.ts) and the integration tests. Call `stop()` when done (tests: in afterAll);
 * it kills the process group even when a test failed.
 *
 * The venv comes from `bash scripts/ensure-python-tools.sh` (npm test's pretest runs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port';

export class MotoServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MotoServerError';
  }
}

export interface MotoServer {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly port: number;
  /** The server's process id (its own process group). */
  readonly pid: number;
  /** Wipes all emulated resources (moto's reset API). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartMotoOptions {
  /**
   * Milliseconds to wait for the server to answer.
   * @default 20000
   */
  readonly startTimeoutMs?: number;
  /**
   * Serve one request at a time (werkzeug with threading off) instead of `moto_server`'s thread per request.
   * moto's Kinesis keeps a shard's records in an unlocked OrderedDict: a GetRecords that runs while another thread
   * appends fails with "RuntimeError: OrderedDict mutated during iteration" (an HTML 500 page to the SDK), and two
   * concurrent PutRecords can get the same sequence number, the second replacing the first. The local runner
   * reads and writes the same streams at once, so it serialises. Python's GIL lets moto use about one core either
   * way, so this costs little; tests that hold connections open (the fault proxy) keep the threaded server.
   * @default false
   */
  readonly serialized?: boolean;
}

/**
 * `moto_server` without threads: the same app and request handler moto's own `main` passes to werkzeug's
 * `run_simple` (moto/server.py), with `threaded=False`. Without threads werkzeug speaks HTTP/1.0 and closes each
 * connection after its answer, so one idle client can never block the others.
 */
const SERIALIZED_MOTO_PY = `
import os, sys
from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
os.environ.setdefault("MOTO_PORT", sys.argv[2])
run_simple(sys.argv[1], int(sys.argv[2]), DomainDispatcherApplication(create_backend_app), threaded=False,
           request_handler=MotoRequestHandler)
`;

const VENV_PYTHON = join(__dirname, '..', '.venv', 'bin', 'python');

export const MOTO_SERVER_BIN = join(__dirname, '..', '.venv', 'bin', 'moto_server');

async function waitUntilUp(endpoint: string, child: ChildProcess, timeoutMs: number, log: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new MotoServerError(`moto_server exited with ${child.exitCode} before answering:\n${log()}`);
    }
    try {
      const response = await fetch(`${endpoint}/moto-api/data.json`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new MotoServerError(`moto_server did not answer on ${endpoint} within ${timeoutMs} ms:\n${log()}`);
}

export async function startMoto(options: StartMotoOptions = {}): Promise<MotoServer> {
  if (!existsSync(MOTO_SERVER_BIN)) {
    throw new MotoServerError(
      `${MOTO_SERVER_BIN} is missing: run \`bash scripts/ensure-python-tools.sh\` first.`,
    );
  }
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  // detached: its own process group, so stop() also ends any worker it forks.
  const [command, args] =
    options.serialized === true
      ? [VENV_PYTHON, ['-c', SERIALIZED_MOTO_PY, '127.0.0.1', String(port)]]
      : [MOTO_SERVER_BIN, ['-H', '127.0.0.1', '-p', String(port)]];
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 3000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilUp(endpoint, child, options.startTimeoutMs ?? 20_000, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    port,
    pid: child.pid!,
    reset: async () => {
      await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
    },
    stop,
  };
}
