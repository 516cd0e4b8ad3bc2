/**
 * The run's context (cli/context.ts) and where kept data is read (cli/kept-sources.ts): what every command used to
 * build for itself, decided once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openContext } from '../../cli/context';
import { UsageError } from '../../cli/errors';
import type { CliIo } from '../../cli/io';
import { keptSources } from '../../cli/kept-sources';
import { configFromCdkJson } from '../../core/config';

const QUIET = { write: (): boolean => true };
const io = (env: CliIo['env'] = {}, cwd?: string): CliIo => ({
  stdout: QUIET,
  stderr: QUIET,
  env,
  ...(cwd !== undefined ? { cwd } : {}),
});

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'kfek-context-'));
  writeFileSync(join(scratch, 'a-file'), '');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('openContext', () => {
  test('an OpenSearch URL with user:password is basic auth, and the password is in no base URL a message prints', () => {
    // GIVEN
    const context = openContext('verify', {}, io());
    // WHEN
    const client = context.openSearch('http://admin:s3cr%40t@127.0.0.1:9200/', false);
    // THEN
    expect(client.baseUrl).toBe('http://127.0.0.1:9200');
    context.close();
  });

  test('fails when --sigv4 has no region to sign in, naming the command', () => {
    const context = openContext('reconcile', {}, io());
    expect(() => context.openSearch('https://search.example.com', true)).toThrow(
      new UsageError('reconcile: --sigv4 needs --region (or AWS_REGION)'),
    );
  });

  test('signs in the region of an Amazon OpenSearch Service host without --region', () => {
    const context = openContext('verify', {}, io());
    const client = context.openSearch('https://search-kfek-abc.eu-west-1.es.amazonaws.com', true);
    expect(client.baseUrl).toBe('https://search-kfek-abc.eu-west-1.es.amazonaws.com');
  });

  test.each([
    ['no-such-dir', /^replay: --local-dir no-such-dir does not exist \(.*\), so it is not a folder to read/],
    ['a-file', /^replay: --local-dir a-file \(.*a-file\) is not a folder: pass npm start's work folder/],
  ])('fails when --local-dir %s is no folder, before any call', async (given, message) => {
    const context = openContext('replay', {}, io({}, scratch));
    await expect(context.localFolder(given)).rejects.toThrow(UsageError);
    await expect(context.localFolder(given)).rejects.toThrow(message);
  });

  test('resolves --local-dir against the working folder', async () => {
    const context = openContext('replay', {}, io({}, scratch));
    await expect(context.localFolder('.')).resolves.toBe(scratch);
  });

  test("fails for an unknown profile in the command's words", () => {
    const context = openContext('events-window', {}, io());
    expect(() => context.profile('no-such-profile')).toThrow(
      /^events-window: unknown config profile "no-such-profile": cdk.json defines/,
    );
  });

  test('reads the target with the environment: an endpoint override brings its default region', () => {
    const context = openContext('backfill', {}, io({ AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' }));
    expect(context.target).toEqual({ endpoint: 'http://127.0.0.1:5000', region: 'us-east-1' });
  });
});

describe('keptSources', () => {
  const config = configFromCdkJson(join(__dirname, '..', '..', 'cdk.json'), undefined);
  const context = openContext('replay', {}, io({ AWS_REGION: 'eu-west-1' }));
  afterAll(() => context.close());

  test("npm start's folders, with dead letters from the bucket when one is named", () => {
    const sources = keptSources(context, config, { localDir: scratch, bucket: 'kept', maxMessages: 5 });
    expect(sources.deadLetter?.store.locationOf('x')).toBe(`s3://kept/x`);
    expect(sources.deadLetter?.prefix).toBe(config.transform.deadLetterPrefix);
    expect(sources.discardedBatches?.store.locationOf('x')).toBe(join(scratch, 'x'));
    expect(sources.failedDocuments?.store.locationOf('x')).toBe(join(scratch, 'x'));
    expect(sources.queue).toBeUndefined();
    expect(sources.maxMessages).toBe(5);
  });

  test("the bucket's prefixes and the queue, without a folder", () => {
    const sources = keptSources(context, config, {
      bucket: 'kept',
      queueUrl: 'http://127.0.0.1:2/q',
      maxMessages: 0,
    });
    expect(sources.failedDocuments?.prefix).toBe(config.delivery.failedDocumentsPrefix);
    expect(sources.queue?.location).toContain('http://127.0.0.1:2/q');
  });

  test('nothing to read when neither is given', () => {
    expect(keptSources(context, config, { maxMessages: 0 })).toEqual({ maxMessages: 0 });
  });
});
