/**
 * The node process helpers that need no node: free ports and the pid file of a detached node. Starting a real
 * node (as `nobody` when root, switched by spawn's uid/gid) is covered by every suite that uses
 * test/helpers/opensearch.ts and by test/e2e.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalOpenSearchError, OpenSearchStartError } from '../../../scripts/opensearch/errors';
import { freePort, startNodeProcess, stopDetached } from '../../../scripts/opensearch/node-process';
import { testTempDir } from '../../helpers/temp-dirs';

describe('freePort', () => {
  test('returns a port that can be bound on 127.0.0.1', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

describe('stopDetached', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kfek-pid-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('answers false when there is no pid file', async () => {
    await expect(stopDetached(join(dir, 'node.pid'))).resolves.toBe(false);
  });

  test('fails when the pid file does not hold a pid', async () => {
    writeFileSync(join(dir, 'node.pid'), 'not a pid');
    await expect(stopDetached(join(dir, 'node.pid'))).rejects.toThrow(LocalOpenSearchError);
  });
});

describe('startNodeProcess', () => {
  /** The node temp dirs in the temp dir whose jvm.options holds `marker` (other suites may run nodes meanwhile). */
  function nodeDirsWith(marker: string): string[] {
    return readdirSync(tmpdir())
      .filter((name) => name.startsWith('kfek-opensearch-'))
      .filter((name) => {
        try {
          return readFileSync(join(tmpdir(), name, 'config', 'jvm.options'), 'utf8').includes(marker);
        } catch {
          return false;
        }
      });
  }

  test('fails when the launcher cannot be run, saying why, and leaves no temp dir', async () => {
    // GIVEN a distribution whose bin/opensearch is not executable (EACCES for root too)
    const distribution = testTempDir('kfek-dist-');
    mkdirSync(join(distribution, 'bin'));
    mkdirSync(join(distribution, 'config'));
    writeFileSync(join(distribution, 'bin', 'opensearch'), '#!/bin/sh\n', { mode: 0o644 });
    writeFileSync(join(distribution, 'config', 'jvm.options'), `# ${distribution}\n-Xms1g\n`);

    // WHEN
    const attempt = startNodeProcess({ distribution, javaHome: '/nowhere', version: '0.0.0' });

    // THEN
    await expect(attempt).rejects.toThrow(OpenSearchStartError);
    await expect(attempt).rejects.toThrow(/Could not spawn .*bin\/opensearch: spawn .*EACCES/);
    expect(nodeDirsWith(distribution)).toEqual([]);
  });
});
