/**
 * Fetching and unpacking the distribution (scripts/opensearch/distribution.ts) against a Maven repository served
 * by a local HTTP server on 127.0.0.1 standing in for Maven Central (never the internet in tests). The zip is a
 * small real zip made with Python's zipfile, with an executable `bin/opensearch` like the real one.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DistributionDownloadError } from '../../../scripts/opensearch/errors';
import { distributionPath, ensureDownloaded, ensureUnpacked } from '../../../scripts/opensearch/distribution';

const VERSION = '9.9.9';
let root: string;
let zipBytes: Buffer;
let server: Server;
let baseUrl: string;
/** Paths the fake repository was asked for, in order. */
let requests: string[];
/** What the fake repository answers for the `.sha1` (default: the right digest). */
let publishedSha1: string | undefined;

/** A zip holding `opensearch-<VERSION>/bin/opensearch` (mode 755) and `config/jvm.options` (mode 644). */
function makeZip(dir: string): Buffer {
  const file = join(dir, 'made.zip');
  const script = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for name, mode, text in [('bin/opensearch', 0o755, '#!/bin/sh\\necho hi\\n'), ('config/jvm.options', 0o644, '-Xms1g\\n')]:
        info = zipfile.ZipInfo('opensearch-${VERSION}/' + name)
        info.external_attr = (0o100000 | mode) << 16
        z.writestr(info, text)
`;
  const result = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`could not make the test zip: ${result.stderr}`);
  return readFileSync(file);
}

beforeAll(async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'kfek-zip-'));
  zipBytes = makeZip(scratch);
  rmSync(scratch, { recursive: true, force: true });
  server = createServer((request, response) => {
    const path = request.url ?? '';
    requests.push(path);
    const zipPath = `/maven2/${distributionPath(VERSION)}`;
    if (path === zipPath) {
      response.writeHead(200, { 'content-type': 'application/zip' });
      response.end(zipBytes);
    } else if (path === `${zipPath}.sha1`) {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(publishedSha1 ?? createHash('sha1').update(zipBytes).digest('hex'));
    } else {
      response.writeHead(404);
      response.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/maven2`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kfek-dist-'));
  requests = [];
  publishedSha1 = undefined;
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Options pointing at the fake repository and an empty local Maven repository under the temp root. */
function options(extra: { repositoryUrl?: string } = {}) {
  return {
    version: VERSION,
    cacheDir: join(root, 'cache'),
    localMavenRepository: join(root, 'm2'),
    repositoryUrl: baseUrl,
    ...extra,
  };
}

describe('ensureDownloaded', () => {
  test('downloads the zip from the Maven layout path, checks its SHA-1, and caches it in <cacheDir>/downloads', async () => {
    const zip = await ensureDownloaded(options());
    expect(zip).toBe(join(root, 'cache', 'downloads', `opensearch-${VERSION}.zip`));
    expect(readFileSync(zip).equals(zipBytes)).toBe(true);
    expect(requests).toEqual([
      `/maven2/org/opensearch/distribution/integ-test-zip/opensearch/${VERSION}/opensearch-${VERSION}.zip.sha1`,
      `/maven2/org/opensearch/distribution/integ-test-zip/opensearch/${VERSION}/opensearch-${VERSION}.zip`,
    ]);
  });

  test('a second call uses the cache and makes no request, even with the repository unreachable', async () => {
    await ensureDownloaded(options());
    requests = [];
    const zip = await ensureDownloaded(options({ repositoryUrl: 'http://127.0.0.1:1/unreachable' }));
    expect(existsSync(zip)).toBe(true);
    expect(requests).toEqual([]);
  });

  test('a zip already in the local Maven repository (~/.m2) is used offline', async () => {
    const m2Zip = join(root, 'm2', distributionPath(VERSION));
    mkdirSync(join(m2Zip, '..'), { recursive: true });
    writeFileSync(m2Zip, zipBytes);
    const zip = await ensureDownloaded(options({ repositoryUrl: 'http://127.0.0.1:1/unreachable' }));
    expect(zip).toBe(m2Zip);
    expect(existsSync(join(root, 'cache', 'downloads'))).toBe(false);
  });

  test('fails when the SHA-1 differs from the published one, and keeps nothing', async () => {
    publishedSha1 = '0'.repeat(40);
    await expect(ensureDownloaded(options())).rejects.toThrow(DistributionDownloadError);
    await expect(ensureDownloaded(options())).rejects.toThrow(
      /publishes 0{40}: a broken or tampered download/,
    );
    expect(readdirSync(join(root, 'cache', 'downloads'))).toEqual([]);
  });

  test('fails with the URL and where to place the zip when the repository answers 404', async () => {
    const attempt = ensureDownloaded({ ...options(), version: '0.0.1' });
    await expect(attempt).rejects.toThrow(DistributionDownloadError);
    await expect(ensureDownloaded({ ...options(), version: '0.0.1' })).rejects.toThrow(
      /opensearch-0\.0\.1\.zip\.sha1 answered 404/,
    );
  });

  test('fails with the cause and where to place the zip when nothing answers', async () => {
    await expect(ensureDownloaded(options({ repositoryUrl: 'http://127.0.0.1:1/nothing' }))).rejects.toThrow(
      /Could not download OpenSearch 9\.9\.9 from http:\/\/127\.0\.0\.1:1\/nothing\/.*place the file at .*downloads/,
    );
  });
});

describe('ensureUnpacked', () => {
  test('unpacks with python3 into <cacheDir>/opensearch-<version>, keeping bin/opensearch executable', async () => {
    const dir = await ensureUnpacked(options());
    expect(dir).toBe(join(root, 'cache', `opensearch-${VERSION}`));
    expect(statSync(join(dir, 'bin', 'opensearch')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'config', 'jvm.options')).mode & 0o777).toBe(0o644);
    expect(spawnSync(join(dir, 'bin', 'opensearch'), { encoding: 'utf8' }).stdout).toBe('hi\n');
    // No staging folder is left beside it.
    expect(readdirSync(join(root, 'cache')).sort()).toEqual(['downloads', `opensearch-${VERSION}`]);
  });

  test('an unpacked distribution is reused without touching the repository', async () => {
    await ensureUnpacked(options());
    requests = [];
    rmSync(join(root, 'cache', 'downloads'), { recursive: true });
    await ensureUnpacked(options({ repositoryUrl: 'http://127.0.0.1:1/unreachable' }));
    expect(requests).toEqual([]);
  });

  test('a flavor gets a folder of its own, with what it adds, and is assembled once', async () => {
    // GIVEN a flavor that adds a module (as secured-distribution.ts adds modules and the security plugin)
    let installs = 0;
    const flavor = {
      name: 'extra-v1',
      install: (dir: string): Promise<void> => {
        installs += 1;
        // It sees the unpacked zip, before the folder takes its cached name.
        expect(existsSync(join(dir, 'bin', 'opensearch'))).toBe(true);
        expect(dir).not.toBe(join(root, 'cache', `opensearch-${VERSION}-extra-v1`));
        mkdirSync(join(dir, 'modules', 'added'), { recursive: true });
        writeFileSync(join(dir, 'modules', 'added', 'plugin-descriptor.properties'), 'name=added\n');
        return Promise.resolve();
      },
    };

    // WHEN
    const dir = await ensureUnpacked({ ...options(), flavor });
    const again = await ensureUnpacked({ ...options(), flavor });

    // THEN
    expect(dir).toBe(join(root, 'cache', `opensearch-${VERSION}-extra-v1`));
    expect(again).toBe(dir);
    expect(installs).toBe(1);
    expect(readFileSync(join(dir, 'modules', 'added', 'plugin-descriptor.properties'), 'utf8')).toBe(
      'name=added\n',
    );
    // The plain distribution is not made or changed by a flavor.
    expect(readdirSync(join(root, 'cache')).sort()).toEqual(['downloads', `opensearch-${VERSION}-extra-v1`]);
  });
});
