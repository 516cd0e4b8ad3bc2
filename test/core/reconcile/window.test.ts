/**
 * What `kfek reconcile` refuses to judge, and what it says when OpenSearch does not answer: a window with nothing
 * older than the lag is a bad command line (exit 2), never `missing 0`; an unreachable node is one line naming the
 * URL and what to check; kept data is read for the whole judged window (from the start of `--since`'s minute).
 */
import { run } from '../../../cli/main';
import { OpenSearchRequestError } from '../../../core/errors';
import { createHttpClient } from '../../../core/opensearch/http';
import { MINUTE_MILLIS, reconcile } from '../../../core/reconcile/engine';
import { UnjudgeableWindowError } from '../../../core/reconcile/errors';
import { keptStems } from '../../../core/reconcile/kept-stems';
import { RequestMeter } from '../../../core/reconcile/ports';
import { searchSide } from '../../../core/reconcile/search-side';
import { keptSince } from '../../../core/reconcile/service';
import { GROUP, T0, World, event } from '../../helpers/reconcile-fakes';

const HOUR = 60 * MINUTE_MILLIS;
const DAY = 24 * HOUR;

describe('the judged window', () => {
  test.each([
    ['wholly in the future', T0 + 2 * HOUR + DAY, T0 + 2 * HOUR + 2 * DAY],
    ['starting now', T0 + 2 * HOUR, T0 + 3 * HOUR],
    ['ending within the lag', T0 + 2 * HOUR - 3 * MINUTE_MILLIS, T0 + 2 * HOUR - MINUTE_MILLIS],
  ])('fails when the window is %s: exit 2, not missing 0', async (_, since, until) => {
    // GIVEN a world whose clock reads T0 + 2 h, with a lag of 5 minutes
    const world = new World();
    world.now = T0 + 2 * HOUR;
    world.write(GROUP, [event('a', 60)]);

    // WHEN
    const run = reconcile({ groups: [GROUP], since, until, lagInMillis: 5 * MINUTE_MILLIS }, world.ports());

    // THEN nothing was counted, and the refusal says why and when the window can be judged
    await expect(run).rejects.toThrow(UnjudgeableWindowError);
    await expect(run).rejects.toThrow(/has nothing to judge: .* run again after \d{4}-/);
    await expect(run).rejects.toMatchObject({ exitCode: 2 });
    expect(world.meter.snapshot()).toEqual({ cloudWatch: 0, openSearch: 0, kept: 0, kinesis: 0 });
  });

  test('fails when the window is in the future: one line, exit 2, before any call', async () => {
    // GIVEN --since +1d --until +2d, against endpoints that answer nothing
    const now = Date.now();
    let stdout = '';
    let stderr = '';

    // WHEN
    const code = await run(
      [
        'reconcile',
        '--since',
        new Date(now + DAY).toISOString(),
        '--until',
        new Date(now + 2 * DAY).toISOString(),
        '--endpoint',
        'http://127.0.0.1:2',
        '--opensearch',
        'http://127.0.0.1:2',
      ],
      {
        stdout: { write: (t: string) => (stdout += t) },
        stderr: { write: (t: string) => (stderr += t) },
        env: {},
      },
    );

    // THEN
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^kfek: reconcile: the window .* has nothing to judge/),
    ]);
  });
});

describe('OpenSearch unreachable', () => {
  test('fails when nothing answers with one line naming the URL (without its password) and what to check', async () => {
    // GIVEN a closed port, with basic-auth credentials in the URL
    const client = createHttpClient({ baseUrl: 'http://admin:s3cret@127.0.0.1:2', maxAttempts: 1 });
    const side = searchSide({ client, stems: ['logs'], rotation: 'OneDay', meter: new RequestMeter() });

    // WHEN
    const counting = side.countPerMinute([GROUP], T0, T0 + MINUTE_MILLIS);

    // THEN
    await expect(counting).rejects.toThrow(OpenSearchRequestError);
    const error = (await counting.catch((e: unknown) => e)) as Error;
    expect(error.message.split('\n')).toHaveLength(1);
    expect(error.message).toMatch(
      /OpenSearch at http:\/\/127\.0\.0\.1:2 did not answer .*check --opensearch/,
    );
    expect(error.message).not.toMatch(/s3cret|fetch failed|TypeError/);
  });

  test('fails when nothing answers the first request of a run (the read of the kept stems) with the same line', async () => {
    const client = createHttpClient({ baseUrl: 'http://admin:s3cret@127.0.0.1:2', maxAttempts: 1 });
    const reading = keptStems({ client, meter: new RequestMeter(), current: ['logs'] });
    await expect(reading).rejects.toThrow(OpenSearchRequestError);
    await expect(reading).rejects.toThrow(/^reconcile: OpenSearch at http:\/\/127\.0\.0\.1:2 did not answer/);
  });
});

describe('kept data', () => {
  test("is read from the start of --since's minute (less what an event may run ahead), not from --since", () => {
    // GIVEN --since 40 s into a minute
    const since = T0 + 40_000;

    // WHEN
    const from = keptSince(since);

    // THEN a failed document written in the first seconds of that minute is read
    expect(from).toBeLessThanOrEqual(T0);
    expect(from).toBe(T0 - 2 * HOUR);
  });
});
