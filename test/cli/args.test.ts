import { USAGE, parseCliArgs, parseDuration, parseRate } from '../../cli/args';
import { UsageError } from '../../cli/errors';
import { ProgressBar } from '../../core/progress';
import { countRejected } from '../../cli/send';
import { formatTable } from '../../cli/format';
import { percentile } from '../../core/verify-stats';

describe('parseCliArgs', () => {
  test('send with defaults', () => {
    expect(parseCliArgs(['send', '--log-group', '/app'])).toEqual({
      command: 'send',
      logGroupName: '/app',
      count: 100,
      json: false,
    });
  });

  test('send with every option', () => {
    expect(
      parseCliArgs([
        'send',
        '--log-group=/app',
        '--count',
        '5000',
        '--rate',
        '200/s',
        '--run-id',
        'r-1',
        '--endpoint',
        'http://127.0.0.1:5000',
        '--region',
        'eu-west-1',
        '--seed',
        '3',
        '--json',
      ]),
    ).toEqual({
      command: 'send',
      logGroupName: '/app',
      count: 5000,
      ratePerSecond: 200,
      runId: 'r-1',
      endpoint: 'http://127.0.0.1:5000',
      region: 'eu-west-1',
      seed: 3,
      json: true,
    });
  });

  test('verify waits 5 minutes by default only when it knows how many to expect', () => {
    const once = parseCliArgs(['verify', '--run-id', 'r', '--opensearch', 'http://127.0.0.1:9200']);
    expect(once).toEqual(expect.objectContaining({ timeoutInMillis: 0, indexPattern: '*', sigv4: false }));
    const wait = parseCliArgs(['verify', '--run-id', 'r', '--expect', '10'], {
      KFEK_OPENSEARCH_URL: 'https://search.example.com',
    });
    expect(wait).toEqual(
      expect.objectContaining({
        expected: 10,
        timeoutInMillis: 300_000,
        openSearchUrl: 'https://search.example.com',
      }),
    );
  });

  test('query takes repeated log groups and a --since duration', () => {
    expect(
      parseCliArgs([
        'query',
        '--name',
        'errors-by-15m',
        '--log-group',
        'a',
        '--log-group',
        'b',
        '--since',
        '2d',
      ]),
    ).toEqual(
      expect.objectContaining({
        command: 'query',
        name: 'errors-by-15m',
        logGroupNames: ['a', 'b'],
        sinceInMillis: 2 * 86_400_000,
        timeoutInMillis: 120_000,
      }),
    );
  });

  test('help in every spelling', () => {
    for (const argv of [[], ['help'], ['--help'], ['-h'], ['help', 'frobnicate']]) {
      expect(parseCliArgs(argv)).toEqual({ command: 'help' });
    }
    for (const argv of [
      ['send', '--help'],
      ['send', '-h'],
      ['help', 'send'],
    ]) {
      expect(parseCliArgs(argv)).toEqual({ command: 'help', topic: 'send' });
    }
  });

  test.each([
    [['send'], /--log-group is required/],
    [['send', '--log-group', 'g', '--count', '0'], /--count "0" must be a whole number >= 1/],
    [['send', '--log-group', 'g', '--count', '1.5'], /--count/],
    [['send', '--log-group', 'g', '--rate', 'fast'], /--rate "fast"/],
    [['send', '--log-group', 'g', '--bogus'], /send: unknown option --bogus \(kfek send --help lists them\)/],
    [
      ['send', '--log-group', 'g', '--endpoint', 'localhost:5000'],
      /--endpoint "localhost:5000" is not an http\(s\) URL/,
    ],
    [['verify', '--run-id', 'r'], /--opensearch URL is required/],
    [['verify', '--opensearch', 'http://x'], /--run-id is required/],
    [['query'], /--name is required/],
    [['query', '--name', 'x', '--since', 'yesterday'], /--since "yesterday" is not a duration/],
    [['query', '--name', 'x', '--since', '0s'], /--since "0s" must be longer than 0: how far back to query/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ])('fails when %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });
});

describe('value parsers', () => {
  test('durations', () => {
    expect(parseDuration('90', '--t')).toBe(90_000);
    expect(parseDuration('500ms', '--t')).toBe(500);
    expect(parseDuration('15m', '--t')).toBe(900_000);
    expect(parseDuration('1.5h', '--t')).toBe(5_400_000);
  });

  test('rates', () => {
    expect(parseRate('50')).toBe(50);
    expect(parseRate('50/s')).toBe(50);
    expect(parseRate('3000/m')).toBe(50);
    expect(() => parseRate('0')).toThrow(UsageError);
  });

  test('countRejected reads inclusive end indexes and the tooNew start index', () => {
    expect(countRejected(undefined, 10)).toBe(0);
    expect(countRejected({ tooOldLogEventEndIndex: 2 }, 10)).toBe(3);
    expect(countRejected({ tooNewLogEventStartIndex: 8 }, 10)).toBe(2);
    expect(countRejected({ expiredLogEventEndIndex: 0, tooNewLogEventStartIndex: 9 }, 10)).toBe(2);
  });

  test('nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
  });

  test('formatTable aligns columns and flattens newlines', () => {
    expect(formatTable(['a', 'long'], [{ a: 'x\ny', long: '1' }, { a: 'zz' }])).toBe(
      ['a    long', '---  ----', 'x y  1', 'zz'].join('\n'),
    );
  });

  test('formatTable measures columns of any number of rows without a stack overflow', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ n: String(i) }));
    expect(formatTable(['n'], rows).split('\n')[1]).toBe('------');
  });
});

