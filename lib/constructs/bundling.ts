import * as path from 'node:path';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';

/** The repository root, where package-lock.json and lambda/ live. */
export const PROJECT_ROOT = path.join(__dirname, '..', '..');

/**
 * How every kfek `NodejsFunction` is built: by the locally installed esbuild, never Docker (`forceDockerBundling:
 * false`; CDK falls back to Docker only when no local esbuild is found, and then fails loudly instead); minified,
 * with a source map but without embedded sources, for the Node.js 24 runtime. No external modules: the runtime
 * ships AWS SDK v3, but bundling pins the exact client versions the tests ran with.
 */
export const LOCAL_ESBUILD_BUNDLING: Pick<
  nodejs.NodejsFunctionProps,
  'depsLockFilePath' | 'projectRoot' | 'bundling'
> = {
  depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
  projectRoot: PROJECT_ROOT,
  bundling: {
    minify: true,
    sourceMap: true,
    sourcesContent: false,
    target: 'node24',
    forceDockerBundling: false,
    externalModules: [],
  },
};
