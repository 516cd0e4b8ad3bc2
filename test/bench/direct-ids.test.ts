/**
 * The time-ordered id bench:direct-cpu measures (bench/direct-ids.ts): ordered by time as OpenSearch stores it (the
 * bytes a base64url `_id` encodes), a pure function of the event, and routed as today's id of the same event.
 */
import { timeOrderedIdFor, timeOrderedRoutingFor } from '../../bench/direct-ids';
import { documentIdFor, routingFor } from '../../core/opensearch/ingest-pipeline';

describe('time-ordered document id (experiment)', () => {
  test('orders by timestamp as stored bytes, whatever the hash, and keeps the hash bytes after the time', () => {
    // GIVEN events a millisecond to years apart, in many streams
    const times = [0, 1, 255, 256, 2 ** 40, 1_795_968_211_834, 1_795_968_211_835, 2 ** 48 - 1];
    // WHEN
    const ids = times.map((t, i) =>
      timeOrderedIdFor(t, '/aws/lambda/a', `stream-${(i * 7919) % 13}`, `${i}`),
    );
    // THEN
    const stored = ids.map((id) => Buffer.from(id, 'base64url'));
    for (let i = 1; i < stored.length; i += 1) expect(Buffer.compare(stored[i - 1], stored[i])).toBe(-1);
    ids.forEach((id, i) => {
      expect(id).toHaveLength(24);
      const hash = documentIdFor('/aws/lambda/a', `stream-${(i * 7919) % 13}`, `${i}`);
      expect(id.slice(8)).toBe(hash);
      expect(Buffer.from(id, 'base64url').readUIntBE(0, 6)).toBe(times[i]);
    });
  });

  test("is the same for every copy of an event, and is routed as today's id of the event", () => {
    // GIVEN
    const id = timeOrderedIdFor(
      1_795_968_211_834,
      'g',
      's',
      '39494971786919662926967737244165955921131981322179969024',
    );
    // THEN
    expect(
      timeOrderedIdFor(
        1_795_968_211_834,
        'g',
        's',
        '39494971786919662926967737244165955921131981322179969024',
      ),
    ).toBe(id);
    const today = documentIdFor('g', 's', '39494971786919662926967737244165955921131981322179969024');
    expect(timeOrderedRoutingFor(id)).toBe(routingFor(today));
    expect(timeOrderedRoutingFor(id, 128)).toBe(routingFor(today, 128));
  });

  test.each([-1, 1.5, 2 ** 48, Number.NaN])('fails when the timestamp is %p', (t) => {
    // WHEN / THEN
    expect(() => timeOrderedIdFor(t, 'g', 's', '1')).toThrow(
      /non-negative integer of milliseconds below 2\^48, got/,
    );
  });
});
