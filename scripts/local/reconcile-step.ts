/**
 * `npm start`'s last step: `kfek reconcile` over the run's window, run as an operator runs it (the CLI as a child
 * process, `bin/kfek-cli.js`: the local runner never imports the CLI) against moto, the local node (or, on a
 * serverless profile, the local collection with `--service aoss`: signed for `aoss`, no routing) and the run's kept
 * folders and bucket. The pipeline has settled when it runs, so nothing is in flight: the lag is 0 and every minute
 * of the run is judged. moto's Logs Insights has no `stats`, so CloudWatch Logs is counted with FilterLogEvents
 * (`scan`).
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { OpenSearchSigningService } from '../../core/opensearch/target';
import { LOCAL_CREDENTIALS } from './aws-clients';
import { REPO_ROOT } from './config-spec';

export interface ReconcileStepOptions {
  readonly profile: string;
  readonly logGroups: readonly string[];
  readonly awsEndpoint: string;
  readonly region: string;
  readonly openSearchUrl: string;
  readonly rawStreamArn: string;
  /** moto's dead-letter bucket (npm start's poison records are kept there). */
  readonly deadLetterBucket: string;
  /** npm start's work folder: failed documents and discarded batches. */
  readonly workDir: string;
  /** Start of the window: the run's oldest event. */
  readonly since: Date;
  /**
   * `--service`: what the requests to OpenSearch are signed for. The profile's kind implies it (core/opensearch/
   * target.ts); the runner names `aoss` on a collection so the command line it prints says so.
   * @default - none: the profile's kind decides
   */
  readonly service?: OpenSearchSigningService;
  /**
   * `--heal` with its `--heal-timeout`: the missing events go back through the raw stream and the command waits for
   * them. `npm start` only judges (healing is the operator's call); the end-to-end tests heal.
   * @default - no heal
   */
  readonly heal?: { readonly timeoutInMillis: number };
  /** How long the command may take, the heal's wait not included. @default 120000 */
  readonly timeoutInMillis?: number;
}

export interface ReconcileStepResult {
  /** The command's exit code: 0 nothing missing, 1 something missing (or it failed), 2 bad usage. */
  readonly code: number;
  /** What it printed on stdout (its report). */
  readonly report: string;
  /** Its last stderr line, when it failed. */
  readonly error?: string;
}

/** The command line npm start runs (printed too, so it can be run again by hand). */
export function reconcileArgs(options: ReconcileStepOptions): string[] {
  return [
    'reconcile',
    '--profile',
    options.profile,
    ...options.logGroups.flatMap((g) => ['--log-group', g]),
    '--since',
    options.since.toISOString(),
    '--lag',
    '0s',
    '--endpoint',
    options.awsEndpoint,
    '--region',
    options.region,
    '--opensearch',
    options.openSearchUrl,
    '--raw-stream',
    options.rawStreamArn,
    '--bucket',
    options.deadLetterBucket,
    '--local-dir',
    options.workDir,
    ...(options.service === undefined ? [] : ['--service', options.service]),
    ...(options.heal === undefined ? [] : ['--heal', '--heal-timeout', `${options.heal.timeoutInMillis}ms`]),
  ];
}

export function runReconcileStep(options: ReconcileStepOptions): Promise<ReconcileStepResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'kfek-cli.js'), ...reconcileArgs(options)],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
          AWS_REGION: options.region,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(
      () => child.kill('SIGTERM'),
      (options.timeoutInMillis ?? 120_000) + (options.heal?.timeoutInMillis ?? 0),
    );
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('kfek:'));
      resolve({
        code: code ?? 1,
        report: stdout.trimEnd(),
        ...(code !== 0 && lines.length > 0 ? { error: lines[lines.length - 1] } : {}),
      });
    });
  });
}
