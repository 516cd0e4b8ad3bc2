/**
 * `cloudwatch.region` of records that came through a kfek cross-account destination: the envelope names the
 * matching subscription filter, which kfek's source stacks call `<stem>@<region>` (docs/multi-account.md).
 */
import { referenceParsed } from '../../helpers/reference-document';
import { regionFromSubscriptionFilters } from '../../../core/contracts/cross-account-naming';
import { transformRecord } from '../../../core/transform/transform';
import type { LogDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope, makeLogEvents } from '../../helpers/cloudwatch';

function documentsOf(envelope: ReturnType<typeof makeEnvelope>): LogDocument[] {
  const outcome = transformRecord(encodeEnvelope(envelope));
  if (outcome.kind !== 'data') throw new Error(outcome.kind);
  return outcome.documents.map((d) => JSON.parse(d.json) as LogDocument);
}

describe('cloudwatch.region from a source stack subscription filter', () => {
  test('every document of an envelope through kfek-multi@us-east-1 carries region us-east-1 and the source owner', () => {
    // GIVEN a plain line, a JSON line and an event with a colliding app field (the general path)
    const events = [
      { message: 'plain line' },
      { message: JSON.stringify({ message: 'json', user: 'a' }) },
      { message: JSON.stringify({ cloudwatch: 'mine' }) },
    ];
    const envelope = makeEnvelope(
      { owner: '222233334444', subscriptionFilters: ['kfek-multi@us-east-1'] },
      events,
    );
    // WHEN
    const docs = documentsOf(envelope);
    // THEN
    expect(docs.map((d) => d.cloudwatch.region)).toEqual(['us-east-1', 'us-east-1', 'us-east-1']);
    expect(docs.map((d) => d.cloudwatch.owner)).toEqual(['222233334444', '222233334444', '222233334444']);
  });

  test("the serializer writes the reference model's document (region included)", () => {
    // GIVEN
    const envelope = makeEnvelope({
      subscriptionFilters: ['kfek-multi@eu-west-1'],
      logEvents: makeLogEvents(2),
    });
    // WHEN
    const [fast] = documentsOf(envelope);
    // THEN
    expect(fast).toEqual(referenceParsed(envelope.logEvents[0], envelope));
    expect(fast.cloudwatch.region).toBe('eu-west-1');
  });

  test('an extracted @aws.region wins over the filter name', () => {
    // GIVEN
    const envelope = makeEnvelope({
      subscriptionFilters: ['kfek-multi@us-east-1'],
      logEvents: [
        {
          ...makeLogEvents(1)[0],
          extractedFields: { '@aws.region': 'eu-central-1', '@aws.account': '333344445555' },
        },
      ],
    });
    // WHEN
    const [doc] = documentsOf(envelope);
    // THEN
    expect(doc.cloudwatch).toMatchObject({ region: 'eu-central-1', account: '333344445555' });
  });

  test('filters that are not kfek source-stack filters give no region', () => {
    // GIVEN the default factory filter, and names that only look similar
    const envelope = makeEnvelope({ subscriptionFilters: ['kfek-test-filter'] });
    // WHEN
    const [doc] = documentsOf(envelope);
    // THEN
    expect(doc.cloudwatch.region).toBeUndefined();
    expect(regionFromSubscriptionFilters(['@us-east-1', 'a@not-a-region', 'x@us-east', 42])).toBeUndefined();
    expect(regionFromSubscriptionFilters(['other', 'kfek-multi@ap-southeast-2'])).toBe('ap-southeast-2');
  });
});
