/**
 * The OpenSearch distribution on disk: the integ-test zip from Maven Central, fetched with Node itself (it is a
 * plain file in the repository; no `mvn` binary), verified against the repository's `.sha1`, cached, and unpacked
 * once with Python's zipfile module (no `unzip` binary: Python is a prerequisite of `npm start` anyway).
 *
 * Lookup order for the zip: the local Maven repository (`~/.m2`, where `mvn dependency:get` puts it, so a machine
 * that has it works offline), then `<cacheDir>/downloads/`, then a download into `<cacheDir>/downloads/`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DistributionDownloadError, LocalOpenSearchError } from './errors';

export const MAVEN_CENTRAL_URL = 'https://repo1.maven.org/maven2';

/** Where the distribution comes from and goes to; every field has a default for this machine. */
export interface DistributionOptions {
  readonly version: string;
  /** Holds `downloads/` and the unpacked `opensearch-<version>/`. */
  readonly cacheDir: string;
  /**
   * The Maven repository to download from (tests serve one on 127.0.0.1).
   * @default MAVEN_CENTRAL_URL
   */
  readonly repositoryUrl?: string;
  /**
   * The local Maven repository checked before downloading.
   * @default '~/.m2/repository'
   */
  readonly localMavenRepository?: string;
  /**
   * Gives up when no byte arrives for this long.
   * @default 60_000
   */
  readonly idleTimeoutInMillis?: number;
  /** Progress lines (start, size, done). @default - silent */
  readonly log?: (line: string) => void;
}

/** The zip's path inside any Maven repository layout. */
export function distributionPath(version: string): string {
  return `org/opensearch/distribution/integ-test-zip/opensearch/${version}/opensearch-${version}.zip`;
}

/** GETs a small text file (the checksum). */
async function fetchText(url: string, idleTimeoutInMillis: number): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(idleTimeoutInMillis) });
  if (!response.ok) throw new DistributionDownloadError(`GET ${url} answered ${response.status}`);
  return response.text();
}

/** Streams `url` into `file`, hashing as it goes; returns the SHA-1 hex. Aborts when the body stalls. */
async function download(url: string, file: string, idleTimeoutInMillis: number): Promise<string> {
  const abort = new AbortController();
  let idle = setTimeout(() => abort.abort(), idleTimeoutInMillis);
  try {
    const response = await fetch(url, { signal: abort.signal });
    if (!response.ok || response.body === null) {
      throw new DistributionDownloadError(`GET ${url} answered ${response.status}`);
    }
    const sha1 = createHash('sha1');
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => {
      sha1.update(chunk);
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(), idleTimeoutInMillis);
    });
    await pipeline(body, createWriteStream(file));
    return sha1.digest('hex');
  } finally {
    clearTimeout(idle);
  }
}

/**
 * Returns the path of the distribution zip, downloading it (and checking its SHA-1 against the repository's
 * `.sha1`) when neither the local Maven repository nor the cache has it. A partial download never takes the
 * cached name: it is written beside it and renamed once verified.
 */
export async function ensureDownloaded(options: DistributionOptions): Promise<string> {
  const relative = distributionPath(options.version);
  const fromMaven = join(options.localMavenRepository ?? join(homedir(), '.m2', 'repository'), relative);
  if (existsSync(fromMaven)) return fromMaven;
  const downloads = join(options.cacheDir, 'downloads');
  const cached = join(downloads, `opensearch-${options.version}.zip`);
  if (existsSync(cached)) return cached;

  const url = `${(options.repositoryUrl ?? MAVEN_CENTRAL_URL).replace(/\/+$/, '')}/${relative}`;
  const idle = options.idleTimeoutInMillis ?? 60_000;
  mkdirSync(downloads, { recursive: true });
  const partial = `${cached}.${process.pid}.partial`;
  options.log?.(`downloading ${url} (about 160 MB, once; cached in ${downloads})`);
  try {
    const expected = (await fetchText(`${url}.sha1`, idle)).trim().split(/\s+/)[0].toLowerCase();
    const actual = await download(url, partial, idle);
    if (actual !== expected) {
      throw new DistributionDownloadError(
        `${url} has SHA-1 ${actual}, but the repository publishes ${expected}: a broken or tampered download; ` +
          'run again, or place the zip at ' +
          cached,
      );
    }
    renameSync(partial, cached);
  } catch (error) {
    rmSync(partial, { force: true });
    if (error instanceof DistributionDownloadError) throw error;
    throw new DistributionDownloadError(
      `Could not download OpenSearch ${options.version} from ${url}: ${describe(error)}. Check the connection ` +
        `(an HTTPS proxy is not used by Node's fetch), or place the zip at ${cached}`,
      { cause: error },
    );
  }
  options.log?.(`downloaded ${cached}`);
  return cached;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
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

/** Unpacks the distribution once into `<cacheDir>/opensearch-<version>`; returns that directory. */
export async function ensureUnpacked(options: DistributionOptions): Promise<string> {
  const { version, cacheDir } = options;
  const target = join(cacheDir, `opensearch-${version}`);
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
