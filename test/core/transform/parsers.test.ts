/**
 * The layout parsers, one by one, with lines as the runtimes print them and near misses that must
 * stay plain text; plus pathological inputs that must not make a regex backtrack for long.
 */
import { parseMessage, stripOneNewline } from '../../../core/transform/parsers';
import { parsePlatformJson, parsePlatformText } from '../../../core/transform/parsers/platform';
import {
  isoEnd,
  parseLog4jLine,
  parseNodeLine,
  parsePythonLine,
} from '../../../core/transform/parsers/runtime';

const REQUEST_ID = '06e46194-f277-454e-88d3-1dd7e3860eaa';

describe('stripOneNewline', () => {
  it.each([
    ['text\n', 'text'],
    ['text\r\n', 'text'],
    ['text\n\n', 'text\n'],
    ['text', 'text'],
    ['\n', ''],
    ['', ''],
    ['text\r', 'text\r'],
  ])('%j -> %j', (input, output) => {
    expect(stripOneNewline(input)).toBe(output);
  });
});

describe('Lambda platform lines, text format', () => {
  it('START with version', () => {
    expect(parsePlatformText(`START RequestId: ${REQUEST_ID} Version: $LATEST`)).toEqual({
      type: 'platform.start',
      requestId: REQUEST_ID,
      version: '$LATEST',
    });
  });

  it('END', () => {
    expect(parsePlatformText(`END RequestId: ${REQUEST_ID}`)).toEqual({
      type: 'platform.end',
      requestId: REQUEST_ID,
    });
  });

  it('REPORT, tab-separated, cold start, with the X-Ray line', () => {
    const line =
      `REPORT RequestId: ${REQUEST_ID}\tDuration: 9.14 ms\tBilled Duration: 10 ms\tMemory Size: 128 MB\t` +
      'Max Memory Used: 36 MB\tInit Duration: 190.62 ms\t\nXRAY TraceId: 1-636d1462-33ef10600061cad86dab71c8\tSegmentId: 7ccb4860675ee485\tSampled: true\t';
    expect(parsePlatformText(line)).toEqual({
      type: 'platform.report',
      requestId: REQUEST_ID,
      durationMs: 9.14,
      billedDurationMs: 10,
      memorySizeMb: 128,
      maxMemoryUsedMb: 36,
      initDurationMs: 190.62,
      xrayTraceId: '1-636d1462-33ef10600061cad86dab71c8',
    });
  });

  it('REPORT, space-separated (as some tools copy it)', () => {
    expect(
      parsePlatformText(
        `REPORT RequestId: ${REQUEST_ID} Duration: 0.81 ms  Billed Duration: 100 ms Memory Size: 128 MB Max Memory Used: 90 MB  Init Duration: 1234 ms`,
      ),
    ).toEqual({
      type: 'platform.report',
      requestId: REQUEST_ID,
      durationMs: 0.81,
      billedDurationMs: 100,
      memorySizeMb: 128,
      maxMemoryUsedMb: 90,
      initDurationMs: 1234,
    });
  });

  it('REPORT with SnapStart restore durations and a status', () => {
    expect(
      parsePlatformText(
        `REPORT RequestId: ${REQUEST_ID}\tDuration: 2338.66 ms\tBilled Duration: 2521 ms\tMemory Size: 3009 MB\tMax Memory Used: 173 MB\tRestore Duration: 398.97 ms\tBilled Restore Duration: 182 ms\tStatus: timeout`,
      ),
    ).toMatchObject({
      restoreDurationMs: 398.97,
      billedRestoreDurationMs: 182,
      status: 'timeout',
      durationMs: 2338.66,
    });
  });

  it('INIT_START with runtime version and ARN, tab- or space-separated', () => {
    const arn = 'arn:aws:lambda:us-east-1::runtime:f89c';
    const expected = { type: 'platform.initStart', runtimeVersion: 'nodejs:18.v30', runtimeVersionArn: arn };
    expect(
      parsePlatformText(`INIT_START Runtime Version: nodejs:18.v30\tRuntime Version ARN: ${arn}`),
    ).toEqual(expected);
    expect(
      parsePlatformText(`INIT_START Runtime Version: nodejs:18.v30 Runtime Version ARN: ${arn}`),
    ).toEqual(expected);
  });

  it('INIT_REPORT with an error', () => {
    expect(
      parsePlatformText(
        'INIT_REPORT Init Duration: 1234.56 ms\tPhase: init\tStatus: error\tError Type: Runtime.ExitError',
      ),
    ).toEqual({
      type: 'platform.initReport',
      initDurationMs: 1234.56,
      status: 'error',
      errorType: 'Runtime.ExitError',
    });
  });

  it.each([
    'REPORT invalid report log line',
    'REPORT Duration: 1 ms',
    'START',
    'STARTED RequestId: x',
    'LOGS Name: cloudwatch_lambda_agent State: Subscribed Types: [Platform]',
    'Reporting: nothing',
  ])('%j is not a platform line', (line) => {
    expect(parsePlatformText(line)).toBeUndefined();
  });

  it('a non-numeric duration is left out rather than made NaN', () => {
    expect(parsePlatformText(`REPORT RequestId: ${REQUEST_ID}\tDuration: fast ms`)).toEqual({
      type: 'platform.report',
      requestId: REQUEST_ID,
    });
  });
});

