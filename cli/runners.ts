/**
 * What each command does once its arguments are parsed: builds the clients, runs, prints, returns the exit code.
 * main.ts loads this module only when a command runs, so `kfek --help` and usage errors never load the AWS SDK.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpAuth } from '../core/opensearch/http';
import { createHttpClient } from '../core/opensearch/http';
import { defaultCredentialProvider } from '../core/aws-signing';
import { SAVED_QUERIES, savedQueryDefinitionName } from '../core/contracts/saved-queries';
import { newRunId, validateRunId } from '../core/log-generator';
import {
  type CliArgs,
  type DoctorArgs,
  type ProxyArgs,
  type QueryArgs,
  type SendArgs,
  type VerifyArgs,
  regionFromHost,
} from './args';
import { createLogsClient, resolveAwsTarget } from './aws';
import { runChecks } from './doctor/checks';
import { createAwsPorts } from './doctor/create-ports';
import { gatherFacts } from './doctor/facts';
import { exitCodeOf, formatFindings } from './doctor/report';
import { UsageError } from './errors';
import { formatQueryResult, formatSendResult, formatTable, formatVerifyResult } from './format';
import type { CliIo } from './io';
import { ProgressBar } from '../core/progress';
import { createSigningProxy, getCallerIdentity, mappableArn, messageOf, upstreamOrigin } from './proxy';
import { profileLogGroupNames } from './profile';
import { runQuery } from './query';
import { sendLogEvents } from './send';
import { verifyRun } from './verify';

/** Resolves on Ctrl-C / SIGTERM (or when `signal` aborts), removing its listeners afterwards. */
function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal !== undefined) {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
      return;
    }
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

export async function send(args: SendArgs, io: CliIo): Promise<number> {
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

export async function verify(args: VerifyArgs, io: CliIo): Promise<number> {
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
    const { region } = resolveAwsTarget(
      { ...(args.region !== undefined ? { region: args.region } : {}) },
      io.env,
      {
        defaultRegion: () => regionFromHost(url.hostname),
      },
    );
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

export async function query(args: QueryArgs, io: CliIo): Promise<number> {
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
      profileLogGroupNames: () => profileLogGroupNames(args.profile),
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

export async function proxy(args: ProxyArgs, io: CliIo): Promise<number> {
  const upstream = upstreamOrigin(args.endpoint);
  // A plain-HTTP upstream is the local node of `npm start` (or a test server), which ignores signatures: any
  // region will do there. A real domain's region is part of the signature and must be right.
  const region = args.region ?? (upstream.protocol === 'http:' ? 'us-east-1' : undefined);
  if (region === undefined) {
    throw new UsageError(
      `proxy: cannot tell the region of ${upstream.host}: pass --region (or set AWS_REGION)`,
    );
  }
  let identity: Promise<string> | undefined;
  // The SDK's own endpoint variables are honoured, so a local STS (moto) answers in tests and offline runs.
  const stsEndpoint = io.env.AWS_ENDPOINT_URL_STS ?? io.env.AWS_ENDPOINT_URL;
  // One chain for the proxy and the identity lookup, so an SSO session is read (and refreshed) once.
  const credentials = await defaultCredentialProvider();
  const whoAmI = (): Promise<string> =>
    (identity ??= getCallerIdentity({
      region,
      credentials,
      ...(stsEndpoint !== undefined ? { endpoint: stsEndpoint } : {}),
    }));
  const server = await createSigningProxy({
    endpoint: args.endpoint,
    region,
    credentials,
    port: args.port,
    ...(args.maxBufferedBytes !== undefined ? { maxBufferedBytes: args.maxBufferedBytes } : {}),
    ...(args.maxConcurrentBodies !== undefined ? { maxConcurrentBodies: args.maxConcurrentBodies } : {}),
    ...(args.headersTimeoutInMillis !== undefined
      ? { headersTimeoutMillis: args.headersTimeoutInMillis }
      : {}),
    ...(args.requestTimeoutInMillis !== undefined
      ? { requestTimeoutMillis: args.requestTimeoutInMillis }
      : {}),
    ...(args.upstreamTimeoutInMillis !== undefined
      ? { upstreamTimeoutMillis: args.upstreamTimeoutInMillis }
      : {}),
    identity: whoAmI,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  try {
    let signedAs: string;
    try {
      const arn = await whoAmI();
      const mapped = mappableArn(arn);
      signedAs = mapped === arn ? arn : `${arn}, mapped as ${mapped}`;
    } catch (error) {
      // Not fatal: the user may fix credentials while the proxy runs (each request asks the chain again).
      signedAs = 'no identity yet';
      io.stderr.write(`kfek proxy: ${messageOf(error)}\n`);
    }
    io.stdout.write(`kfek proxy: ${server.url}/_dashboards -> ${server.upstream} (signed as ${signedAs})\n`);
    io.stdout.write('kfek proxy: Ctrl-C stops it\n');
    await untilStopped(io.stop);
    return 0;
  } finally {
    await server.close();
  }
}

export async function doctor(args: DoctorArgs, io: CliIo): Promise<number> {
  const projectDir = process.cwd();
  if (!args.skipSynth && args.cdkOut === undefined && !existsSync(join(projectDir, 'cdk.json'))) {
    throw new UsageError(
      `doctor: no cdk.json in ${projectDir}: run it in the kfek project directory, or pass --skip-synth`,
    );
  }
  // No default region: the SDK's chain (the AWS profile's region) decides, and the doctor reports what it found.
  const { region } = resolveAwsTarget(
    { ...(args.region !== undefined ? { region: args.region } : {}) },
    io.env,
    {
      defaultRegion: () => undefined,
    },
  );
  const { ports, destroy } = createAwsPorts({
    ...(region !== undefined ? { region } : {}),
    profile: args.profile,
    env: io.env,
    projectDir,
    ...(args.cdkOut !== undefined ? { cdkOut: args.cdkOut } : {}),
    synthTimeoutInMillis: args.synthTimeoutInMillis,
    credentials: await defaultCredentialProvider(),
  });
  try {
    const facts = await gatherFacts(ports, {
      profile: args.profile,
      skipSynth: args.skipSynth,
      // Said when it starts, not before: without a region the doctor stops before synthesizing.
      onSynth: () => {
        if (args.cdkOut === undefined) {
          io.stderr.write(`kfek doctor: synthesizing profile ${args.profile} (up to a few minutes)...\n`);
        }
      },
    });
    const findings = runChecks(facts);
    io.stdout.write(
      args.json
        ? `${JSON.stringify({ profile: args.profile, region: facts.region.ok ? facts.region.value : null, findings })}\n`
        : `${formatFindings(args.profile, findings)}\n`,
    );
    return exitCodeOf(findings);
  } finally {
    destroy();
  }
}

/** Runs a command cli/args/ parsed (the command table, cli/commands.ts, hands each its own arguments). */
export async function runParsed(
  args: Exclude<CliArgs, { command: 'help' | 'version' }>,
  io: CliIo,
): Promise<number> {
  switch (args.command) {
    case 'send':
      return send(args, io);
    case 'verify':
      return verify(args, io);
    case 'query':
      return query(args, io);
    case 'proxy':
      return proxy(args, io);
    case 'doctor':
      return doctor(args, io);
    case 'reconcile':
      // Loaded only here: the transform's core and the reconcile engine are not part of the other commands.
      return (await import('./reconcile/command')).reconcile(args, io);
    case 'events-window':
      return (await import('./events-window/command')).eventsWindow(args, io);
  }
}
