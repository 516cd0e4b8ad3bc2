/**
 * Every `npx kfek ...` example of README.md and docs/*.md runs, exactly as written, in bash against real
 * components this file starts on 127.0.0.1 and stops: moto (CloudWatch Logs, Kinesis, S3) and a local OpenSearch
 * node, joined by the local pipeline of `npm start` (scripts/local: the real transform handler and the Firehose
 * stand-in), created from cdk.json's `sandbox` profile. The environment is the doc sandbox of
 * test/helpers/doc-snippets.ts (empty HOME, dummy credentials, `AWS_ENDPOINT_URL` = moto, `AWS_REGION`).
 *
 * Substitution rule (documented here, applied by `runnable`): `<placeholders>` get the values in
 * {@link placeholders}, and the example domain endpoint {@link EXAMPLE_DOMAIN} stands for the local node.
 * Nothing else in a command is changed.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { CreateQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHttpClient, provisionOpenSearch } from '../../core/opensearch';
import { loadConfig, localSpecFromConfig, openSearchSpecFromConfig } from '../../scripts/local/config-spec';
import { localSqsClient } from '../../scripts/local/sqs-client';
import { LocalPipeline } from '../../scripts/local/pipeline';
import { localSearchHttp } from '../../scripts/local/search-http';
import { countDocuments } from '../../scripts/local/summary';
import { startMoto, type MotoServer } from '../../scripts/moto-server';
import {
  type CliExample,
  cliExamples,
  runProcess,
  runProxyExample,
  sandboxEnv,
  substitutePlaceholders,
  writeNpxShim,
} from '../helpers/doc-snippets';
import { encodeEnvelope, makeEnvelope } from '../helpers/cloudwatch';
import {
  OPENSEARCH_START_TIMEOUT_MILLIS,
  startOpenSearch,
  TEST_NODE,
  type RunningOpenSearch,
} from '../helpers/opensearch';

const REPO = resolve(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const EXAMPLES: readonly CliExample[] = DOCS.flatMap((file) =>
  cliExamples(readFileSync(join(REPO, file), 'utf8'), file),
);
/** The made-up domain endpoint of the docs' examples; it stands for the local OpenSearch node. */
const EXAMPLE_DOMAIN = 'https://search-kfek-sandbox-xxxx.eu-west-1.es.amazonaws.com';
const CONFIG = loadConfig('sandbox');
const SPEC = localSpecFromConfig(CONFIG);
const LOG_GROUP = CONFIG.sources.logGroups[0].name;

/** Examples another test file runs as written, with where. */
const RUN_ELSEWHERE: Readonly<Record<string, string>> = {
  "npx kfek proxy --endpoint <Search.DashboardsUrl>      # the URL's host is enough; the region is read from it":
    'test/docs/deploy-guide.test.ts',
  'npx kfek query --name errors-by-15m --since 1h': 'test/docs/deploy-guide.test.ts',
  'npx kfek backfill --log-group /aws/lambda/checkout --since 7d --rate 20000 --dry-run':
    'test/cli/backfill/command.test.ts',
  'npx kfek backfill --log-group /aws/lambda/checkout --since 7d --rate 20000':
    'test/cli/backfill/command.test.ts',
};
const SEND_5000 = 'npx kfek send --log-group /kfek/sandbox/app --count 5000 --rate 200/s';
const SEND_LOCAL = 'npx kfek send --endpoint http://127.0.0.1:<moto port> --log-group <group> --count 1000';
const SEND_DEMO = 'npx kfek send --log-group /kfek/sandbox/app --count 2000 --rate 100/s --run-id demo-1 &';
const VERIFY_DEMO = `npx kfek verify --run-id demo-1 --expect 2000 --opensearch ${EXAMPLE_DOMAIN} --sigv4`;
const QUERY_6H = 'npx kfek query --name errors-by-15m --log-group /kfek/sandbox/app --since 6h';
const PROXY_README = 'npx kfek proxy --endpoint <DashboardsUrl>';
const PROXY_PROFILE = `AWS_PROFILE=sandbox npx kfek proxy --endpoint ${EXAMPLE_DOMAIN}/_dashboards`;
const DOCTOR_README = 'npx kfek doctor --profile sandbox';
const DOCTOR_PROFILE = 'AWS_PROFILE=sandbox npx kfek doctor --profile sandbox';
const REPLAY_PROFILE_DRY = 'npx kfek replay --profile sandbox --since 24h --dry-run';
const REPLAY_PROFILE_DOCS =
  'npx kfek replay --profile sandbox --kind failed-document --reason mapper_parsing_exception --rate 200/s';
