/**
 * A number longer than OpenSearch parses is written as a string of its digits (issue 31): with an ingest pipeline,
 * OpenSearch fails every document of a bulk when one source cannot be parsed, so one app's 1,001-digit number would
 * cost every team its batch. test/core/opensearch/mixed-bulk.secured.test.ts sends such documents to the real node.
 */
import { MAX_NUMBER_CHARS } from '../../../core/transform/app-json';
import { DocumentSerializer } from '../../../core/transform/document';

const serializer = new DocumentSerializer({
  logGroup: '/aws/lambda/app',
  logStream: 's',
  owner: '123456789012',
});

function appMember(message: string, key: string): unknown {
  return (JSON.parse(serializer.json({ id: '1', timestamp: 0, message })) as Record<string, unknown>)[key];
}

describe('numbers in JSON app logs', () => {
  test('a number of MAX_NUMBER_CHARS characters stays a number, as written', () => {
    // GIVEN
    const token = `0.${'7'.repeat(MAX_NUMBER_CHARS - 2)}`;
    // WHEN
    const json = serializer.json({ id: '1', timestamp: 0, message: `{"message":"m","n":${token}}` });
    // THEN
    expect(json).toContain(`"n":${token}}`);
  });

  test('a longer one is a string of exactly its characters, on the fast path and the rewriting one', () => {
    // GIVEN
    const token = `-0.${'7'.repeat(MAX_NUMBER_CHARS)}e-3`;
    // WHEN a canonical text and an indented one (which the rewriting path takes)
    const fast = appMember(`{"message":"m","n":${token}}`, 'n');
    const rewritten = appMember(`{ "message": "m",\n  "n": ${token} }`, 'n');
    // THEN
    expect(fast).toBe(token);
    expect(rewritten).toBe(token);
  });

  test('a number JSON.parse reads as Infinity is still null, however long', () => {
    expect(appMember(`{"message":"m","n":1${'0'.repeat(2000)}}`, 'n')).toBeNull();
  });
});
