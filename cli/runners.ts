/**
 * What each command does once its arguments are parsed: builds the clients, runs, prints, returns the exit code.
 * main.ts loads this module only when a command runs, so `kfek --help` and usage errors never load the AWS SDK.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCredentialProvider } from '../core/aws-signing';
import { SAVED_QUERIES, savedQueryDefinitionName } from '../core/contracts/saved-queries';
import { newRunId, validateRunId } from '../core/log-generator';
import type { DoctorArgs, ProxyArgs, QueryArgs, SendArgs, VerifyArgs } from './args/types';
import { resolveAwsTarget } from './aws-target';
import type { RunContext } from './context';
import { runChecks } from './doctor/checks';
import { createAwsPorts } from './doctor/create-ports';
import { gatherFacts } from './doctor/facts';
import { exitCodeOf, formatFindings } from './doctor/report';
import { UsageError } from './errors';
import { untilStopped } from './io';
import { formatQueryResult, formatSendResult, formatTable, formatVerifyResult } from './format';
import { ProgressBar } from '../core/progress';
import { messageOf } from '../core/errors';
import { createSigningProxy, getCallerIdentity, mappableArn, upstreamOrigin } from './proxy';
import { runQuery } from './query';
import { sendLogEvents } from './send';
import { verifyRun } from './verify';

export async function send(args: SendArgs, { io, aws, clock }: RunContext): Promise<number> {
  const runId = args.runId ?? newRunId(clock.now());
  validateRunId(runId);
  const bar = new ProgressBar(io.stderr, { total: args.count, label: `send ${runId}` });
  const result = await sendLogEvents(aws.logs, {
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
}

export async function verify(
  args: VerifyArgs,
  { io, openSearch, openSearchTarget }: RunContext,
): Promise<number> {
  const client = openSearch(args.openSearchUrl, args);
  const result = await verifyRun(client, {
    // A collection has no scroll API.
    scroll: openSearchTarget(args.openSearchUrl, args).kind === 'domain',
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

export async function query(args: QueryArgs, { io, aws, profile }: RunContext): Promise<number> {
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
  const result = await runQuery(aws.logs, {
    name: args.name ?? '',
    logGroupNames: args.logGroupNames,
    profileLogGroupNames: () =>
      profile(args.profile, '; pass --log-group instead').sources.logGroups.map((group) => group.name),
    sinceInMillis: args.sinceInMillis,
    timeoutInMillis: args.timeoutInMillis,
    endpoint: args.endpoint,
  });
  io.stdout.write(`${args.json ? JSON.stringify(result) : formatQueryResult(result)}\n`);
  return 0;
}

export async function proxy(args: ProxyArgs, { io }: RunContext): Promise<number> {
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
  const stsEndpoint = resolveAwsTarget({}, io.env, { service: 'STS' }).endpoint;
  // One chain for the proxy and the identity lookup, so an SSO session is read (and refreshed) once.
  const credentials = await defaultCredentialProvider();
  const whoAmI = (): Promise<string> =>
    (identity ??= getCallerIdentity({ region, credentials, endpoint: stsEndpoint }));
  const server = await createSigningProxy({
    endpoint: args.endpoint,
    region,
    service: args.service,
    credentials,
    port: args.port,
    // Those not given are undefined: the proxy owns the defaults.
    maxBufferedBytes: args.maxBufferedBytes,
    maxConcurrentBodies: args.maxConcurrentBodies,
    headersTimeoutMillis: args.headersTimeoutInMillis,
    requestTimeoutMillis: args.requestTimeoutInMillis,
    upstreamTimeoutMillis: args.upstreamTimeoutInMillis,
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

export async function doctor(args: DoctorArgs, { io, target }: RunContext): Promise<number> {
  const projectDir = io.cwd ?? process.cwd();
  if (!args.skipSynth && args.cdkOut === undefined && !existsSync(join(projectDir, 'cdk.json'))) {
    throw new UsageError(
      `doctor: no cdk.json in ${projectDir}: run it in the kfek project directory, or pass --skip-synth`,
    );
  }
  // No default region: the SDK's chain (the AWS profile's region) decides, and the doctor reports what it found.
  const { region } = resolveAwsTarget({ region: args.region }, io.env, { defaultRegion: () => undefined });
  const { ports, destroy } = createAwsPorts({
    region,
    endpoint: target.endpoint,
    profile: args.profile,
    env: io.env,
    projectDir,
    cdkOut: args.cdkOut,
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
