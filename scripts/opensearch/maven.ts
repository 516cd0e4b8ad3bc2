/**
 * Fetches one artifact file from a Maven repository with Node itself (an artifact is a plain file at a fixed path
 * of the repository layout; no `mvn` binary), verified against the repository's `.sha1` and cached.
 *
 * Lookup order: the local Maven repository (`~/.m2`, where `mvn dependency:get` puts it, so a machine that has it
 * works offline), then `<cacheDir>/downloads/`, then a download into `<cacheDir>/downloads/`.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DistributionDownloadError } from './errors';

export const MAVEN_CENTRAL_URL = 'https://repo1.maven.org/maven2';

/** One file of a Maven artifact: `groupId:artifactId:version` with its extension. */
export interface MavenArtifact {
  /** e.g. `com.ibm.icu`. */
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string;
  /** @default 'jar' */
  readonly extension?: string;
}

/** Where artifacts come from and go to; every optional field has a default for this machine. */
export interface MavenFetchOptions {
  /** Holds `downloads/`. */
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
  /** Progress lines (start, done) of each download. @default - silent */
  readonly log?: (line: string) => void;
  /**
   * Told of every artifact resolved, downloaded or found (a caller fetching many sums them into one line, as
   * assembled-distribution.ts does, instead of passing `log`). @default - nobody is told
   */
  readonly onFetched?: (fetched: FetchedArtifact) => void;
}

/** One artifact resolved by {@link ensureMavenArtifact}. */
export interface FetchedArtifact {
  /** True when it came over the network, false when ~/.m2 or the cache had it. */
  readonly downloaded: boolean;
  /** Its size on disk. */
  readonly bytes: number;
}

/** The artifact's path inside any Maven repository layout. */
export function artifactPath(artifact: MavenArtifact): string {
  const { groupId, artifactId, version } = artifact;
  return `${groupId.replaceAll('.', '/')}/${artifactId}/${version}/${artifactFileName(artifact)}`;
}

function artifactFileName({ artifactId, version, extension }: MavenArtifact): string {
  return `${artifactId}-${version}.${extension ?? 'jar'}`;
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

/** How progress lines and errors name an artifact. */
export interface ArtifactLabel {
  /** e.g. `OpenSearch 3.6.0`. */
  readonly title: string;
  /** e.g. `160 MB`. */
  readonly aboutSize: string;
}

/**
 * Returns the path of the artifact file, downloading it (and checking its SHA-1 against the repository's `.sha1`)
 * when neither the local Maven repository nor the cache has it. A partial download never takes the cached name:
 * it is written beside it and renamed once verified.
 */
export async function ensureMavenArtifact(
  artifact: MavenArtifact,
  options: MavenFetchOptions,
  label: ArtifactLabel,
): Promise<string> {
  const relative = artifactPath(artifact);
  const fromMaven = join(options.localMavenRepository ?? join(homedir(), '.m2', 'repository'), relative);
  const found = (file: string, downloaded: boolean): string => {
    options.onFetched?.({ downloaded, bytes: statSync(file).size });
    return file;
  };
  if (existsSync(fromMaven)) return found(fromMaven, false);
  const downloads = join(options.cacheDir, 'downloads');
  const cached = join(downloads, artifactFileName(artifact));
  if (existsSync(cached)) return found(cached, false);

  const url = `${(options.repositoryUrl ?? MAVEN_CENTRAL_URL).replace(/\/+$/, '')}/${relative}`;
  const idle = options.idleTimeoutInMillis ?? 60_000;
  mkdirSync(downloads, { recursive: true });
  const partial = `${cached}.${process.pid}.partial`;
  options.log?.(`downloading ${url} (about ${label.aboutSize}, once; cached in ${downloads})`);
  try {
    const expected = (await fetchText(`${url}.sha1`, idle)).trim().split(/\s+/)[0].toLowerCase();
    const actual = await download(url, partial, idle);
    if (actual !== expected) {
      throw new DistributionDownloadError(
        `${url} has SHA-1 ${actual}, but the repository publishes ${expected}: a broken or tampered download; ` +
          'run again, or place the file at ' +
          cached,
      );
    }
    renameSync(partial, cached);
  } catch (error) {
    rmSync(partial, { force: true });
    if (error instanceof DistributionDownloadError) throw error;
    throw new DistributionDownloadError(
      `Could not download ${label.title} from ${url}: ${describe(error)}. Check the ` +
        `connection (an HTTPS proxy is not used by Node's fetch), or place the file at ${cached}`,
      { cause: error },
    );
  }
  options.log?.(`downloaded ${cached}`);
  return found(cached, true);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