describe('ProgressBar', () => {
  test('redraws one line on a terminal', () => {
    const writes: string[] = [];
    let t = 0;
    const bar = new ProgressBar(
      { write: (s) => writes.push(s), isTTY: true, columns: 100 },
      {
        total: 10,
        label: 'send',
        now: () => t,
      },
    );
    t = 1000;
    bar.update(5);
    bar.finish();
    // \r returns to the line start and ESC [K clears the rest: one line redrawn in place.
    expect(writes[0].startsWith('\rsend [')).toBe(true);
    expect(writes[0].endsWith('] 5/10 50% 5/s\u001b[K')).toBe(true);
    expect(writes[0]).toMatch(/\[#+\.+\]/);
    expect(writes[writes.length - 1]).toBe('\n');
  });

  test('prints a plain line at the start and per 10% when not a terminal', () => {
    const writes: string[] = [];
    const bar = new ProgressBar(
      { write: (s) => writes.push(s) },
      { total: 100, label: 'send', now: () => 0 },
    );
    for (let i = 1; i <= 100; i++) bar.update(i);
    bar.finish();
    expect(writes).toHaveLength(11);
    expect(writes[10]).toBe('send 100/100 100% 0/s\n');
    expect(writes.every((w) => !w.includes('\r') && w.endsWith('\n'))).toBe(true);
  });
});

describe('parseCliArgs proxy', () => {
  test('defaults: port 9200 and the region read from an OpenSearch Service endpoint', () => {
    expect(parseCliArgs(['proxy', '--endpoint', 'search-logs-abc123.eu-west-1.es.amazonaws.com'])).toEqual({
      command: 'proxy',
      endpoint: 'search-logs-abc123.eu-west-1.es.amazonaws.com',
      region: 'eu-west-1',
      port: 9200,
    });
  });

  test('--region and --port win; AWS_REGION beats the host name', () => {
    expect(
      parseCliArgs([
        'proxy',
        '--endpoint=https://search-x.eu-west-1.es.amazonaws.com/_dashboards',
        '--port',
        '9300',
        '--region',
        'us-west-2',
      ]),
    ).toEqual(expect.objectContaining({ port: 9300, region: 'us-west-2' }));
    expect(
      parseCliArgs(['proxy', '--endpoint', 'search-x.eu-west-1.es.amazonaws.com'], {
        AWS_REGION: 'eu-central-1',
      }),
    ).toEqual(expect.objectContaining({ region: 'eu-central-1' }));
  });

  test('the memory and timeout limits: MiB, a count and durations', () => {
    // WHEN
    const args = parseCliArgs([
      'proxy',
      '--endpoint',
      'http://127.0.0.1:9201',
      '--max-buffered-mib',
      '512',
      '--max-bodies',
      '4',
      '--headers-timeout',
      '5s',
      '--request-timeout',
      '2m',
      '--upstream-timeout',
      '90',
    ]);

    // THEN
    expect(args).toEqual(
      expect.objectContaining({
        maxBufferedBytes: 512 * 1024 * 1024,
        maxConcurrentBodies: 4,
        headersTimeoutInMillis: 5000,
        requestTimeoutInMillis: 120_000,
        upstreamTimeoutInMillis: 90_000,
      }),
    );
  });

  test('a plain-http local endpoint needs no region', () => {
    expect(parseCliArgs(['proxy', '--endpoint', 'http://127.0.0.1:9201', '--port', '0'])).toEqual({
      command: 'proxy',
      endpoint: 'http://127.0.0.1:9201',
      port: 0,
    });
  });

  test.each([
    [['proxy'], /proxy: --endpoint is required/],
    [['proxy', '--endpoint', ''], /proxy: --endpoint is required/],
    [['proxy', '--endpoint', 'ftp://x.example.com'], /neither a host name nor an http\(s\) URL/],
    [['proxy', '--endpoint', 'h', '--port', 'abc'], /--port "abc" must be a whole number/],
    [['proxy', '--endpoint', 'h', '--port=-1'], /--port "-1" must be a whole number/],
    [['proxy', '--endpoint', 'h', '--port', '70000'], /--port "70000" is not a port \(0-65535\)/],
    [['proxy', '--endpoint', 'h', '--max-bodies', '0'], /--max-bodies "0" must be a whole number >= 1/],
    [['proxy', '--endpoint', 'h', '--max-buffered-mib', '99'], /--max-buffered-mib "99" .* at least 100/],
    [['proxy', '--endpoint', 'h', '--headers-timeout', 'soon'], /--headers-timeout "soon" is not a duration/],
    [
      ['proxy', '--endpoint', 'h', '--headers-timeout', '3m', '--request-timeout', '1m'],
      /--headers-timeout \(3m\) must not be longer than --request-timeout \(1m\)/,
    ],
    [
      ['proxy', '--endpoint', 'h', '--bogus'],
      /proxy: unknown option --bogus \(kfek proxy --help lists them\)/,
    ],
    [['proxy', '--endpoint', 'h', 'extra'], /proxy: .*positional/i],
  ])('fails when %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });

  test('the usage text documents proxy', () => {
    expect(parseCliArgs(['proxy', '--help'])).toEqual({ command: 'help', topic: 'proxy' });
    expect(USAGE).toMatch(/kfek proxy {2}--endpoint DOMAIN-ENDPOINT \[--port 9200\] \[--region R\]/);
  });
});
