/** Port choice for the servers tests and `npm start` run: below the ephemeral range, never a port in use. */
import { createServer, type Server } from 'node:net';
import { ephemeralRangeStart, freePort } from '../../scripts/free-port';
import { OpenSearchStartError } from '../../scripts/opensearch/errors';
import { isPortTaken } from '../../scripts/opensearch/node-process';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('freePort', () => {
  test('picks a port below the ephemeral range that a server can listen on', async () => {
    // GIVEN this machine's ephemeral range
    const start = ephemeralRangeStart();
    // WHEN
    const port = await freePort();
    // THEN
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(start);
    await close(await listen(port));
  });

  test('skips a port that is in use and takes the next candidate', async () => {
    // GIVEN a server on the first candidate the random source points at
    const busy = await freePort();
    const server = await listen(busy);
    try {
      const rangeStart = 30_000;
      const fraction = (port: number): number => (port - 10_000 + 0.5) / (rangeStart - 10_000);
      const other = busy === 20_000 ? 20_001 : 20_000;
      const candidates = [fraction(busy), fraction(other)];
      // WHEN
      const port = await freePort(() => candidates.shift() ?? 0.5, rangeStart);
      // THEN
      expect(port).toBe(other);
    } finally {
      await close(server);
    }
  });

  test('reads the range start from the kernel setting, and falls back to Linux default on anything else', () => {
    expect(ephemeralRangeStart(() => '40000\t60999\n')).toBe(40_000);
    expect(ephemeralRangeStart(() => 'garbage')).toBe(32_768);
    expect(
      ephemeralRangeStart(() => {
        throw new Error('ENOENT');
      }),
    ).toBe(32_768);
  });
});

describe('isPortTaken', () => {
  test('recognises a node that could not bind its port, and nothing else', () => {
    const bind = new OpenSearchStartError(
      'OpenSearch exited (1) before it became healthy:\nBindHttpException[Failed to bind to 127.0.0.1:45839]; ' +
        'nested: BindException[Address already in use];\nLikely root cause: java.net.BindException: Address already in use',
    );
    expect(isPortTaken(bind)).toBe(true);
    expect(
      isPortTaken(
        new OpenSearchStartError('OpenSearch exited (1) before it became healthy:\nOutOfMemoryError'),
      ),
    ).toBe(false);
    expect(isPortTaken(new Error('BindException: Address already in use'))).toBe(false);
  });
});
