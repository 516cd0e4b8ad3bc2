import {
  EVENT_OVERHEAD_BYTES,
  MAX_BYTES_PER_CALL,
  PutLogEventsBatcher,
  putLogEventBytes,
} from '../../../core/logs/put-batch';

function source(messages: readonly string[]): () => { readonly message: string } | undefined {
  let next = 0;
  return () => (next < messages.length ? { message: messages[next++] } : undefined);
}

describe('PutLogEventsBatcher', () => {
  test('counts UTF-8 bytes plus the per-event overhead', () => {
    expect(putLogEventBytes('é')).toBe(2 + EVENT_OVERHEAD_BYTES);
    expect(putLogEventBytes(undefined)).toBe(EVENT_OVERHEAD_BYTES);
  });

  test('cuts by count, then returns nothing once the source is exhausted', () => {
    // GIVEN five small events
    const batcher = new PutLogEventsBatcher(source(['a', 'b', 'c', 'd', 'e']));
    // WHEN taking two at a time
    const batches = [batcher.take(2), batcher.take(2), batcher.take(2), batcher.take(2)];
    // THEN the order is kept and the last take is empty
    expect(batches.map((b) => b.map((e) => e.message).join(''))).toEqual(['ab', 'cd', 'e', '']);
  });

  test('carries the event that would overflow the byte limit into the next call', () => {
    // GIVEN events of a third of the limit each (so only two fit one call)
    const third = 'x'.repeat(Math.floor(MAX_BYTES_PER_CALL / 3));
    const batcher = new PutLogEventsBatcher(source([third, third, third, 'tail']));
    // WHEN taking up to 10 per call
    const first = batcher.take(10);
    const second = batcher.take(10);
    // THEN each call fits the limit and no event is lost
    expect(first).toHaveLength(2);
    expect(second.map((e) => e.message)).toEqual([third, 'tail']);
    for (const batch of [first, second]) {
      expect(batch.reduce((sum, e) => sum + putLogEventBytes(e.message), 0)).toBeLessThanOrEqual(
        MAX_BYTES_PER_CALL,
      );
    }
  });

  test('sends one oversized event alone rather than never', () => {
    const huge = 'x'.repeat(MAX_BYTES_PER_CALL);
    const batcher = new PutLogEventsBatcher(source([huge, 'a']));
    expect(batcher.take(10).map((e) => e.message.length)).toEqual([MAX_BYTES_PER_CALL]);
    expect(batcher.take(10).map((e) => e.message)).toEqual(['a']);
  });
});
