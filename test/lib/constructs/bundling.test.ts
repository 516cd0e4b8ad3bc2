/**
 * The deployed handler bundles, built for real (this file does not skip bundling): NodejsFunction with the local
 * esbuild and lib/constructs/bundling.ts's options must produce a self-contained ES module with its source map
 * that a fresh node process loads and finds the handler in: the transform's, the OpenSearch provisioner's and the
 * reconcile function's.
 * `npm run test:node24` runs this file on Node 24 too, the nodejs24.x runtime's line. How fast it loads is `npm run bench`'s job.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { OpenSearchProvisioner } from '../../../lib/constructs/opensearch-provisioner';
import { ReconcileFunction } from '../../../lib/constructs/reconcile-function';
import { TransformFunction } from '../../../lib/constructs/transform-function';

/** The environment the Pipeline stack gives the transform, so its module-scope config parsing succeeds. */
const HANDLER_ENV = {
  EVENTS_STREAM_ARN: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events',
  DEAD_LETTER_BUCKET: 'kfek-dead-letters',
};

let outdir: string;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'kfek-bundling-'));
});

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

/** The one bundle (index.mjs) an app's asset manifest names, after `app.synth()`. */
function bundleOf(stackName: string): string {
  const manifest = JSON.parse(readFileSync(join(outdir, `${stackName}.assets.json`), 'utf8')) as {
    files: Record<string, { source: { path: string } }>;
  };
  const dirs = [
    ...new Set(
      Object.values(manifest.files)
        .map((file) => join(outdir, file.source.path))
        .filter((dir) => existsSync(join(dir, 'index.mjs'))),
    ),
  ];
  expect(dirs).toHaveLength(1);
  return join(dirs[0], 'index.mjs');
}

/** What `typeof <exportName>` is in a fresh node process (this test's Node) that imports only the bundle. */
function loadExport(
  bundle: string,
  exportName: string,
  env: Record<string, string>,
): { stdout: string; stderr: string } {
  const probe = spawnSync(
    process.execPath,
    [
      '--enable-source-maps',
      '-e',
      `import(${JSON.stringify(pathToFileURL(bundle).href)}).then((m) => process.stdout.write(typeof m.${exportName}))`,
    ],
    {
      cwd: outdir,
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: 'eu-west-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...env,
      },
    },
  );
  return { stdout: probe.stdout, stderr: probe.stderr };
}

test('the transform is bundled into a self-contained ES module with a source map that loads in node', () => {
  // GIVEN an app that bundles (no aws:cdk:bundling-stacks context)
  const app = new App({ outdir });
  const stack = new Stack(app, 'Bundled');
  new TransformFunction(stack, 'Transform', {
    entry: 'lambda/transform/handler.ts',
    environment: HANDLER_ENV,
    description: 'bundling test',
  });
  // WHEN
  const template = Template.fromStack(stack);
  app.synth();
  // THEN the function runs index.mjs's `handler` (Lambda loads index.mjs as an ES module)
  template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.handler' });
  const bundle = bundleOf('Bundled');
  expect(existsSync(`${bundle}.map`)).toBe(true);
  expect(readFileSync(bundle, 'utf8')).toMatch(/sourceMappingURL=index\.mjs\.map\s*$/);
  // AND a fresh node process, with nothing but the bundle (no node_modules beside it), loads it
  expect(
    loadExport(bundle, 'handler', { AWS_LAMBDA_FUNCTION_NAME: 'kfek-transform', ...HANDLER_ENV }),
  ).toEqual({
    stdout: 'function',
    stderr: '',
  });
});

test('the OpenSearch provisioner is bundled the same way and its onEvent loads in node', () => {
  // GIVEN the provisioner construct as the Pipeline stack builds it, bundling for real
  const app = new App({ outdir });
  const stack = new Stack(app, 'BundledProvisioner', {
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  new OpenSearchProvisioner(stack, 'Provisioner', {
    domain: opensearch.Domain.fromDomainAttributes(stack, 'Domain', {
      domainArn: 'arn:aws:es:eu-west-1:123456789012:domain/kfek-sandbox',
      domainEndpoint: 'search-kfek-sandbox-abc.eu-west-1.es.amazonaws.com',
    }),
    indexPrefix: 'logs',
    indexTemplate: { shards: 1, replicas: 0, totalFieldsLimit: 1000 },
    retention: { deleteAfterDays: 14 },
    writerRole: new iam.Role(stack, 'FirehoseRole', {
      assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com'),
    }),
  });
  // WHEN
  const template = Template.fromStack(stack);
  app.synth();
  // THEN the provisioner function (not the custom resource framework's own) runs the bundle's `onEvent`
  template.hasResourceProperties('AWS::Lambda::Function', {
    Handler: 'index.onEvent',
    Runtime: 'nodejs24.x',
  });
  const bundle = bundleOf('BundledProvisioner');
  expect(existsSync(`${bundle}.map`)).toBe(true);
  expect(loadExport(bundle, 'onEvent', { AWS_LAMBDA_FUNCTION_NAME: 'kfek-provisioner' })).toEqual({
    stdout: 'function',
    stderr: '',
  });
});

test('the reconcile function is bundled the same way (with the transform core and the reconcile service) and its handler loads in node', () => {
  // GIVEN the reconcile construct as the Pipeline stack builds it, bundling for real
  const app = new App({ outdir });
  const stack = new Stack(app, 'BundledReconcile', { env: { account: '123456789012', region: 'eu-west-1' } });
  new ReconcileFunction(stack, 'Reconcile', {
    logGroups: [{ name: '/kfek/production/app', filterPattern: '' }],
    rawStream: kinesis.Stream.fromStreamArn(
      stack,
      'Raw',
      'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-raw',
    ),
    bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'kfek-failed-records'),
    deadLetterPrefix: 'dead-letter/transform/',
    failedDocumentsPrefix: 'failed-documents/',
    domain: opensearch.Domain.fromDomainAttributes(stack, 'Domain', {
      domainArn: 'arn:aws:es:eu-west-1:123456789012:domain/kfek-production',
      domainEndpoint: 'search-kfek-production-abc.eu-west-1.es.amazonaws.com',
    }),
    indexPrefix: 'logs',
    indexRotation: 'OneDay',
  });
  // WHEN
  const template = Template.fromStack(stack);
  app.synth();
  // THEN a fresh node process loads the bundle with the environment the construct wrote
  const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0];
  const variables = fn.Properties.Environment.Variables as Record<string, string>;
  const bundle = bundleOf('BundledReconcile');
  expect(existsSync(`${bundle}.map`)).toBe(true);
  expect(
    loadExport(bundle, 'handler', {
      AWS_LAMBDA_FUNCTION_NAME: 'kfek-reconcile',
      ...Object.fromEntries(Object.entries(variables).filter(([k]) => k !== 'NODE_OPTIONS')),
    }),
  ).toEqual({ stdout: 'function', stderr: '' });
});