const REPLAY_QUEUE = 'npx kfek replay --queue-url <FailureQueueUrl> --raw-stream <raw stream> --delete-after';
const REPLAY_LOCAL_DRY = 'npx kfek replay --local --local-dir <local folder> --dry-run';
const REPLAY_LOCAL =
  'npx kfek replay --local --local-dir <local folder> --raw-stream <raw stream> --events-stream <events stream> --rate 100/s';
const RECONCILE_LOCAL = `npx kfek reconcile --profile sandbox --since 1h --lag 0s --opensearch ${EXAMPLE_DOMAIN} --local-dir <local folder>`;
const RUN_HERE = [
  SEND_5000,
  SEND_LOCAL,
  SEND_DEMO,
  VERIFY_DEMO,
  QUERY_6H,
  PROXY_README,
  PROXY_PROFILE,
  DOCTOR_README,
  DOCTOR_PROFILE,
  REPLAY_PROFILE_DRY,
  REPLAY_PROFILE_DOCS,
  REPLAY_QUEUE,
  REPLAY_LOCAL_DRY,
  REPLAY_LOCAL,
  RECONCILE_LOCAL,
];

let moto: MotoServer | undefined;
let node: RunningOpenSearch | undefined;
let pipeline: LocalPipeline | undefined;
let tmp: string;
let env: Record<string, string>;
/** The pipe's dead-letter queue of the replay example, created in moto by its test. */
let failureQueueUrl = '';

function placeholders(): Record<string, string> {
  return {
    'moto port': String(moto!.port),
    group: LOG_GROUP,
    DashboardsUrl: `${node!.url}/_dashboards`,
    FailureQueueUrl: failureQueueUrl,
    'raw stream': pipeline!.resources.rawStreamArn,
    'events stream': pipeline!.resources.eventsStreamArn,
    'local folder': join(tmp, 'pipeline'),
  };
}

/** The example as the test runs it; fails when the docs no longer hold it. */
function runnable(command: string): string {
  expect(EXAMPLES.map((e) => e.command)).toContain(command);
  return substitutePlaceholders(command, placeholders()).split(EXAMPLE_DOMAIN).join(node!.url);
}

async function bash(
  code: string,
  timeoutMs: number,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return runProcess('bash', ['-c', `set -euo pipefail\n${code}`], { cwd: tmp, env, timeoutMs });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'kfek-doc-cli-'));
  const [startedMoto, startedNode] = await Promise.allSettled([startMoto(), startOpenSearch(TEST_NODE)]);
  if (startedMoto.status === 'fulfilled') moto = startedMoto.value;
  if (startedNode.status === 'fulfilled') node = startedNode.value;
  if (startedMoto.status === 'rejected') throw startedMoto.reason;
  if (startedNode.status === 'rejected') throw startedNode.reason;
  // GIVEN the sandbox profile's pipeline: log group, subscription, streams, transform, delivery into OpenSearch
  await provisionOpenSearch(createHttpClient({ baseUrl: node!.url }), openSearchSpecFromConfig(CONFIG));
  pipeline = await LocalPipeline.start({
    spec: SPEC,
    awsEndpoint: moto!.endpoint,
    search: localSearchHttp(node!.url),
    workDir: join(tmp, 'pipeline'),
    deliveryBufferIntervalInMillis: 500,
    transformLogLevel: 'CRITICAL',
  });
  writeNpxShim(join(tmp, 'bin'), join(tmp, 'cdk-calls'), REPO);
  env = sandboxEnv({
    home: join(tmp, 'home'),
    path: [join(tmp, 'bin')],
    extra: { AWS_ENDPOINT_URL: moto!.endpoint, AWS_REGION: SPEC.region },
  });
  // The reader's AWS profile for the AWS_PROFILE=sandbox example: with AWS_PROFILE set, the SDK's default chain
  // reads the profile's credentials and no longer the AWS_ACCESS_KEY_ID variables.
  writeFileSync(env.AWS_CONFIG_FILE, `[profile sandbox]\nregion = ${SPEC.region}\n`);
  writeFileSync(
    env.AWS_SHARED_CREDENTIALS_FILE,
    '[sandbox]\naws_access_key_id = testing\naws_secret_access_key = testing\n',
  );
}, OPENSEARCH_START_TIMEOUT_MILLIS);

afterAll(async () => {
  const results = await Promise.allSettled([pipeline?.stop()]);
  results.push(...(await Promise.allSettled([moto?.stop(), node?.stop()])));
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}, 60_000);