describe('Lambda platform events, JSON format', () => {
  it('platform.report with every metric', () => {
    expect(
      parsePlatformJson({
        time: '2024-10-04T00:36:35.800Z',
        type: 'platform.report',
        record: {
          requestId: REQUEST_ID,
          metrics: {
            durationMs: 0.81,
            billedDurationMs: 100,
            memorySizeMB: 128,
            maxMemoryUsedMB: 90,
            initDurationMs: 1234,
            restoreDurationMs: 12,
            billedRestoreDurationMs: 10,
          },
          tracing: { type: 'X-Amzn-Trace-Id', value: 'Root=1-5e1b4151-5ac6c58f;Parent=1;Sampled=1' },
          status: 'timeout',
          errorType: 'Sandbox.Timedout',
        },
      }),
    ).toEqual({
      type: 'platform.report',
      requestId: REQUEST_ID,
      durationMs: 0.81,
      billedDurationMs: 100,
      memorySizeMb: 128,
      maxMemoryUsedMb: 90,
      initDurationMs: 1234,
      restoreDurationMs: 12,
      billedRestoreDurationMs: 10,
      status: 'timeout',
      errorType: 'Sandbox.Timedout',
      xrayTraceId: '1-5e1b4151-5ac6c58f',
    });
  });

  it('platform.start and platform.runtimeDone', () => {
    expect(
      parsePlatformJson({ type: 'platform.start', record: { requestId: REQUEST_ID, version: '$LATEST' } }),
    ).toEqual({
      type: 'platform.start',
      requestId: REQUEST_ID,
      version: '$LATEST',
    });
    expect(
      parsePlatformJson({
        type: 'platform.runtimeDone',
        record: { requestId: REQUEST_ID, status: 'success', metrics: { durationMs: 12.5, producedBytes: 0 } },
      }),
    ).toEqual({ type: 'platform.runtimeDone', requestId: REQUEST_ID, status: 'success', durationMs: 12.5 });
  });

  it('platform.initReport: its durationMs is the init duration', () => {
    expect(
      parsePlatformJson({
        type: 'platform.initReport',
        record: { phase: 'init', status: 'success', metrics: { durationMs: 463.5 } },
      }),
    ).toEqual({ type: 'platform.initReport', status: 'success', initDurationMs: 463.5 });
  });

  it.each([
    [{ type: 'platform.report' }],
    [{ type: 'platform.report', record: [] }],
    [{ type: 'function', record: {} }],
    [{ type: 7, record: {} }],
    [{ level: 'INFO', message: 'x' }],
  ])('%j is not a platform event', (obj) => {
    expect(parsePlatformJson(obj)).toBeUndefined();
  });

  it('ignores metrics of the wrong type', () => {
    expect(
      parsePlatformJson({
        type: 'platform.report',
        record: { requestId: 5, metrics: { durationMs: '5', memorySizeMB: null } },
      }),
    ).toEqual({ type: 'platform.report' });
  });
});

describe('isoEnd', () => {
  it.each([
    ['2024-10-21T14:28:15.158Z rest', 24],
    ['2020-04-09T17:35:02.42Z', 23],
    ['2020-04-09T17:35:02Z', 20],
    ['2020-04-09T17:35:02.123456789Z', 30],
    ['2020-04-09 17:35:02.123Z', -1],
    ['2020-04-09T17:35:02.Z', -1],
    ['2020-04-09T17:35:02.123+01:00', -1],
    ['2020-04-09', -1],
  ])('%j -> %d', (text, end) => {
    expect(isoEnd(text, 0)).toBe(end);
  });
});

