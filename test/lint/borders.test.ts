/**
 * The borders between runtimes are lint rules (eslint.config.js), not comments: this test lints one stray import
 * per border, as if it were written into a real file of that folder, and expects the rule to fire; and it checks
 * that the imports each runtime is meant to make stay allowed.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ESLint, type Linter } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..');
const BORDER_RULES = new Set(['import/no-restricted-paths', 'no-restricted-imports']);

/**
 * eslint.config.js with only the border rules, as the config writes them (options and file globs), and without
 * type-aware parsing: the border rules read import paths, not types, and building a TypeScript program for every
 * probe made this file one of the suite's slowest (60 s on a fresh CI machine). `npm run lint` runs the whole config.
 */
function bordersOnly(config: readonly Linter.Config[]): Linter.Config[] {
  return config.map((entry) => {
    const rules =
      entry.rules === undefined
        ? undefined
        : Object.fromEntries(Object.entries(entry.rules).filter(([rule]) => BORDER_RULES.has(rule)));
    const parserOptions = entry.languageOptions?.parserOptions;
    return {
      ...entry,
      ...(rules === undefined ? {} : { rules }),
      ...(parserOptions === undefined
        ? {}
        : {
            languageOptions: {
              ...entry.languageOptions,
              parserOptions: { ...parserOptions, projectService: false },
            },
          }),
    };
  });
}

let eslint: ESLint;
beforeAll(() => {
  // ESLint loads eslint.config.js with a dynamic import(), which jest's module system refuses; hand it the same
  // config object instead.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require(path.join(ROOT, 'eslint.config.js')) as Linter.Config[];
  eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: bordersOnly(config) });
});

test('the border rules are in the config this file lints with', async () => {
  const config = (await eslint.calculateConfigForFile(
    path.join(ROOT, 'lambda/transform/handler.ts'),
  )) as Linter.Config;
  expect(
    Object.keys(config.rules ?? {})
      .filter((rule) => BORDER_RULES.has(rule))
      .sort(),
  ).toEqual(['import/no-restricted-paths', 'no-restricted-imports']);
});

async function borderFindings(filePath: string, specifier: string): Promise<string[]> {
  const code = `import * as probe from '${specifier}';\nexport const used = probe;\n`;
  // The probe stands in a real file of that folder, so the rules see a real path; a missing file or a parse
  // error would make the test pass with no finding at all, so both fail it.
  expect(existsSync(path.join(ROOT, filePath))).toBe(true);
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  expect((result?.messages ?? []).filter((m) => m.fatal === true)).toEqual([]);
  return (result?.messages ?? []).filter((m) => m.ruleId && BORDER_RULES.has(m.ruleId)).map((m) => m.message);
}

