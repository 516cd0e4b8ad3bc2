/**
 * What the doctor reads from a synthesized profile (real cloud assemblies of cdk.json's profiles, synthesized
 * in-process with bundling skipped), the bounded `cdk synth` child process, and the command line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCliArgs } from '../../../cli/args';
import { appStackPrefix } from '../../../cli/doctor/facts';
import { AssemblyError, readPlan } from '../../../cli/doctor/plan';
import { synthesize, SynthError } from '../../../cli/doctor/synth';
import { buildTestApp } from '../../helpers/app';

const planOfProfile = (profile: string) => readPlan(buildTestApp({ profile }).app.synth().directory, profile);

describe('doctor: reading a synthesized profile', () => {
  test('sandbox: stack names, bootstrap version, domain, the one consumer and the subscription', () => {
    // GIVEN / WHEN
    const plan = planOfProfile('sandbox');
    // THEN
    expect(plan.stackNames).toEqual({
      Search: 'kfek-sandbox-search',
      Pipeline: 'kfek-sandbox-pipeline',
      Sources: 'kfek-sandbox-sources',
      Monitoring: 'kfek-sandbox-monitoring',
    });
    expect(appStackPrefix(plan)).toBe('kfek-');
    expect(plan.requiredBootstrapVersion).toBeGreaterThanOrEqual(6);
    expect(plan.bootstrapParameter).toBe('/cdk-bootstrap/hnb659fds/version');
    expect(plan.domain).toMatchObject({
      name: 'kfek-sandbox',
      instanceType: 't3.small.search',
      instanceCount: 1,
      masterCount: 0,
    });
    expect(plan.consumers).toEqual([expect.objectContaining({ parallelizationFactor: 1, shardCount: 1 })]);
    expect(plan.subscriptions).toEqual([
      {
        logGroupName: '/kfek/sandbox/app',
        destinationExport: expect.stringMatching(/^kfek-sandbox-search:.*RawStream.*Arn/),
      },
    ]);
    expect(plan.namedResources).toEqual(
      expect.arrayContaining([
        { kind: 'opensearch-domain', name: 'kfek-sandbox', stackName: 'kfek-sandbox-search' },
        { kind: 'log-group', name: '/kfek/sandbox/app', stackName: 'kfek-sandbox-sources' },
      ]),
    );
  });

  test('production: dedicated masters, an on-demand raw stream read with parallelization factor 2', () => {
    // GIVEN / WHEN
    const plan = planOfProfile('production');
    // THEN
    expect(plan.domain).toMatchObject({
      instanceType: 'r7g.large.search',
      instanceCount: 2,
      masterInstanceType: 'm7g.large.search',
      masterCount: 3,
      volumeSizeGb: 100,
      volumeType: 'gp3',
    });
    expect(plan.consumers).toEqual([
      expect.objectContaining({ parallelizationFactor: 2, shardCount: undefined }),
    ]);
  });

  test('sandbox-pipes: the pipe is the consumer of the raw stream', () => {
    // GIVEN / WHEN
    const plan = planOfProfile('sandbox-pipes');
    // THEN
    expect(plan.consumers).toHaveLength(1);
    expect(plan.consumers[0].shardCount).toBe(1);
  });

  test('multi: every stack with its template and environment, each after the stacks it depends on', () => {
    // GIVEN / WHEN
    const plan = planOfProfile('multi');
    // THEN
    const at = (id: string): number => plan.stacks.findIndex((s) => s.id === id);
    for (const s of plan.stacks) {
      for (const dep of s.dependsOn)
        expect(plan.stacks.findIndex((d) => d.stackName === dep)).toBeLessThan(at(s.id));
      expect(s.template.Resources).toBeDefined();
    }
    expect(at('Search')).toBeLessThan(at('Pipeline'));
    expect(plan.stacks.find((s) => s.id === 'Search')).toMatchObject({
      account: '111122223333',
      region: 'eu-west-1',
    });
    // A source stack is one template for every source account: no account of its own.
    expect(plan.stacks.find((s) => s.id === 'SourceUsEast1')).toMatchObject({
      account: undefined,
      region: 'us-east-1',
    });
  });

  test('fails when the directory is not a cloud assembly', () => {
    // GIVEN
    const dir = mkdtempSync(join(tmpdir(), 'kfek-doctor-test-'));
    try {
      // WHEN / THEN
      expect(() => readPlan(dir, 'sandbox')).toThrow(AssemblyError);
      writeFileSync(join(dir, 'manifest.json'), '{"artifacts":{}}');
      expect(() => readPlan(dir, 'sandbox')).toThrow(/holds no CloudFormation stacks/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('doctor: the cdk synth child process', () => {
  const options = { profile: 'sandbox', outdir: tmpdir(), cwd: process.cwd(), env: process.env };

  test('fails when synth exits non-zero, quoting the end of its output', async () => {
    // GIVEN a "cdk" that fails the way a bad profile does
    const command = ['node', '-e', 'console.error("Unknown profile nope"); process.exit(3)', '--'];
    // WHEN / THEN
    await expect(synthesize({ ...options, command })).rejects.toThrow(/exited with 3: Unknown profile nope/);
  });

  test('fails when synth runs past its time limit, and ends the process', async () => {
    // GIVEN a "cdk" that never finishes
    const command = ['node', '-e', 'setInterval(() => undefined, 1000)', '--'];
    // WHEN / THEN
    await expect(synthesize({ ...options, command, timeoutInMillis: 300 })).rejects.toThrow(SynthError);
    await expect(synthesize({ ...options, command, timeoutInMillis: 300 })).rejects.toThrow(
      /--synth-timeout/,
    );
  });

  test('passes the profile and the output directory to cdk', async () => {
    // GIVEN a "cdk" that checks its arguments
    const script =
      'const a = process.argv.slice(1).join(" "); process.exit(a === "synth --quiet -c profile=sandbox -o /out" ? 0 : 9)';
    // WHEN / THEN
    await expect(
      synthesize({ ...options, outdir: '/out', command: ['node', '-e', script, '--'] }),
    ).resolves.toBeUndefined();
  });
});

describe('doctor: command line', () => {
  test('defaults to the sandbox profile with synth', () => {
    expect(parseCliArgs(['doctor'])).toEqual({
      command: 'doctor',
      profile: 'sandbox',
      json: false,
      skipSynth: false,
      synthTimeoutInMillis: 300_000,
    });
  });

  test('takes --profile, --region, --cdk-out, --synth-timeout and --json', () => {
    expect(
      parseCliArgs([
        'doctor',
        '--profile',
        'production',
        '--region',
        'eu-west-1',
        '--cdk-out',
        'cdk.out',
        '--synth-timeout',
        '2m',
        '--json',
      ]),
    ).toEqual({
      command: 'doctor',
      profile: 'production',
      region: 'eu-west-1',
      json: true,
      skipSynth: false,
      cdkOut: 'cdk.out',
      synthTimeoutInMillis: 120_000,
    });
  });

  test('fails when --skip-synth and --cdk-out are both given', () => {
    expect(() => parseCliArgs(['doctor', '--skip-synth', '--cdk-out', 'x'])).toThrow(/exclude each other/);
  });

  test('fails when the profile name could not be one of cdk.json', () => {
    expect(() => parseCliArgs(['doctor', '--profile', '../etc'])).toThrow(/not a profile name/);
  });
});
