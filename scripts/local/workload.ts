/** The log events of one local run (`npm start`, `npm run bench:e2e`). */
import { generateEvents } from '../../core/log-generator';
import type { OutgoingLogEvent } from './sender';

/**
 * The events of one run: issue 6's generator for the content, spread over the config's log groups and a few
 * streams per group named after the run (the summary finds the run's documents by those names), timestamps
 * spread over the last 45 minutes so the error histogram has several 15-minute bins, distinct within a stream.
 */
export function runEvents(
  runId: string,
  count: number,
  logGroups: readonly string[],
  streamsPerGroup: number,
  now: number,
): OutgoingLogEvent[] {
  const spanInMillis = 45 * 60_000;
  const step = Math.max(1, Math.floor(spanInMillis / count));
  const start = now - step * count;
  const generated = generateEvents(count, { runId, seed: 7 }, (i) => start + i * step);
  const targets = logGroups.flatMap((group) =>
    Array.from({ length: streamsPerGroup }, (_, n) => ({ group, stream: `kfek-local/${runId}/${n}` })),
  );
  return generated.map((event, i) => {
    const target = targets[i % targets.length];
    return {
      logGroupName: target.group,
      logStreamName: target.stream,
      timestamp: event.timestamp,
      message: event.message,
    };
  });
}
