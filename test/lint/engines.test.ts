/**
 * package.json's `engines.node` is what kfek promises its users (the CLI, `cdk synth`/`deploy` and `npm start` run
 * on the user's Node.js), so every package installed for production use must run on the oldest Node.js it allows.
 * The lockfile copies each package's own `engines` into its entry and marks devDependencies `"dev": true`; every
 * other entry is installed by `npm ci --omit=dev` (optional and `devOptional` ones too, where their platform fits).
 * The AWS SDK for JavaScript v3 announced that its releases after the first week of January 2027 need Node.js 22+:
 * an SDK update that brings one in fails here by name, until engines.node and the docs say Node.js 22+.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { minVersion, satisfies, validRange } from 'semver';

const ROOT = path.resolve(__dirname, '..', '..');

interface Engines {
  readonly node?: string;
}

interface Manifest {
  readonly engines?: Engines;
}

interface LockedPackage {
  readonly name?: string;
  readonly version?: string;
  readonly dev?: boolean;
  readonly engines?: Engines;
}

interface Lockfile {
  readonly packages: Readonly<Record<string, LockedPackage>>;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as T;
}

/**
 * The production packages of `lock` whose `engines.node` the oldest Node.js `manifest` allows does not satisfy,
 * one line each, or `undefined` when there are none: the text a failing test shows.
 */
function productionEngineConflicts(manifest: Manifest, lock: Lockfile): string | undefined {
  const range = manifest.engines?.node ?? '';
  // semver reads an empty range as "*", which would promise every Node.js there is.
  const oldest = range.trim() === '' || validRange(range) === null ? null : minVersion(range);
  if (oldest === null) {
    return `package.json's engines.node is ${JSON.stringify(range)}; give it a version range such as ">=20"`;
  }
  const refusing = Object.entries(lock.packages).flatMap(([location, entry]) => {
    const needs = entry.engines?.node;
    if (location === '' || entry.dev === true || needs === undefined || satisfies(oldest, needs)) return [];
    const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
    return [`  ${name}@${entry.version ?? '?'} (${location}) needs Node.js ${needs}`];
  });
  if (refusing.length === 0) return undefined;
  return [
    `package.json promises Node.js ${range}, but these packages installed for production use do not run on ` +
      `Node.js ${oldest.version}:`,
    ...refusing,
    'Keep the locked versions that do, or raise engines.node in package.json (then `npm install` updates the ' +
      "lockfile's copy) and the prerequisites in README.md and docs/local.md. The AWS SDK for JavaScript v3 " +
      'releases after the first week of January 2027 need Node.js 22+: updating the SDK after then means ' +
      'engines.node ">=22".',
  ].join('\n');
}

const manifest = readJson<Manifest>('package.json');
const lock = readJson<Lockfile>('package-lock.json');

test("the lockfile's root entry promises the Node.js versions package.json does", () => {
  expect(lock.packages['']?.engines).toEqual(manifest.engines);
});

test('every package installed for production use runs on the oldest Node.js package.json allows', () => {
  expect(productionEngineConflicts(manifest, lock)).toBeUndefined();
});

describe('the check', () => {
  // GIVEN a lockfile as npm writes one, with an SDK release that needs Node.js 22 and a dev tool that does too
  const sdkAfterJanuary2027: Lockfile = {
    packages: {
      '': { engines: { node: '>=20' } },
      'node_modules/@aws-sdk/client-s3': { version: '3.2000.0', engines: { node: '>=22.0.0' } },
      'node_modules/aws-cdk-lib/node_modules/minimatch': {
        version: '10.0.3',
        engines: { node: '20 || >=22' },
      },
      'node_modules/eslint': { version: '10.0.0', dev: true, engines: { node: '>=22' } },
    },
  };

  test('fails when a production package needs a newer Node.js than package.json promises, and says what to do', () => {
    // WHEN
    const problem = productionEngineConflicts({ engines: { node: '>=20' } }, sdkAfterJanuary2027);
    // THEN only the production package that refuses Node.js 20.0.0 is named, with the way out
    expect(problem).toContain(
      '@aws-sdk/client-s3@3.2000.0 (node_modules/@aws-sdk/client-s3) needs Node.js >=22.0.0',
    );
    expect(problem).not.toContain('minimatch');
    expect(problem).not.toContain('eslint');
    expect(problem).toMatch(/raise engines\.node in package\.json/);
    expect(problem).toMatch(/January 2027 need Node\.js 22\+/);
  });

  test('passes once package.json promises Node.js 22+', () => {
    expect(productionEngineConflicts({ engines: { node: '>=22' } }, sdkAfterJanuary2027)).toBeUndefined();
  });

  test('fails when package.json has no usable engines.node', () => {
    expect(productionEngineConflicts({}, sdkAfterJanuary2027)).toMatch(
      /engines\.node is ""; give it a version range/,
    );
  });
});
