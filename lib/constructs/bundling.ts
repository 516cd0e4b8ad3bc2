import * as path from 'node:path';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/** The repository root, where package-lock.json and lambda/ live. */
export const PROJECT_ROOT = path.join(__dirname, '..', '..');

/**
 * Defines `require` inside the ES module bundle. esbuild turns the `require` calls of CommonJS dependencies into
 * a helper that throws "Dynamic require of ... is not supported" when no `require` exists, which is the case in an
 * ES module; with this line such a dependency keeps working (today's bundle needs none: the guard is for the next
 * dependency that does).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as kfekCreateRequire } from 'node:module'; const require = kfekCreateRequire(import.meta.url);";

/**
 * How every kfek `NodejsFunction` is built: by the locally installed esbuild, never Docker (`forceDockerBundling:
 * false`; CDK falls back to Docker only when no local esbuild is found, and then fails loudly instead); minified,
 * with a source map but without embedded sources, for the Node.js 24 runtime. No external modules: the runtime
 * ships AWS SDK v3, but bundling pins the exact client versions the tests ran with.
 *
 * The bundle is an ES module (`index.mjs`) built from the packages' ES module builds (`mainFields` prefers
 * `module`): the AWS SDK and Powertools ship both, and their ES builds tree-shake and load faster. Measured by
 * `npm run bench` (docs/transform-runtime.md, "Cold start"): the CommonJS bundle was 710 KiB, the ES module one
 * 511 KiB and loads in about a third of the time.
 */
export const LOCAL_ESBUILD_BUNDLING: Pick<
  nodejs.NodejsFunctionProps,
  'depsLockFilePath' | 'projectRoot' | 'bundling'
> = {
  depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
  projectRoot: PROJECT_ROOT,
  bundling: {
    format: OutputFormat.ESM,
    mainFields: ['module', 'main'],
    banner: ESM_REQUIRE_BANNER,
    minify: true,
    sourceMap: true,
    sourcesContent: false,
    target: 'node24',
    forceDockerBundling: false,
    externalModules: [],
  },
};