describe('Node.js runtime prefix', () => {
  it('<iso>\\t<requestId>\\t<LEVEL>\\t<text>', () => {
    expect(parseNodeLine(`2024-10-21T14:28:15.158Z\t${REQUEST_ID}\tINFO\tHello from other.ts`)).toEqual({
      message: 'Hello from other.ts',
      derived: { level: 'INFO', lambda: { requestId: REQUEST_ID } },
    });
  });

  it('keeps a multi-line message whole', () => {
    const text = 'ENVIRONMENT VARIABLES\n{\n  "A": "1"\n}';
    expect(parseNodeLine(`2019-06-07T19:11:20.562Z\t${REQUEST_ID}\tERROR\t${text}`)?.message).toBe(text);
  });

  it('leaves out the request id outside an invocation (`undefined`)', () => {
    expect(parseNodeLine('2024-10-21T14:28:15.158Z\tundefined\tWARN\tinit warning')).toEqual({
      message: 'init warning',
      derived: { level: 'WARN' },
    });
  });

  it("the runtime's own space-separated timeout line", () => {
    expect(parseNodeLine(`2020-06-09T15:02:26.150Z ${REQUEST_ID} Task timed out after 3.00 seconds`)).toEqual(
      {
        message: 'Task timed out after 3.00 seconds',
        derived: { lambda: { requestId: REQUEST_ID } },
      },
    );
  });

  it.each([
    '2024-10-21T14:28:15.158Z just text',
    `2024-10-21T14:28:15.158Z\t${REQUEST_ID}\tinfo\tlower-case level`,
    `2024-10-21T14:28:15.158Z\t${REQUEST_ID}\tINFORMATIONAL\ttoo long`,
    `2024-10-21T14:28:15.158Z\t${REQUEST_ID} no second tab`,
    `2024-10-21T14:28:15.158Z\tspace in id\tINFO\tx`,
    '2024-10-21 14:28:15 something',
  ])('%j is not a Node line', (line) => {
    expect(parseNodeLine(line)).toBeUndefined();
  });
});

describe('Python runtime prefix', () => {
  it('[LEVEL]\\t<iso>\\t<requestId>\\t<text>, 2-digit fraction', () => {
    expect(
      parsePythonLine(`[INFO]\t2020-04-09T17:35:02.42Z\t${REQUEST_ID}\tHandling spot instance interruption`),
    ).toEqual({
      message: 'Handling spot instance interruption',
      derived: { level: 'INFO', lambda: { requestId: REQUEST_ID } },
    });
  });

  it('with an empty request id (logged during init)', () => {
    expect(
      parsePythonLine('[WARNING]\t2026-05-02T21:55:11.504Z\t\tFound credentials in environment variables.'),
    ).toEqual({
      message: 'Found credentials in environment variables.',
      derived: { level: 'WARNING' },
    });
  });

  it('keeps a traceback whole', () => {
    const text =
      'boom\nTraceback (most recent call last):\n  File "/var/task/app.py", line 3, in handler\nValueError: x';
    expect(parsePythonLine(`[ERROR]\t2026-05-02T21:55:11.504Z\t${REQUEST_ID}\t${text}`)?.message).toBe(text);
  });

  it.each([
    '[INFO] not tab separated',
    '[info]\t2026-05-02T21:55:11.504Z\t\tx',
    '[INFO]\tyesterday\t\tx',
    '[1, 2, 3]',
    '[]',
  ])('%j is not a Python line', (line) => {
    expect(parsePythonLine(line)).toBeUndefined();
  });
});

describe('Log4J default pattern', () => {
  it('timestamp LEVEL [thread] logger - text', () => {
    expect(parseLog4jLine('2022-12-24 08:24:38,929 DEBUG [main] com.example.App - starting up')).toEqual({
      message: 'starting up',
      derived: { level: 'DEBUG', thread: 'main', logger: 'com.example.App' },
    });
  });

  it('padded level, thread with spaces, and a stack trace that stays in the message', () => {
    const trace = 'failed\njava.lang.IllegalStateException: x\n\tat com.example.App.run(App.java:10)';
    expect(parseLog4jLine(`2022-12-24 08:24:38,929 INFO  [pool-1 thread-2] App - ${trace}`)).toEqual({
      message: trace,
      derived: { level: 'INFO', thread: 'pool-1 thread-2', logger: 'App' },
    });
  });

  it.each([
    '2022-12-24 08:24:38,929 DEBUG main com.example.App - no brackets',
    '2022-12-24 08:24:38 DEBUG [main] com.example.App - no millis',
    '2022-12-24 08:24:38,929 DEBUG [main] com.example.App no dash',
    '2022-12-24T08:24:38,929 DEBUG [main] x - y',
  ])('%j is not a Log4J line', (line) => {
    expect(parseLog4jLine(line)).toBeUndefined();
  });
});

