/**
 * The shared factories other tests rely on: they must build what CloudWatch Logs and Lambda really send.
 */
import { gunzipSync } from 'node:zlib';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent, makeLogEvents } from '../../helpers/cloudwatch';

describe('test/helpers/cloudwatch', () => {
  it('makeLogEvents: 56-digit string ids and timestamps counting up', () => {
    const events = makeLogEvents(3, (i) => `m${i}`);
    expect(events.map((e) => e.message)).toEqual(['m0', 'm1', 'm2']);
    expect(events.every((e) => /^\d{56}$/.test(e.id))).toBe(true);
    expect(BigInt(events[2].id) - BigInt(events[0].id)).toBe(2n);
    expect(events[1].timestamp - events[0].timestamp).toBe(1);
  });

  it('makeEnvelope: completes partial events and applies overrides', () => {
    const envelope = makeEnvelope({ logGroup: '/g', policyLevel: 'ACCOUNT_LEVEL_POLICY' }, [
      { message: 'a' },
      { id: '7' },
    ]);
    expect(envelope).toMatchObject({
      messageType: 'DATA_MESSAGE',
      logGroup: '/g',
      policyLevel: 'ACCOUNT_LEVEL_POLICY',
    });
    expect(envelope.logEvents[0].message).toBe('a');
    expect(envelope.logEvents[1]).toMatchObject({ id: '7', message: 'log line 1' });
  });

  it('encodeEnvelope: gzip+base64 by default, plain base64 on request, text taken as is', () => {
    const envelope = makeEnvelope();
    const gz = Buffer.from(encodeEnvelope(envelope), 'base64');
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]);
    expect(JSON.parse(gunzipSync(gz).toString('utf8'))).toEqual(envelope);
    expect(Buffer.from(encodeEnvelope(envelope, { gzip: false }), 'base64').toString('utf8')).toBe(
      JSON.stringify(envelope),
    );
    expect(Buffer.from(encodeEnvelope('not json', { gzip: false }), 'base64').toString('utf8')).toBe(
      'not json',
    );
  });

  it('makeKinesisEvent: records in order, strictly increasing sequence numbers, realistic ids', () => {
    const event = makeKinesisEvent(['a', 'b', 'c'], { shardId: 'shardId-000000000002' });
    expect(event.Records.map((r) => r.kinesis.data)).toEqual(['a', 'b', 'c']);
    const sequences = event.Records.map((r) => BigInt(r.kinesis.sequenceNumber));
    expect(sequences[1] > sequences[0] && sequences[2] > sequences[1]).toBe(true);
    for (const r of event.Records) {
      expect(r.eventID).toBe(`shardId-000000000002:${r.kinesis.sequenceNumber}`);
      expect(r.eventSourceARN).toMatch(/^arn:aws:kinesis:[a-z0-9-]+:\d{12}:stream\//);
      expect(r.eventSource).toBe('aws:kinesis');
    }
  });
});
