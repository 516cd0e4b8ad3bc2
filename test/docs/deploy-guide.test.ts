/**
 * The deploy guide (docs/deploy.md) is executable. Its bash blocks are read from the page itself (marked
 * `<!-- kfek:doc-test id=... -->`, see test/helpers/doc-snippets.ts), so the text and the test cannot drift, and
 * they run in ONE `bash` session with `set -euo pipefail`, as a reader pasting them into one terminal, with:
 *
 * - the real AWS CLI (`.venv/bin/aws`, PyPI awscli 1.x) against a moto server this file starts on 127.0.0.1;
 * - dummy credentials and the region from `AWS_REGION` only: HOME, `AWS_CONFIG_FILE` and
 *   `AWS_SHARED_CREDENTIALS_FILE` point into an empty temp dir (removed afterwards);
 * - `npx cdk ...` replaced by a shim that records its argv: cdk bootstrap/deploy cannot run against moto, so
 *   what is asserted is the exact command line the reader's shell hands to the CDK CLI (synth runs for real
 *   in scripts/check-templates.sh and test/lib);
 * - `npx kfek ...` running the project's CLI for real.
 *
 * What the stacks would create and later steps rely on (the sandbox log group subscribed to the raw stream, the
 * IAM user moto reports as the caller) is created in moto before the session: that is the GIVEN.
 */
import { mkdtempSync, readFileSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ListShardsCommand } from '@aws-sdk/client-kinesis';
import { localAwsClients } from '../../scripts/local/aws-clients';
import { loadConfig } from '../../scripts/local/config-spec';
import { ShardReader } from '../../scripts/local/shard-reader';
import { startMoto, type MotoServer } from '../../scripts/moto-server';
import {
  type DocSnippet,
  type SessionResult,
  fencedBlocks,
  recordedCdkCalls,
  runBashSession,
  runProcess,
  runProxyExample,
  sandboxEnv,
  snippetById,
  substitutePlaceholders,
  writeNpxShim,
} from '../helpers/doc-snippets';

const REPO = resolve(__dirname, '..', '..');
const AWS_CLI = join(REPO, '.venv', 'bin', 'aws');
const GUIDE = 'docs/deploy.md';
const GUIDE_TEXT = readFileSync(join(REPO, GUIDE), 'utf8');
const SNIPPETS = fencedBlocks(GUIDE_TEXT, 1, GUIDE);
/** moto's account id for any credentials. */
const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const SANDBOX = loadConfig('sandbox');
const LOG_GROUP = SANDBOX.sources.logGroups[0].name;
const DOMAIN = `${SANDBOX.name}-${SANDBOX.profile}`;
/** The identity policy the guide attaches (placeholders `<region>`, `<account>`, `<profile>`). */
const USER_POLICY = join(REPO, 'docs', 'deploy', 'opensearch-user-policy.json');
/** Blocks that run in their own process (long-running, or with other credentials), not in the session. */
const RUN_APART = new Set(['proxy']);
/** Every block id this file asserts on: a new marked block needs assertions here. */
const TESTED_IDS = [
  'caller-arn',
  'region',
  'synth',
  'bootstrap',
  'user-policy',
  'deploy',
  'test-log-line',
  'query',
  'proxy',
];
const SESSION_TIMEOUT_MS = 180_000;
/**
 * Placeholder values per block (the rule: test/helpers/doc-snippets.ts `substitutePlaceholders`). The policy
 * block's sed patterns name the policy file's placeholders, so they stay literally as written.
 */
const PLACEHOLDERS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'user-policy': { region: '<region>', account: '<account>', profile: '<profile>' },
};

let moto: MotoServer;
let tmp: string;
let env: Record<string, string>;
let workspace: string;
let cdkRecords: string;
let session: SessionResult;

