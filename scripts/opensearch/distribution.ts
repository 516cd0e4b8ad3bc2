/**
 * The OpenSearch distribution on disk: the integ-test zip from Maven Central, fetched with Node itself (maven.ts:
 * no `mvn` binary, SHA-1 checked, ~/.m2 first, cached), and unpacked once with Python's zipfile module (no `unzip`
 * binary: Python is a prerequisite of `npm start` anyway), optionally with what a flavor adds to it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LocalOpenSearchError } from './errors';
import { artifactPath, ensureMavenArtifact, type MavenArtifact, type MavenFetchOptions } from './maven';

/** Where the distribution comes from and goes to; every optional field has a default for this machine. */
export interface DistributionOptions extends MavenFetchOptions {
  readonly version: string;
  /** Holds `downloads/` and the unpacked `opensearch-<version>/`. */
  readonly cacheDir: string;
  /**
   * A distribution with more in it than the zip (secured-distribution.ts adds modules and the security plugin).
   * @default - the zip as it is
   */
  readonly flavor?: DistributionFlavor;
  /**
   * The cached folder's name under `cacheDir`, for a distribution that is not the zip's version (an assembled node,
   * assembled-distribution.ts, takes only bin/, config/ and launcher jars from a zip of its line).
   * @default - `opensearch-<version>`, with a flavor `opensearch-<version>-<flavor name>`
   */
  readonly folderName?: string;
}

/** The zip plus what a flavor adds, unpacked into a cache folder of its own (`opensearch-<version>-<name>`). */
export interface DistributionFlavor {
  /** The folder's suffix; a flavor that changes what it adds changes its name, so no stale copy is reused. */
  readonly name: string;
  /** Adds to the freshly unpacked distribution, before it takes its cached name. */
  install(distribution: string): Promise<void>;
}

function distributionArtifact(version: string): MavenArtifact {
  return {
    groupId: 'org.opensearch.distribution.integ-test-zip',
    artifactId: 'opensearch',
    version,
    extension: 'zip',
  };
}

/** The zip's path inside any Maven repository layout. */
export function distributionPath(version: string): string {
  return artifactPath(distributionArtifact(version));
}

/** Returns the path of the distribution zip (see {@link ensureMavenArtifact}: ~/.m2, the cache, a download). */
export async function ensureDownloaded(options: DistributionOptions): Promise<string> {
  return ensureMavenArtifact(distributionArtifact(options.version), options, {
    title: `OpenSearch ${options.version}`,
    aboutSize: '160 MB',
  });
}

/**
 * Extracts a zip with Python's zipfile module and restores the Unix permissions it ignores (bin/opensearch must
 * stay executable). The script is passed inline, so nothing but `python3` is needed.
 */
const UNZIP_PY = `
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(path, mode)
`;

/** Unzips `zip` into `target` with python3 (see {@link UNZIP_PY}). */
export function unzip(zip: string, target: string, python = 'python3'): void {
  const result = spawnSync(python, ['-c', UNZIP_PY, zip, target], { encoding: 'utf8' });
  if (result.error !== undefined || result.status !== 0) {
    throw new LocalOpenSearchError(
      `Unpacking ${zip} with ${python} failed: ${result.error?.message ?? result.stderr}. npm start needs ` +
        'python3 on PATH; if the zip is damaged, delete it and run again.',
    );
  }
}

/**
 * Unpacks the distribution once into `<cacheDir>/opensearch-<version>` (with a flavor: `...-<flavor name>`, with
 * what the flavor adds); returns that directory.
 */
export async function ensureUnpacked(options: DistributionOptions): Promise<string> {
  const { version, cacheDir, flavor } = options;
  const target = join(
    cacheDir,
    options.folderName ?? `opensearch-${version}${flavor === undefined ? '' : `-${flavor.name}`}`,
  );
  if (existsSync(join(target, 'bin', 'opensearch'))) return target;
  const zip = await ensureDownloaded(options);
  mkdirSync(cacheDir, { recursive: true });
  // Unpack beside the target and rename, so an interrupted unzip never leaves a half distribution that looks whole.
  const staging = mkdtempSync(join(cacheDir, '.unpack-'));
  try {
    options.log?.(`unpacking ${zip} into ${target}`);
    unzip(zip, staging);
    const inner = join(staging, `opensearch-${version}`);
    if (!existsSync(inner)) {
      throw new LocalOpenSearchError(`${zip} does not contain opensearch-${version}/`);
    }
    await flavor?.install(inner);
    try {
      renameSync(inner, target);
    } catch (error) {
      // Another process (a parallel test file) finished unpacking first: use its copy.
      if (!existsSync(join(target, 'bin', 'opensearch'))) {
        throw new LocalOpenSearchError(`Could not move the unpacked distribution to ${target}`, {
          cause: error,
        });
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}
