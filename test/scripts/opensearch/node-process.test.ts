/**
 * The node process helpers that need no node: free ports and the pid file of a detached node. Starting a real
 * node (as `nobody` when root, switched by spawn's uid/gid) is covered by every suite that uses
 * test/helpers/opensearch.ts and by test/e2e.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalOpenSearchError } from '../../../scripts/opensearch/errors';
import { freePort, stopDetached } from '../../../scripts/opensearch/node-process';

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
