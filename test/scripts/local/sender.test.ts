/**
 * The local runner's PutLogEvents writer, against a mocked CloudWatch Logs client (what is checked here is the
 * order of calls and callbacks, which moto cannot show).
 */
import {
  CloudWatchLogsClient,
  CreateLogStreamCommand,
  PutLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { type SentLogEvent, sendLogEvents } from '../../../scripts/local/sender';

describe('sendLogEvents', () => {
  test('hands each call its events as soon as that call returns, with the time the call started', async () => {
    // GIVEN a client whose PutLogEvents calls are recorded in order with the callbacks
    const logs = new CloudWatchLogsClient({ region: 'eu-west-1' });
    const mock = mockClient(logs);
    const timeline: string[] = [];
    mock.on(CreateLogStreamCommand).resolves({});
    mock.on(PutLogEventsCommand).callsFake((input: { logEvents: unknown[] }) => {
      timeline.push(`put ${input.logEvents.length}`);
      return {};
    });
    const events = Array.from({ length: 5 }, (_, i) => ({
      logGroupName: '/g',
      logStreamName: 's',
      timestamp: 1_000 + i,
      message: `m${i}`,
    }));
    const batches: SentLogEvent[][] = [];

    // WHEN five events go out two per call
    const before = Date.now();
    const sent = await sendLogEvents(logs, events, {
      eventsPerCall: 2,
      onSent: (batch) => {
        timeline.push(`sent ${batch.length}`);
        batches.push([...batch]);
      },
    });

    // THEN each call's events are handed over right after it, and together they are what was sent
    expect(timeline).toEqual(['put 2', 'sent 2', 'put 2', 'sent 2', 'put 1', 'sent 1']);
    expect(batches.flat()).toEqual(sent);
    expect(batches.map((b) => b.map((e) => e.message))).toEqual([['m0', 'm1'], ['m2', 'm3'], ['m4']]);
    for (const batch of batches) expect(batch[0].putAt).toBeGreaterThanOrEqual(before);
    mock.restore();
  });
});
