/**
 * Issue 22, item 4: fields an app could forge are derived only from what the sender cannot choose.
 * - `lambda.*` comes from Lambda platform lines and runtime prefixes only in a Lambda function's log group
 *   (`/aws/lambda/...`, named by CloudWatch Logs): elsewhere a `REPORT` line is the app's text.
 * - `cloudwatch.region` comes from CloudWatch's `@aws.region`, or the pipeline's one source region; a region named by
 *   a subscription filter (which the sending account names) counts only when it is one of the configured regions.
 */
import { toDocument, type DocumentOptions, type EventSource } from '../../../core/transform/document';
import { transformRecord } from '../../../core/transform/transform';
import type { LogDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope } from '../../helpers/cloudwatch';

const REPORT =
  'REPORT RequestId: 8f5b1a2c-0000-4000-8000-000000000001\tDuration: 1.50 ms\tBilled Duration: 2 ms\t' +
  'Memory Size: 128 MB\tMax Memory Used: 64 MB\t\n';
const PLATFORM_JSON =
  '{"time":"2026-11-23T08:00:00.000Z","type":"platform.report","record":{"requestId":"r-1","metrics":{"durationMs":1.5}}}';
const NODE_LINE = '2026-11-23T08:00:00.003Z\t9c51a6b5-00fb-4a09-a885-2a06d65bbedc\tINFO\tpaid\n';

function docOf(message: string, logGroup: string, options: DocumentOptions = {}): LogDocument {
  const source: EventSource = { logGroup, logStream: 's', owner: '123456789012' };
  return toDocument({ id: '1', timestamp: 0, message }, source, options);
}

describe('lambda.* only from Lambda log groups', () => {
  it.each([
    ['a REPORT line', REPORT],
    ['a platform JSON record', PLATFORM_JSON],
    ['a runtime-prefixed line', NODE_LINE],
  ])('%s in a Lambda log group gives lambda fields', (_, line) => {
    expect(docOf(line, '/aws/lambda/orders').lambda).toBeDefined();
  });

  it('a REPORT line written by another app stays its text, with no Lambda metrics', () => {
    const doc = docOf(REPORT, '/ecs/orders');
    expect(doc.lambda).toBeUndefined();
    expect(doc.message).toBe(REPORT.slice(0, -1));
  });

  it('a platform JSON record written by another app keeps its fields as the app wrote them', () => {
    const doc = docOf(PLATFORM_JSON, '/ecs/orders') as Record<string, unknown>;
    expect(doc.lambda).toBeUndefined();
    expect(doc.type).toBe('platform.report');
    expect(doc.record).toEqual({ requestId: 'r-1', metrics: { durationMs: 1.5 } });
  });

  it('a runtime-prefixed line written by another app keeps its level, not a request id', () => {
    const doc = docOf(NODE_LINE, '/ecs/orders');
    expect(doc).toMatchObject({ level: 'INFO', message: 'paid' });
    expect(doc.lambda).toBeUndefined();
  });

  it('an app field named lambda outside a Lambda log group is the app field, not a collision', () => {
    const doc = docOf('{"message":"m","lambda":{"durationMs":9}}', '/ecs/orders');
    expect(doc.lambda).toEqual({ durationMs: 9 });
    expect(doc.kfek).toBeUndefined();
  });
});

describe('cloudwatch.region only from what the sender cannot choose', () => {
  const source = (filters: string[]): EventSource => ({
    logGroup: '/app/a',
    logStream: 's',
    owner: '222233334444',
    subscriptionFilters: filters,
  });
  const region = (filters: string[], options: DocumentOptions, extracted?: Record<string, string>) =>
    toDocument({ id: '1', timestamp: 0, message: 'm', extractedFields: extracted }, source(filters), options)
      .cloudwatch.region;

  it('keeps a filter-named region that is one of the source regions', () => {
    expect(region(['kfek-multi@eu-central-1'], { sourceRegions: ['eu-west-1', 'eu-central-1'] })).toBe(
      'eu-central-1',
    );
  });

  it('drops a filter-named region outside the source regions (the sending account chose the name)', () => {
    expect(
      region(['kfek-multi@us-east-1'], { sourceRegions: ['eu-west-1', 'eu-central-1'] }),
    ).toBeUndefined();
  });

  it('with one source region, every event is from it, whatever a filter says', () => {
    expect(region(['kfek-multi@us-east-1'], { sourceRegions: ['eu-west-1'] })).toBe('eu-west-1');
    expect(region([], { sourceRegions: ['eu-west-1'] })).toBe('eu-west-1');
  });

  it("trusts CloudWatch's own @aws.region (centralization)", () => {
    expect(
      region(
        ['kfek-multi@us-east-1'],
        { sourceRegions: ['eu-west-1', 'eu-central-1'] },
        { '@aws.region': 'ap-south-1' },
      ),
    ).toBe('ap-south-1');
  });

  it('transformRecord applies the source regions to every document', () => {
    const envelope = makeEnvelope({ subscriptionFilters: ['kfek-multi@us-east-1'] }, [
      { message: 'a' },
      { message: 'b' },
    ]);
    const outcome = transformRecord(encodeEnvelope(envelope), {
      sourceRegions: ['eu-west-1', 'eu-central-1'],
    });
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    const regions = outcome.documents.map((d) => (JSON.parse(d.json) as LogDocument).cloudwatch.region);
    expect(regions).toEqual([undefined, undefined]);
  });
});