describe('parseMessage', () => {
  it('JSON object: fields, message from its string message field', () => {
    expect(parseMessage('{"level":"INFO","message":"hi","n":1}\n')).toEqual({
      message: 'hi',
      appFields: { level: 'INFO', message: 'hi', n: 1 },
      messageFromApp: true,
      appText: '{"level":"INFO","message":"hi","n":1}',
      appTextClose: 36,
    });
  });

  it('JSON object without a string message: the original text (newline removed) is the message', () => {
    expect(parseMessage('{"message":{"a":1}}\n')).toEqual({
      message: '{"message":{"a":1}}',
      appFields: { message: { a: 1 } },
      messageFromApp: false,
      appText: '{"message":{"a":1}}',
      appTextClose: 18,
    });
  });

  it('JSON platform event: fields plus lambda', () => {
    const parsed = parseMessage(`{"type":"platform.start","record":{"requestId":"${REQUEST_ID}"}}`);
    expect(parsed.derived).toEqual({ lambda: { type: 'platform.start', requestId: REQUEST_ID } });
    expect(parsed.appFields).toEqual({ type: 'platform.start', record: { requestId: REQUEST_ID } });
  });

  it.each(['[1,2,3]', '"quoted"', '42', 'null', '{"broken": ', '{"a":1} trailing', '{ not json }'])(
    '%j stays text',
    (text) => {
      expect(parseMessage(text)).toEqual({ message: text });
    },
  );

  it('dispatches to the runtime parsers', () => {
    expect(parseMessage(`[INFO]\t2020-04-09T17:35:02.42Z\t${REQUEST_ID}\tpy\n`).derived?.level).toBe('INFO');
    expect(parseMessage(`2024-10-21T14:28:15.158Z\t${REQUEST_ID}\tERROR\tnode\n`).derived?.level).toBe(
      'ERROR',
    );
    expect(parseMessage('2022-12-24 08:24:38,929 WARN [t] l - j\n').derived).toEqual({
      level: 'WARN',
      thread: 't',
      logger: 'l',
    });
    expect(parseMessage(`END RequestId: ${REQUEST_ID}\n`).derived?.lambda?.type).toBe('platform.end');
    expect(parseMessage('plain words\n')).toEqual({ message: 'plain words' });
    expect(parseMessage('')).toEqual({ message: '' });
  });
});

describe('pathological inputs finish quickly (no regex backtracking blow-up)', () => {
  const n = 200_000;
  it.each([
    ['REPORT with repeated labels', `REPORT ${'RequestId: '.repeat(n)}`],
    ['REPORT with repeated separators', `REPORT RequestId: x${'\t '.repeat(n)}Duration:`],
    ['REPORT with long values', `REPORT RequestId: ${'9'.repeat(n * 5)}`],
    ['Log4J prefix with an endless thread', `2022-12-24 08:24:38,929 DEBUG [${'a'.repeat(n * 5)}`],
    ['Log4J prefix with an endless logger', `2022-12-24 08:24:38,929 DEBUG [t] ${'a'.repeat(n * 5)} -x`],
    ['Log4J prefix with endless padding', `2022-12-24 08:24:38,929 ${' '.repeat(n * 5)}x`],
    ['Node prefix with endless tabs', `2024-10-21T14:28:15.158Z${'\t'.repeat(n * 5)}`],
    ['Python prefix with endless brackets', `[${'['.repeat(n * 5)}`],
    ['JSON-looking text that is not JSON', `{${'"a":'.repeat(n)}}`],
    ['deeply nested JSON-looking text', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`],
    ['tracing value', `{"type":"platform.report","record":{"tracing":{"value":"${'Root=;'.repeat(n)}"}}}`],
  ])('%s', (_name, text) => {
    // A guard against super-linear backtracking, not a speed target (those live in npm run bench): at 200,000
    // repetitions a quadratic pattern needs minutes, a linear parse milliseconds, so 10 s separates them even on a
    // machine busy enough to make a 1 s bound flaky.
    const started = Date.now();
    expect(() => parseMessage(text)).not.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