describe('the kfek examples of README.md and docs/*.md', () => {
  test('every example runs in a test, and every example a test runs is still in the docs', () => {
    const found = [...new Set(EXAMPLES.map((e) => e.command))].sort();
    expect(found).toEqual([...Object.keys(RUN_ELSEWHERE), ...RUN_HERE].sort());
  });

  // The two rate-limited examples take 25 s and 20 s of waiting each: they run side by side (different log streams,
  // and `verify` counts only its own run id), so the suite waits once.
  test(`${SEND_5000} writes 5000 events at 200/s; send in the background and verify: every event of run demo-1 is found in OpenSearch`, async () => {
    // WHEN the 5000-event send runs, and beside it the two lines of the demo as the docs show them, in one shell
    const [sent, run] = await Promise.all([
      bash(runnable(SEND_5000), 90_000),
      bash(`${runnable(SEND_DEMO)}\n${runnable(VERIFY_DEMO)}`, 150_000),
    ]);
    // THEN
    expect(sent.stderr).not.toMatch(/kfek: /);
    expect(sent.exitCode).toBe(0);
    expect(sent.stdout).toMatch(
      /^sent 5000 events to \/kfek\/sandbox\/app \(stream kfek-cli\/run-[a-z0-9-]+\) in (2[4-9]|3\d)\.\d s: \d+\/s, \d+ PutLogEvents calls, 0 retries\nrun id: run-[a-z0-9-]+\n$/,
    );
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^run demo-1: delivered 2000 of 2000, missing 0, duplicates \d+ /m);
    expect(run.stdout).toMatch(/^sent 2000 events to \/kfek\/sandbox\/app /m);
  }, 160_000);

  test(`${SEND_LOCAL} writes to the local stack`, async () => {
    const sent = await bash(runnable(SEND_LOCAL), 60_000);
    expect(sent.exitCode).toBe(0);
    expect(sent.stdout).toMatch(/^sent 1000 events to \/kfek\/sandbox\/app /);
  }, 70_000);

  test(`${QUERY_6H} prints the saved query's table`, async () => {
    const query = await bash(runnable(QUERY_6H), 60_000);
    expect(query.exitCode).toBe(0);
    expect(query.stdout).toMatch(/^kfek\/errors-by-15m on \/kfek\/sandbox\/app\n/);
  }, 70_000);

  test.each([DOCTOR_README, DOCTOR_PROFILE])(
    '%s, run from the project folder, answers for the empty moto account: not bootstrapped, with the fix',
    async (command) => {
      // GIVEN the reader's shell in the project folder, with the real npx (the doctor runs `npx cdk synth` itself)
      // and, for the AWS_PROFILE example, the profile's credentials instead of the access key variables
      const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...profileEnv } = env;
      const shell = command.startsWith('AWS_PROFILE=') ? profileEnv : env;
      const realPath = shell.PATH.split(':')
        .filter((dir) => dir !== join(tmp, 'bin'))
        .join(':');
      // WHEN
      const result = await runProcess('bash', ['-c', `set -euo pipefail\n${runnable(command)}`], {
        cwd: REPO,
        env: { ...shell, PATH: realPath },
        timeoutMs: 240_000,
      });
      // THEN every pre-deploy check ran against moto; the one failure is the missing bootstrap, with its fix
      expect(result.stdout).toMatch(/^ok +region +region /m);
      expect(result.stdout).toMatch(/^ok +credentials +signed in as arn:aws:/m);
      expect(result.stdout).toMatch(/^ok +synth +profile sandbox synthesizes: kfek-sandbox-search/m);
      expect(result.stdout).toMatch(/^FAIL +bootstrap /m);
      expect(result.stdout).toContain(`fix: npx cdk bootstrap aws://123456789012/${SPEC.region}`);
      expect(result.exitCode).toBe(1);
    },
    250_000,
  );

  test.each([PROXY_README, PROXY_PROFILE])(
    '%s relays signed requests from 127.0.0.1:9200',
    async (command) => {
      // WHEN the reader runs it and opens the node's root through it
      // (A reader who uses AWS_PROFILE has no AWS_ACCESS_KEY_ID variables; the SDK would warn about both.)
      const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...profileEnv } = env;
      const proxy = await runProxyExample(runnable(command), {
        cwd: tmp,
        env: command.startsWith('AWS_PROFILE=') ? profileEnv : env,
        probePath: '/',
      });
      // THEN the local node answered through the proxy, and Ctrl-C ended it cleanly
      expect(proxy.status).toBe(200);
      expect(JSON.parse(proxy.body)).toEqual(
        expect.objectContaining({ version: expect.anything() as unknown }),
      );
      expect({ exitCode: proxy.exitCode, stderr: proxy.stderr }).toEqual({ exitCode: 0, stderr: '' });
      expect(proxy.stdout).toContain(`kfek proxy: http://127.0.0.1:9200/_dashboards -> ${node!.url}`);
    },
    70_000,
  );
});

