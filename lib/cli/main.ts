/**
 * The `kfek` command: parses argv, runs one command, prints, returns the exit code. bin/kfek-cli.js calls
 * {@link run}; tests call it in-process with their own streams and environment.
 */
import type { HttpAuth } from '../opensearch/http';
import { createHttpClient } from '../opensearch/http';
import { SAVED_QUERIES, savedQueryDefinitionName } from '../constructs/monitoring-queries';
import { type QueryArgs, type SendArgs, type VerifyArgs, USAGE, parseCliArgs } from './args';
import { createLogsClient } from './aws';
import { CliError, UsageError } from './errors';
import { formatQueryResult, formatSendResult, formatTable, formatVerifyResult } from './format';
import { GeneratorError, newRunId, validateRunId } from './generate';
import { ProgressBar, type ProgressOutput } from './progress';
import { runQuery } from './query';
import { sendLogEvents } from './send';
import { verifyRun } from './verify';

export interface CliIo {
  readonly stdout: ProgressOutput;
  readonly stderr: ProgressOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

/** Runs one command; never throws: errors become a one-line message on stderr and a non-zero exit code. */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    const args = parseCliArgs(argv, io.env);
    switch (args.command) {
      case 'help':
        io.stdout.write(`${USAGE}\n`);
        return 0;
      case 'send':
        return await send(args, io);
      case 'verify':
        return await verify(args, io);
      case 'query':
        return await query(args, io);
    }
  } catch (error) {
    const cliError =
      error instanceof CliError
        ? error
        : error instanceof GeneratorError
          ? new UsageError(error.message)
          : undefined;
    if (cliError !== undefined) {
      io.stderr.write(`kfek: ${cliError.message}\n`);
      return cliError.exitCode;
    }
    io.stderr.write(
      `kfek: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

async function send(args: SendArgs, io: CliIo): Promise<number> {
  const runId = args.runId ?? newRunId(Date.now());
  validateRunId(runId);
  const client = createLogsClient(args, io.env);
  const bar = new ProgressBar(io.stderr, { total: args.count, label: `send ${runId}` });
  try {
    const result = await sendLogEvents(client, {
      logGroupName: args.logGroupName,
      logStreamName: args.logStreamName,
      count: args.count,
      ratePerSecond: args.ratePerSecond,
      runId,
      seed: args.seed,
      endpoint: args.endpoint,
      onProgress: (written, _total, note) => bar.update(written, note),
    });
    bar.finish();
    io.stdout.write(`${args.json ? JSON.stringify(result) : formatSendResult(result)}\n`);
    if (result.rejected > 0) {
      io.stderr.write(`kfek: ${result.rejected} events were rejected (check the clock of this machine)\n`);
      return 1;
    }
    return 0;
  } finally {
    client.destroy();
  }
}

/** Region of an Amazon OpenSearch Service endpoint (`search-x-abc.eu-west-1.es.amazonaws.com`). */
function regionFromHost(host: string): string | undefined {
  return /\.([a-z]{2}(?:-[a-z]+)+-\d)\.es\.amazonaws\.com$/.exec(host)?.[1];
}

async function verify(args: VerifyArgs, io: CliIo): Promise<number> {
  const url = new URL(args.openSearchUrl);
  let auth: HttpAuth = { kind: 'none' };
  if (url.username !== '') {
    auth = {
      kind: 'basic',
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
    // Keep the secret out of every message that prints the base URL.
    url.username = '';
    url.password = '';
  }
  if (args.sigv4) {
    const region =
      args.region ?? io.env.AWS_REGION ?? io.env.AWS_DEFAULT_REGION ?? regionFromHost(url.hostname);
    if (region === undefined) throw new UsageError('verify --sigv4 needs --region (or AWS_REGION)');
    auth = { kind: 'sigv4', region };
  }
  const client = createHttpClient({ baseUrl: url.toString().replace(/\/$/, ''), auth, maxAttempts: 3 });
  const result = await verifyRun(client, {
    runId: args.runId,
    indexPattern: args.indexPattern,
    expected: args.expected,
    timeoutInMillis: args.timeoutInMillis,
    pollIntervalInMillis: args.pollIntervalInMillis,
    ingestField: args.ingestField,
    onPoll: (found, expected) =>
      io.stderr.write(
        `verify ${args.runId}: ${found}${expected !== undefined ? `/${expected}` : ''} found\n`,
      ),
  });
  io.stdout.write(`${args.json ? JSON.stringify(result) : formatVerifyResult(result)}\n`);
  if (!result.complete) {
    io.stderr.write(
      `kfek: ${result.missing} events of run ${result.runId} are missing: check the pipeline dashboard and alarms, ` +
        'the dead-letter and failed-documents buckets, or retry with a longer --timeout\n',
    );
    return 1;
  }
  return 0;
}

async function query(args: QueryArgs, io: CliIo): Promise<number> {
  if (args.list) {
    const rows = SAVED_QUERIES.map((q) => ({
      name: q.name,
      saved_as: savedQueryDefinitionName(q),
      what: q.description,
    }));
    io.stdout.write(
      args.json ? `${JSON.stringify(rows)}\n` : `${formatTable(['name', 'saved_as', 'what'], rows, 120)}\n`,
    );
    return 0;
  }
  const client = createLogsClient(args, io.env);
  try {
    const result = await runQuery(client, {
      name: args.name ?? '',
      logGroupNames: args.logGroupNames,
      sinceInMillis: args.sinceInMillis,
      timeoutInMillis: args.timeoutInMillis,
      endpoint: args.endpoint,
    });
    io.stdout.write(`${args.json ? JSON.stringify(result) : formatQueryResult(result)}\n`);
    return 0;
  } finally {
    client.destroy();
  }
}