/** Runs the real AWS CLI in the sandbox (for GIVENs and for reading state back). */
async function aws(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const result = await runProcess(AWS_CLI, args, {
    cwd: workspace,
    env: { ...env, AWS_DEFAULT_REGION: REGION, ...extraEnv },
    timeoutMs: 30_000,
  });
  if (result.exitCode !== 0) throw new Error(`aws ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** A sandbox with the region from AWS_REGION only, as the guide's reader who exported it. */
function newSandbox(
  name: string,
  extra: Record<string, string>,
): {
  env: Record<string, string>;
  records: string;
} {
  const dir = join(tmp, name);
  const records = join(dir, 'cdk-calls');
  writeNpxShim(join(dir, 'bin'), records, REPO);
  return {
    env: sandboxEnv({
      home: join(dir, 'home'),
      path: [join(dir, 'bin'), join(REPO, '.venv', 'bin')],
      extra: { AWS_ENDPOINT_URL: moto.endpoint, ...extra },
    }),
    records,
  };
}

function block(id: string): DocSnippet {
  return snippetById(SNIPPETS, id);
}

/** The block's code as the test runs it: placeholders substituted by the documented rule. */
function runnable(id: string, values: Readonly<Record<string, string>> = {}): string {
  return substitutePlaceholders(block(id).code, { ...PLACEHOLDERS[id], ...values });
}

/** The block's outcome in the session, with its output in the failure message when it did not complete. */
function sessionBlock(id: string): { stdout: string; stderr: string } {
  const result = session.blocks.get(id);
  if (result === undefined) throw new Error(`block ${id} was not run in the session`);
  if (!result.completed) {
    throw new Error(
      `block ${id} (${GUIDE}:${block(id).line}) did not complete:\n${result.stderr}\n${session.stderr}`,
    );
  }
  return result;
}

/** The inline policy the guide's block put on the IAM user or role, as moto holds it. */
async function inlinePolicy(kind: 'user' | 'role', name: string): Promise<unknown> {
  const args = ['iam', `get-${kind}-policy`, `--${kind}-name`, name, '--policy-name'];
  return JSON.parse(await aws([...args, `${DOMAIN}-opensearch-user`, '--query', 'PolicyDocument']));
}

/** The HTTP calls a person makes to the domain (Dashboards, `kfek verify`), and a path under it. */
const HTTP_ACTIONS = ['es:ESHttpGet', 'es:ESHttpHead', 'es:ESHttpPost', 'es:ESHttpPut', 'es:ESHttpDelete'];
const DOMAIN_PATH_ARN = `arn:aws:es:${REGION}:${ACCOUNT}:domain/${DOMAIN}/logs-*/_search`;

/** IAM's wildcard match (`*`, `?`), so the policy may list actions one by one or as `es:ESHttp*`. */
function iamMatch(pattern: string, value: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`).test(value);
}

/** Which of {@link HTTP_ACTIONS} an Allow statement of `policy` grants on a path of the sandbox domain. */
function allowedOnDomain(policy: unknown): string[] {
  const statements = (policy as { Statement: { Effect: string; Action: unknown; Resource: unknown }[] })
    .Statement;
  const list = (value: unknown): string[] => [value].flat().filter((v): v is string => typeof v === 'string');
  return HTTP_ACTIONS.filter((action) =>
    statements.some(
      (st) =>
        st.Effect === 'Allow' &&
        list(st.Action).some((a) => iamMatch(a, action)) &&
        list(st.Resource).some((r) => iamMatch(r, DOMAIN_PATH_ARN)),
    ),
  );
}

