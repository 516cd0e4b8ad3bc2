/**
 * PutLogEvents' batching rules, one owner for `kfek send` and the local runner's sender
 * (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html).
 */

/** Events per call at most. */
export const MAX_EVENTS_PER_CALL = 10_000;
/** Bytes per call: the sum of every message's UTF-8 size plus 26 bytes per event. */
export const MAX_BYTES_PER_CALL = 1_048_576;
export const EVENT_OVERHEAD_BYTES = 26;

/** What PutLogEvents counts for one event against MAX_BYTES_PER_CALL. */
export function putLogEventBytes(message: string | undefined): number {
  return Buffer.byteLength(message ?? '', 'utf8') + EVENT_OVERHEAD_BYTES;
}

/** Cuts the events a source yields, in order, into calls within PutLogEvents' byte limit. */
export class PutLogEventsBatcher<E extends { readonly message?: string }> {
  /** The event that did not fit the previous call (size limit) starts the next one. */
  private carried: E | undefined;

  /** @param next the next event, or undefined once the source is exhausted */
  constructor(private readonly next: () => E | undefined) {}

  /** At most `limit` events whose size fits one call; at least one unless the source is exhausted (then none). */
  take(limit: number): E[] {
    const batch: E[] = [];
    let bytes = 0;
    while (batch.length < limit) {
      const event = this.carried ?? this.next();
      if (event === undefined) break;
      const size = putLogEventBytes(event.message);
      if (bytes + size > MAX_BYTES_PER_CALL && batch.length > 0) {
        this.carried = event;
        break;
      }
      this.carried = undefined;
      batch.push(event);
      bytes += size;
    }
    return batch;
  }
}
