/**
 * The deployed handler bundles, built for real (this file does not skip bundling): NodejsFunction with the local
 * esbuild and lib/constructs/bundling.ts's options must produce a self-contained ES module with its source map
 * that a fresh node process loads and finds the handler in. How fast it loads is `npm run bench`'s job.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
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
  const manifest = JSON.parse(readFileSync(join(outdir, 'Bundled.assets.json'), 'utf8')) as {
    files: Record<string, { source: { path: string } }>;
  };
  const dirs = Object.values(manifest.files)
    .map((file) => join(outdir, file.source.path))
    .filter((dir) => existsSync(join(dir, 'index.mjs')));
  expect(dirs).toHaveLength(1);
  const bundle = join(dirs[0], 'index.mjs');
  expect(existsSync(`${bundle}.map`)).toBe(true);
  expect(readFileSync(bundle, 'utf8')).toMatch(/sourceMappingURL=index\.mjs\.map\s*$/);
  // AND a fresh node process, with nothing but the bundle (no node_modules beside it), loads it
  const probe = spawnSync(
    process.execPath,
    [
      '--enable-source-maps',
      '-e',
      `import(${JSON.stringify(pathToFileURL(bundle).href)}).then((m) => process.stdout.write(typeof m.handler))`,
    ],
    {
      cwd: outdir,
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: 'eu-west-1',
        AWS_LAMBDA_FUNCTION_NAME: 'kfek-transform',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...HANDLER_ENV,
      },
    },
  );
  expect(probe.stderr).toBe('');
  expect(probe.stdout).toBe('function');
});
