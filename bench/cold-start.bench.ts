/**
 * Cold start of the transform handler: its bundle built as deployed (lib/constructs/bundling.ts: an ES module from
 * the packages' ES module builds) beside the CommonJS bundle kfek deployed before, each loaded by fresh node
 * processes taking turns, with `node -e 0` in the same rotation as the floor of a process start. What Lambda
 * reports as Init Duration is the runtime's start plus this load (module-scope config parsing and SDK clients
 * included).
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LOCAL_ESBUILD_BUNDLING } from '../lib/constructs/bundling';
import { BENCH_OUT_DIR, ROOT, bundle } from './helpers/esbuild';
import { median } from './helpers/stats';
import { TransformServiceName, transformEnvironment } from '../core/contracts/transform-env';

const ITERATIONS = 15;
const DEPLOYED = LOCAL_ESBUILD_BUNDLING.bundling ?? {};
const DEPLOYED_DESCRIPTION =
  `${DEPLOYED.format ?? 'cjs'}, ${DEPLOYED.target ?? 'default target'}, ` +
  ((DEPLOYED.externalModules ?? []).length === 0
    ? 'AWS SDK bundled'
    : `external ${String(DEPLOYED.externalModules)}`);

/** A Lambda-like environment, so module-scope configuration parsing succeeds. */
const HANDLER_ENV = {
  AWS_REGION: 'eu-west-1',
  ...transformEnvironment({
    serviceName: TransformServiceName.kinesis,
    eventsStreamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events',
    deadLetterBucket: 'kfek-dead-letters',
  }),
  AWS_LAMBDA_FUNCTION_NAME: 'kfek-transform',
  // Lambda's Node 24 runtime would not print it; here it would only add noise to the measured process.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

interface Side {
  readonly label: string;
  readonly file?: string;
  readonly loadMs: number[];
  readonly processMs: number[];
}

/** One fresh node process: loads `file` (or nothing) and reports the load time; the wall time is measured here. */
function probe(file: string | undefined): { loadMs: number; processMs: number } | string {
  const script =
    file === undefined
      ? 'process.stdout.write("0")'
      : `const t=process.hrtime.bigint();import(${JSON.stringify(pathToFileURL(file).href)}).then((m)=>{` +
        `if(typeof m.handler!=="function")throw new Error("no handler export");` +
        `process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))})`;
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...HANDLER_ENV },
  });
  const processMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) return `failed: ${child.stderr.trim().split('\n').slice(-2).join(' | ')}`;
  return { loadMs: Number(child.stdout), processMs };
}

/** The cold-start lines of `npm run bench`. */
export function coldStartLines(): string[] {
  const entry = join(ROOT, 'lambda/transform/handler.ts');
  const commonJs = join(BENCH_OUT_DIR, 'handler-cjs/index.js');
  const deployed = join(
    BENCH_OUT_DIR,
    `handler/index.${DEPLOYED.format === OutputFormat.ESM ? 'mjs' : 'js'}`,
  );
  try {
    bundle(entry, commonJs, { minify: true, target: DEPLOYED.target, format: 'cjs' });
    bundle(entry, deployed, {
      minify: DEPLOYED.minify ?? false,
      target: DEPLOYED.target,
      format: DEPLOYED.format ?? 'cjs',
      external: [...(DEPLOYED.externalModules ?? [])],
      ...(DEPLOYED.mainFields !== undefined ? { mainFields: DEPLOYED.mainFields } : {}),
      ...(DEPLOYED.banner !== undefined ? { banner: { js: DEPLOYED.banner } } : {}),
    });
  } catch (err) {
    return [
      `  handler bundle: esbuild failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    ];
  }
  const sides: Side[] = [
    { label: 'node -e 0', loadMs: [], processMs: [] },
    { label: 'CommonJS (before)', file: commonJs, loadMs: [], processMs: [] },
    { label: 'as deployed', file: deployed, loadMs: [], processMs: [] },
  ];
  // Taking turns, the first side rotating, so load from other processes hits every side alike.
  for (let i = 0; i < ITERATIONS; i++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(i + k) % sides.length];
      const result = probe(side.file);
      if (typeof result === 'string') return [`  handler load (${side.label}): ${result}`];
      side.loadMs.push(result.loadMs);
      side.processMs.push(result.processMs);
    }
  }
  const [floor, before, now] = sides;
  const kib = (file: string): string => `${(statSync(file).size / 1024).toFixed(1)} KiB`;
  const load = (side: Side): number => median(side.loadMs);
  const wall = (side: Side): number => median(side.processMs);
  return [
    `  handler bundle: ${kib(deployed)} minified as deployed (${DEPLOYED_DESCRIPTION}); CommonJS before: ${kib(commonJs)}`,
    `  handler load time: ${load(now).toFixed(1)} ms as deployed, ${load(before).toFixed(1)} ms CommonJS ` +
      `(median of ${ITERATIONS} fresh node processes each, taking turns; includes the SDK clients it creates)`,
    `  handler process start + load: ${wall(now).toFixed(0)} ms as deployed, ${wall(before).toFixed(0)} ms CommonJS, ` +
      `${wall(floor).toFixed(0)} ms for node -e 0`,
    `cold start: handler load ${load(now).toFixed(1)} ms vs ${load(before).toFixed(1)} ms CommonJS, ` +
      `ratio: ${(load(now) / load(before)).toFixed(2)} (target <= 0.60)`,
  ];
}