describe('runtime borders', () => {
  test.each([
    ['lambda/transform/handler.ts', '../../lib/config', /must not import the CDK app/],
    ['lambda/transform/handler.ts', '../../cli/main', /must not import the CDK app, the CLI/],
    ['lambda/transform/handler.ts', 'aws-cdk-lib', /never load CDK/],
    ['lambda/opensearch-provisioner/handler.ts', 'aws-cdk-lib/aws-iam', /never load CDK/],
    ['core/config/resolve.ts', '../../lib/stacks/pipeline-stack', /must not import the CDK app/],
    ['core/config/resolve.ts', '../../cli/main', /must not import the CDK app, the CLI/],
    ['core/config/resolve.ts', '../../lambda/transform/kinesis-batch', /must not import Lambda handlers/],
    ['core/transform/transform.ts', '../../lambda/transform/ports', /must not import Lambda handlers/],
    ['core/opensearch/provision.ts', 'constructs', /never load CDK/],
    ['lib/stacks/pipeline-stack.ts', '../../lambda/transform/metrics', /CDK app must not import Lambda code/],
    [
      'lib/constructs/pipeline-monitoring.ts',
      '../../cli/main',
      /CDK app must not import Lambda code or the CLI/,
    ],
    ['cli/main.ts', '../lib/config', /CLI must not import the CDK app/],
    ['cli/main.ts', '../lambda/transform/kinesis-batch', /CLI must not import the CDK app or Lambda code/],
    ['cli/main.ts', 'aws-cdk-lib', /never load CDK/],
    ['lambda/transform/kinesis-batch.ts', './kinesis-writer', /must not load an adapter/],
    ['lambda/transform/pipes-batch.ts', '@aws-sdk/client-s3', /must not load an adapter/],
    ['lambda/transform/kinesis-batch.ts', './adapters', /must not load an adapter/],
    ['lambda/transform/pipes-batch.ts', './transform', /gets the transform core injected/],
    ['lambda/transform/kinesis-batch.ts', './transform', /gets the transform core injected/],
    [
      'lambda/transform/kinesis-batch.ts',
      '../../core/transform/transform',
      /gets the transform core injected/,
    ],
    ['lambda/transform/pipes-batch.ts', '../../core/transform/transform', /gets the transform core injected/],
    ['core/transform/transform.ts', '@aws-sdk/client-s3', /pure transform does no I\/O/],
    ['core/transform/document.ts', 'node:fs', /pure transform does no I\/O/],
    ['core/reconcile/planner.ts', '@aws-lambda-powertools/logger', /pure transform does no I\/O/],
    ['lambda/transform/kinesis-batch.ts', 'aws-cdk-lib', /never load CDK/],
    [
      'scripts/local/run.ts',
      '../../cli/main',
      /local runner and its servers must not import the CDK app or the CLI/,
    ],
    ['scripts/local/run.ts', '../../lib/app', /local runner and its servers must not import/],
    ['scripts/opensearch/node-process.ts', '../../bin/kfek', /local runner and its servers must not import/],
    ['lib/constructs/log-subscription.ts', '../stacks/sources-stack', /construct must not depend on a stack/],
    ['lib/constructs/pipes-transport.ts', '../app', /construct must not depend on a stack or the app/],
    ['core/contracts/index-naming.ts', '../config/types', /Contracts must not import the config model/],
    // Issue 40: the transform's pure core and the reconcile planner live in core/, so the CLI imports nothing of
    // lambda/ (the last exception, cli/reconcile/service.ts -> lambda/reconcile/planner.ts, is gone).
    [
      'cli/reconcile/service.ts',
      '../../lambda/reconcile/handler',
      /CLI must not import the CDK app or Lambda code/,
    ],
    [
      'cli/reconcile/service.ts',
      '../../lambda/transform/kinesis-batch',
      /CLI must not import the CDK app or Lambda code/,
    ],
    ['lambda/reconcile/handler.ts', '../../cli/reconcile/service', /must not import the CDK app, the CLI/],
    ['lambda/reconcile/handler.ts', '../../cli/main', /must not import the CDK app, the CLI/],
    ['core/reconcile/engine.ts', '../../cli/reconcile/service', /must not import the CDK app, the CLI/],
  ])('fails when %s imports %s', async (file, specifier, expected) => {
    const findings = await borderFindings(file, specifier);
    expect(findings).toEqual([expect.stringMatching(expected)]);
  });

  test.each([
    ['lib/stacks/pipeline-stack.ts', '../../core/config'],
    ['lib/constructs/opensearch-provisioner.ts', '../../core/opensearch/spec'],
    ['lambda/opensearch-provisioner/handler.ts', '../../core/opensearch/provision'],
    ['cli/main.ts', '../core/opensearch/http'],
    ['scripts/local/main.ts', '../../lambda/transform/handler'],
    ['scripts/local/run.ts', '../../core/progress'],
    ['lib/stacks/sources-stack.ts', '../constructs/log-subscription'],
    ['core/config/types.ts', '../contracts/index-naming'],
    ['lambda/transform/kinesis-batch.ts', './ports'],
    ['lambda/transform/handler.ts', '../../core/transform/transform'],
    ['cli/reconcile/service.ts', '../../core/reconcile/planner'],
    ['core/reconcile/planner.ts', '../transform/transform'],
    ['core/transform/mask-detectors.ts', 'node:net'],
    ['lambda/reconcile/handler.ts', '../../core/reconcile/service'],
  ])('allows %s to import %s', async (file, specifier) => {
    expect(await borderFindings(file, specifier)).toEqual([]);
  });
});