beforeAll(async () => {
  moto = await startMoto();
  tmp = mkdtempSync(join(tmpdir(), 'kfek-doc-deploy-'));
  workspace = join(tmp, 'project');
  mkdirSync(join(workspace, 'docs', 'deploy'), { recursive: true });
  copyFileSync(USER_POLICY, join(workspace, 'docs', 'deploy', 'opensearch-user-policy.json'));
  ({ env, records: cdkRecords } = newSandbox('main', { AWS_REGION: REGION }));

  // GIVEN what the deployed stacks hold and later steps use, and the IAM user moto reports as the caller
  const raw = `${DOMAIN}-raw`;
  await aws(['iam', 'create-user', '--user-name', 'moto']);
  await aws(['kinesis', 'create-stream', '--stream-name', raw, '--shard-count', '1']);
  await aws(['logs', 'create-log-group', '--log-group-name', LOG_GROUP]);
  await aws([
    'logs',
    'put-subscription-filter',
    '--log-group-name',
    LOG_GROUP,
    '--filter-name',
    'kfek',
    '--filter-pattern',
    '',
    '--destination-arn',
    `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${raw}`,
    '--role-arn',
    `arn:aws:iam::${ACCOUNT}:role/kfek-logs-delivery`,
  ]);

  // WHEN the reader runs the guide's blocks in order
  const blocks = SNIPPETS.flatMap((s) =>
    s.marker?.kind === 'test' && !RUN_APART.has(s.marker.id)
      ? [{ id: s.marker.id, code: runnable(s.marker.id) }]
      : [],
  );
  session = await runBashSession(blocks, {
    cwd: workspace,
    env,
    workDir: join(tmp, 'session'),
    timeoutMs: SESSION_TIMEOUT_MS,
  });
}, SESSION_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await moto?.stop();
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

describe('the deploy guide (docs/deploy.md)', () => {
  test('every bash block is run by a test or marked not runnable here with a reason', () => {
    // GIVEN the guide's blocks
    const bash = SNIPPETS.filter((s) => s.lang === 'bash' || s.lang === 'sh' || s.lang === 'shell');
    // THEN none is unmarked, and every tested id has assertions in this file
    expect(bash.filter((s) => s.marker === undefined).map((s) => `${GUIDE}:${s.line}`)).toEqual([]);
    const ids = bash.flatMap((s) => (s.marker?.kind === 'test' ? [s.marker.id] : []));
    expect([...ids].sort()).toEqual([...TESTED_IDS].sort());
  });

  test('runs from the first block to the last under set -euo pipefail', () => {
    for (const [id] of session.blocks) sessionBlock(id);
    expect(session.exitCode).toBe(0);
  });

  test('prints the caller ARN to map', () => {
    expect(sessionBlock('caller-arn').stdout.trim()).toMatch(
      new RegExp(`^arn:aws:(sts|iam)::${ACCOUNT}:user/moto$`),
    );
  });

  test('checks the synth of the sandbox profile', () => {
    sessionBlock('synth');
    expect(recordedCdkCalls(cdkRecords)[0]).toEqual(['synth', '--quiet', '-c', 'profile=sandbox']);
  });

  test('bootstraps aws://<account>/<region> with the region from AWS_REGION', () => {
    sessionBlock('bootstrap');
    expect(recordedCdkCalls(cdkRecords).filter((argv) => argv[0] === 'bootstrap')).toEqual([
      ['bootstrap', `aws://${ACCOUNT}/${REGION}`],
    ]);
  });

  test('deploys all four stacks of the sandbox profile after the preflight', () => {
    // GIVEN the preflight block, not run here
    const doctor = SNIPPETS.find((s) => s.code.trim() === 'npx kfek doctor --profile sandbox');
    expect(doctor?.marker).toEqual({ kind: 'skip', reason: 'covered by test/cli/doctor tests' });
    expect(doctor!.line).toBeLessThan(block('deploy').line);
    // THEN
    sessionBlock('deploy');
    expect(recordedCdkCalls(cdkRecords).filter((argv) => argv[0] === 'deploy')).toEqual([
      ['deploy', '--all', '-c', 'profile=sandbox', '--require-approval', 'never'],
    ]);
    expect(GUIDE_TEXT).toMatch(/\*\*Deploy\*\* all four stacks/);
    expect(GUIDE_TEXT).not.toMatch(/three stacks/);
  });

  test('attaches the identity policy that allows es:ESHttp* on the domain, placeholders filled in', async () => {
    // GIVEN the session ran the policy block as the IAM user moto
    sessionBlock('user-policy');
    // WHEN
    const policy = await inlinePolicy('user', 'moto');
    // THEN
    expect(JSON.stringify(policy)).not.toMatch(/<[a-z]+>/);
    expect(allowedOnDomain(policy)).toEqual(HTTP_ACTIONS);
  });

  test('attaches the same policy to the role of an assumed-role session', async () => {
    // GIVEN a role session (SSO, assume-role) instead of an IAM user
    await aws([
      'iam',
      'create-role',
      '--role-name',
      'Admin',
      '--assume-role-policy-document',
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: 'sts:AssumeRole' },
        ],
      }),
    ]);
    const credentials = JSON.parse(
      await aws([
        'sts',
        'assume-role',
        '--role-arn',
        `arn:aws:iam::${ACCOUNT}:role/Admin`,
        '--role-session-name',
        'alice@example.com',
        '--query',
        'Credentials',
      ]),
    ) as { AccessKeyId: string; SecretAccessKey: string; SessionToken: string };
    const roleSession = {
      ...env,
      AWS_ACCESS_KEY_ID: credentials.AccessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.SecretAccessKey,
      AWS_SESSION_TOKEN: credentials.SessionToken,
    };
    // WHEN the reader runs the region and policy blocks
    const run = await runBashSession(
      ['region', 'user-policy'].map((id) => ({ id, code: runnable(id) })),
      { cwd: workspace, env: roleSession, workDir: join(tmp, 'role-session'), timeoutMs: 60_000 },
    );
    // THEN
    expect(run.blocks.get('user-policy')).toEqual(expect.objectContaining({ completed: true }));
    const policy = await inlinePolicy('role', 'Admin');
    expect(JSON.stringify(policy)).not.toMatch(/<[a-z]+>/);
    expect(allowedOnDomain(policy)).toEqual(HTTP_ACTIONS);
  });

  test('sends the test log line as ONE event whose message is the JSON object, and it reaches the raw stream', async () => {
    sessionBlock('test-log-line');
    // THEN CloudWatch Logs holds one event, the JSON object as its message
    const events = JSON.parse(
      await aws([
        'logs',
        'get-log-events',
        '--log-group-name',
        LOG_GROUP,
        '--log-stream-name',
        'hello',
        '--query',
        'events[].message',
      ]),
    ) as string[];
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0])).toEqual({ level: 'INFO', message: 'hello kfek' });

    // AND the subscription delivered exactly that event to the raw stream
    const clients = localAwsClients(moto.endpoint, REGION);
    try {
      const streamArn = `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${DOMAIN}-raw`;
      const shards = await clients.kinesis.send(new ListShardsCommand({ StreamARN: streamArn }));
      const reader = new ShardReader(clients.kinesis, streamArn, shards.Shards![0].ShardId!);
      await reader.seek({ type: 'TRIM_HORIZON' });
      const batch = await reader.read(100);
      const envelopes = batch.records.map(
        (record) =>
          JSON.parse(gunzipSync(record.Data!).toString('utf8')) as {
            messageType: string;
            logGroup: string;
            logEvents: { message: string }[];
          },
      );
      const data = envelopes.filter((e) => e.messageType === 'DATA_MESSAGE');
      expect(data).toHaveLength(1);
      expect(data[0].logGroup).toBe(LOG_GROUP);
      expect(data[0].logEvents.map((e) => JSON.parse(e.message) as unknown)).toEqual([
        { level: 'INFO', message: 'hello kfek' },
      ]);
    } finally {
      clients.destroy();
    }
  });

  test('runs the saved errors-by-15m query on the sandbox log group without --log-group', () => {
    expect(block('query').code).not.toContain('--log-group');
    expect(sessionBlock('query').stdout).toContain(`kfek/errors-by-15m on ${LOG_GROUP}`);
  });

  describe('the region', () => {
    test('comes from the AWS profile when AWS_REGION is not set', async () => {
      // GIVEN a reader whose region is set in the profile they use, and no AWS_REGION
      const sandbox = newSandbox('profile-region', { AWS_PROFILE: 'sandbox' });
      writeFileSync(sandbox.env.AWS_CONFIG_FILE, '[profile sandbox]\nregion = eu-central-1\n');
      // WHEN
      const run = await runBashSession(
        ['region', 'bootstrap'].map((id) => ({ id, code: runnable(id) })),
        {
          cwd: workspace,
          env: sandbox.env,
          workDir: join(tmp, 'profile-region', 'session'),
          timeoutMs: 60_000,
        },
      );
      // THEN
      expect(run.exitCode).toBe(0);
      expect(recordedCdkCalls(sandbox.records)).toEqual([['bootstrap', `aws://${ACCOUNT}/eu-central-1`]]);
    });

    test('fails when no region is set anywhere, saying how to set one', async () => {
      // GIVEN no AWS_REGION, AWS_DEFAULT_REGION or profile region
      const sandbox = newSandbox('no-region', {});
      // WHEN
      const run = await runBashSession(
        ['region', 'bootstrap'].map((id) => ({ id, code: runnable(id) })),
        { cwd: workspace, env: sandbox.env, workDir: join(tmp, 'no-region', 'session'), timeoutMs: 60_000 },
      );
      // THEN the region block stops the session before anything is bootstrapped
      expect(run.exitCode).not.toBe(0);
      expect(run.blocks.get('region')?.stderr).toMatch(/export AWS_REGION=/);
      expect(recordedCdkCalls(sandbox.records)).toEqual([]);
    });
  });

  describe('the signing proxy', () => {
    let upstream: Server;
    const seen: IncomingHttpHeaders[] = [];

    beforeAll(async () => {
      // A stand-in for the domain: records what the proxy sends (the proxy against the real node is tested in
      // test/cli/proxy/proxy-node.integ.test.ts).
      upstream = createServer((request, response) => {
        seen.push(request.headers);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"status":"green"}');
      });
      await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
    });

    afterAll(async () => {
      await new Promise((done) => upstream.close(done));
    });

    test('opens Dashboards on 127.0.0.1:9200, signing every request', async () => {
      // GIVEN the Search stack output DashboardsUrl (here the stand-in's URL)
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/_dashboards`;
      const code = runnable('proxy', { 'Search.DashboardsUrl': url });
      // WHEN the reader runs the block, and opens a page through it
      const proxy = await runProxyExample(code, {
        cwd: workspace,
        env,
        probePath: '/_dashboards/api/status',
      });
      // THEN
      expect(proxy.status).toBe(200);
      expect(seen.at(-1)?.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=testing\/\d{8}\/eu-west-1\/es\//,
      );
      expect(proxy.exitCode).toBe(0);
      expect(proxy.stdout).toContain(`kfek proxy: http://127.0.0.1:9200/_dashboards -> http://127.0.0.1:`);
    }, 45_000);
  });
});