describe('the kfek replay examples of docs/operations.md', () => {
  /** Documents of one log stream in the local node, after a refresh. */
  async function documentsOf(logStream: string): Promise<number> {
    const search = localSearchHttp(node!.url);
    await search.json('POST', '/logs-*/_refresh');
    return countDocuments(search, 'logs-*', [logStream]);
  }

  test.each([REPLAY_PROFILE_DRY, REPLAY_PROFILE_DOCS])(
    '%s says the profile is not deployed in the (empty) moto account, and what to do',
    async (command) => {
      const result = await bash(runnable(command), 60_000);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(
        /^kfek: replay: stack kfek-sandbox-search does not exist in \S+: deploy profile sandbox, check --region/m,
      );
    },
    70_000,
  );

  test(`${REPLAY_LOCAL_DRY}, then ${REPLAY_LOCAL}: a failed document of npm start's folder is searchable again`, async () => {
    // GIVEN one failed document in the local pipeline's folder, as the Firehose stand-in writes it
    const logStream = `doc-replay-${Date.now()}`;
    const document = {
      '@timestamp': new Date().toISOString(),
      message: 'replayed from the failed-documents folder',
      cloudwatch: { logGroup: LOG_GROUP, logStream, id: '1', owner: '123456789012' },
    };
    const folder = join(tmp, 'pipeline', 'failed-documents', 'AmazonOpenSearchService-failed', 'doc-test');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'failed-1'),
      `${JSON.stringify({
        attemptsMade: 1,
        arrivalTimestamp: Date.now(),
        errorCode: '400',
        errorMessage: 'mapper_parsing_exception',
        attemptEndingTimestamp: Date.now(),
        rawData: Buffer.from(JSON.stringify(document)).toString('base64'),
        subsequenceNumber: 0,
        esDocumentId: 'shardId-000000000000-1',
        esIndexName: 'logs-2026-11-23',
        esTypeName: '',
      })}\n`,
    );
    // WHEN listed, then replayed
    const listed = await bash(runnable(REPLAY_LOCAL_DRY), 60_000);
    const replayed = await bash(runnable(REPLAY_LOCAL), 60_000);
    await pipeline!.waitUntilSettled(60_000);
    // THEN
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/^failed-document +1 +1 /m);
    expect(listed.stdout).toContain('nothing was sent or deleted');
    expect(replayed.exitCode).toBe(0);
    expect(replayed.stdout).toContain(
      `re-sent 1 document(s) of 1 item(s) to the events stream ${pipeline!.resources.eventsStreamArn}`,
    );
    expect(await documentsOf(logStream)).toBe(1);
  }, 140_000);

  test(`${REPLAY_QUEUE} reads the batch back from the raw stream and deletes the message`, async () => {
    // GIVEN a record on the raw stream and a dead-letter message that names it by sequence number only
    const logStream = `doc-replay-queue-${Date.now()}`;
    const envelope = makeEnvelope({ logGroup: LOG_GROUP, logStream }, [
      { id: '1', timestamp: Date.now(), message: 'replayed from the queue' },
    ]);
    const put = await pipeline!.clients.kinesis.send(
      new PutRecordCommand({
        StreamARN: pipeline!.resources.rawStreamArn,
        Data: Buffer.from(encodeEnvelope(envelope), 'base64'),
        PartitionKey: 'doc-test',
      }),
    );
    const sqs = localSqsClient(moto!.endpoint, SPEC.region);
    try {
      failureQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'kfek-sandbox-failures' })))
        .QueueUrl!;
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: failureQueueUrl,
          MessageBody: JSON.stringify({
            context: {
              shardId: put.ShardId,
              startSequenceNumber: put.SequenceNumber,
              endSequenceNumber: put.SequenceNumber,
              batchSize: 1,
              streamArn: pipeline!.resources.rawStreamArn,
            },
          }),
        }),
      );
      // WHEN
      const result = await bash(runnable(REPLAY_QUEUE), 60_000);
      await pipeline!.waitUntilSettled(60_000);
      // THEN the event is searchable once (the original and the replayed copy share their id)
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^re-sent 1 raw record\(s\) of 1 item\(s\) to the raw stream /m);
      expect(result.stdout).toMatch(/^deleted 1 re-sent object\(s\)\/message\(s\)/m);
      expect(await documentsOf(logStream)).toBe(1);
    } finally {
      sqs.destroy();
    }
  }, 140_000);
});

describe('the kfek reconcile example of docs/operations.md', () => {
  test(`${RECONCILE_LOCAL}: every event the examples above wrote is accounted for`, async () => {
    // GIVEN everything the examples above wrote, delivered
    await pipeline!.waitUntilSettled(60_000);
    // WHEN
    const result = await bash(runnable(RECONCILE_LOCAL), 120_000);
    // THEN one row for the sandbox's log group, and nothing missing
    expect(result.stderr).not.toMatch(/^kfek: /m);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/CloudWatch counted with FilterLogEvents/);
    expect(result.stdout).toMatch(new RegExp(`^${LOG_GROUP.replaceAll('/', '\\/')}\\s+\\d+`, 'm'));
    expect(result.stdout).toMatch(/^result: nothing missing/m);
  }, 140_000);
});
