/**
 * The CLI's OpenSearch tools against an OpenSearch Serverless collection, here the conformance stand-in in front of the
 * real node (issue 42, docs/serverless.md): `kfek verify` signs for `aoss` and reads a run without the scroll API a
 * collection lacks; `kfek proxy --service aoss` signs what Dashboards or curl send. Each also shows that what a domain
 * would be sent (a scroll, an `es` signature) is refused, so a tool that regressed to it fails here.
 */
import { parseCliArgs } from '../../cli/args';
import type { ProxyArgs } from '../../cli/args/types';
import { createSigningProxy } from '../../cli/proxy';
import { verifyRun } from '../../cli/verify';
import { runMarker } from '../../core/log-generator';
import { createHttpClient } from '../../core/opensearch/http';
import { collectionAccessPolicy } from '../../core/opensearch/serverless-access';
import { runKfek } from '../helpers/cli-run';
import { signedAs } from '../helpers/credentials-env';
import {
  STANDIN_REGION,
  standinClient,
  standinIdentity,
  useServerlessStandin,
} from '../helpers/serverless-standin';

jest.setTimeout(180_000);

const READER = standinIdentity('reader');
const ADMIN = standinIdentity('admin');
const RUN = 'svl42b-serverless';
const EVENTS = 60;

describe('the CLI tools on a Serverless collection (stand-in on the real node)', () => {
  const { standin } = useServerlessStandin({
    identities: [READER, ADMIN],
    accessPolicy: collectionAccessPolicy({
      collection: 'kfek-standin',
      writers: [],
      admins: [ADMIN.principal],
      families: [{ indexPattern: 'logs-*', readers: [READER.principal] }],
    }),
  });

  beforeAll(async () => {
    // A run's events over two daily indices, one second apart, as the indexer writes them (ids, no routing).
    const start = Date.parse('2026-11-28T23:59:30Z');
    const lines = Array.from({ length: EVENTS }, (_, seq) => {
      const at = new Date(start + seq * 1000).toISOString();
      return [
        JSON.stringify({ index: { _index: `logs-${at.slice(0, 10)}`, _id: `${RUN}-${seq}` } }),
        JSON.stringify({ '@timestamp': at, message: `checkout done ${runMarker(RUN, seq)}` }),
      ].join('\n');
    });
    const seeded = await standinClient(standin().url, ADMIN).request({
      method: 'POST',
      path: '/_bulk?refresh=true',
      body: `${lines.join('\n')}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    if (seeded.status !== 200 || (seeded.body as { errors: boolean }).errors) {
      throw new Error(`seeding the run failed: HTTP ${seeded.status} ${seeded.text.slice(0, 300)}`);
    }
  });

  test('kfek verify --service aoss finds every event once, and sends nothing the collection refuses', async () => {
    // GIVEN
    const refusedBefore = standin().refusals.length;
    // WHEN
    const argv = ['verify', '--run-id', RUN, '--opensearch', standin().url, '--index', 'logs-*'];
    const outcome = await signedAs(READER, () =>
      runKfek([
        ...argv,
        '--expect',
        String(EVENTS),
        '--service',
        'aoss',
        '--region',
        STANDIN_REGION,
        '--json',
      ]),
    );
    // THEN
    expect(outcome.err).not.toMatch(/HTTP 4/);
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.out)).toMatchObject({
      delivered: EVENTS,
      duplicates: 0,
      missing: 0,
      complete: true,
    });
    expect(standin().refusals.slice(refusedBefore)).toEqual([]);
  });

  test('verify reads a run larger than one search in time slices, each event once', async () => {
    // GIVEN a page far smaller than the run, as a run beyond max_result_window would be
    const client = standinClient(standin().url, READER);
    // WHEN
    const result = await verifyRun(client, {
      runId: RUN,
      indexPattern: 'logs-*',
      expected: EVENTS,
      timeoutInMillis: 0,
      pageSize: 7,
      scroll: false,
    });
    // THEN
    expect(result).toMatchObject({ delivered: EVENTS, duplicates: 0, missing: 0, complete: true });
  });

  test('fails when verify pages with the scroll API a domain takes: the collection refuses it', async () => {
    // GIVEN
    const client = standinClient(standin().url, READER);
    // WHEN / THEN
    await expect(
      verifyRun(client, { runId: RUN, indexPattern: 'logs-*', timeoutInMillis: 0, scroll: true }),
    ).rejects.toThrow(/HTTP 400.*scroll API is not supported/);
  });

  test('fails when verify signs for es: the collection answers 403 and the message says so', async () => {
    // WHEN
    const argv = ['verify', '--run-id', RUN, '--opensearch', standin().url, '--sigv4', '--service', 'es'];
    const outcome = await signedAs(READER, () => runKfek([...argv, '--region', STANDIN_REGION]));
    // THEN
    expect(outcome.code).not.toBe(0);
    expect(outcome.err).toMatch(/HTTP 403/);
  });

  test("kfek proxy --service aoss signs for the collection: an unsigned client searches the reader's family", async () => {
    // GIVEN the proxy as `kfek proxy --endpoint <collection> --service aoss` configures it
    const args = parseCliArgs([
      'proxy',
      '--endpoint',
      standin().url,
      '--service',
      'aoss',
      '--port',
      '0',
    ]) as ProxyArgs;
    expect(args.service).toBe('aoss');
    const proxies = await Promise.all(
      [args.service, undefined].map((service) =>
        createSigningProxy({
          endpoint: args.endpoint,
          region: STANDIN_REGION,
          port: 0,
          credentials: READER,
          ...(service === undefined ? {} : { service }),
        }),
      ),
    );
    try {
      // WHEN a plain client asks through each proxy
      const [aoss, es] = await Promise.all(
        proxies.map((p) =>
          createHttpClient({ baseUrl: p.url, maxAttempts: 1 }).request({
            method: 'POST',
            path: '/logs-*/_search',
            body: {
              size: 0,
              track_total_hits: true,
              query: { match_phrase: { message: `kfek_run=${RUN}` } },
            },
          }),
        ),
      );
      // THEN the aoss-signing proxy is answered, the domain's default (es) refused
      expect(aoss.status).toBe(200);
      expect((aoss.body as { hits: { total: { value: number } } }).hits.total.value).toBe(EVENTS);
      expect(es.status).toBe(403);
      expect((es.body as { error: { reason: string } }).error.reason).toMatch(
        /signed for "es"; a collection takes "aoss"/,
      );
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
    }
  });
});
