/**
 * Bad input the hostile review of issue 22 found, one test each, with the exact line kfek prints. The generated
 * sweep over every option (bad-input-sweep.test.ts) holds the general rule; these say what each message is.
 */
import { parseCliArgs } from '../../cli/args';
import { UsageError } from '../../cli/errors';
import { runKfek } from '../helpers/cli-run';

const kfek = runKfek;

const USAGE_HINT = ' (run `kfek help` for usage)\n';

describe('regions', () => {
  test.each([
    ['send', '--log-group', 'g'],
    ['query', '--name', 'latest-errors', '--log-group', 'g'],
  ])(
    'fails with one line when %s gets an empty --region (the SDK threw "Region is missing" with a stack)',
    async (...argv) => {
      const { code, out, err } = await kfek([...argv, '--region', '', '--endpoint', 'http://127.0.0.1:2']);
      expect({ code, out, err }).toEqual({
        code: 2,
        out: '',
        err: `kfek: --region "" is not an AWS region such as us-east-1${USAGE_HINT}`,
      });
    },
  );

  test('fails when --region is not a region name, on every command that takes one', () => {
    for (const argv of [
      ['send', '--log-group', 'g'],
      ['verify', '--run-id', 'r', '--opensearch', 'http://127.0.0.1:2'],
      ['proxy', '--endpoint', 'http://127.0.0.1:2'],
      ['doctor'],
    ]) {
      expect(() => parseCliArgs([...argv, '--region', 'US East'])).toThrow(
        new UsageError('--region "US East" is not an AWS region such as us-east-1'),
      );
    }
    expect(parseCliArgs(['doctor', '--region', 'us-gov-west-1'])).toEqual(
      expect.objectContaining({ region: 'us-gov-west-1' }),
    );
  });

  test('an empty AWS_REGION is no region: kfek says to set one, in one line', async () => {
    // GIVEN AWS_REGION= (set, empty) for kfek and for the SDK, which reads the process environment itself
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_REGION: '',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_CONFIG_FILE: '/no/such/aws-config',
    });
    delete process.env.AWS_DEFAULT_REGION;
    delete process.env.AWS_PROFILE;
    delete process.env.AWS_ENDPOINT_URL;
    try {
      // WHEN
      const { code, err } = await kfek(['send', '--log-group', 'g', '--count', '1'], { AWS_REGION: '' });
      // THEN
      expect({ code, err }).toEqual({
        code: 1,
        err: 'kfek: No AWS region set: pass --region or set AWS_REGION (any region works against a local endpoint).\n',
      });
    } finally {
      process.env = saved;
    }
  });
});

describe('URLs', () => {
  test('fails with one line when user:password in --opensearch has a broken %-escape (a URIError with a stack)', async () => {
    const { code, err } = await kfek(['verify', '--run-id', 'r', '--opensearch', 'http://u:%zz@127.0.0.1:2']);
    expect({ code, err }).toEqual({
      code: 2,
      err:
        'kfek: --opensearch "http://u:%zz@127.0.0.1:2" has a user name or password with a broken %-escape ' +
        `(write % as %25)${USAGE_HINT}`,
    });
  });

  test('fails when --opensearch has a query or a fragment, which the search path would be appended to', () => {
    expect(() => parseCliArgs(['verify', '--run-id', 'r', '--opensearch', 'http://h:9200/?pretty'])).toThrow(
      /--opensearch "http:\/\/h:9200\/\?pretty" has a query or a fragment: give the server URL only/,
    );
  });

  test('fails when proxy --endpoint carries a user name or password, which it would drop', () => {
    expect(() =>
      parseCliArgs(['proxy', '--endpoint', 'https://admin:pw@search-x.eu-west-1.es.amazonaws.com']),
    ).toThrow(/carries a user name or password: leave it out, the proxy signs with your AWS credentials/);
  });
});

describe('waits a timer cannot take', () => {
  test('send --rate 1e-7 per second fails: its pause would pass 2^31 - 1 ms, which setTimeout fires at once', () => {
    expect(() => parseCliArgs(['send', '--log-group', 'g', '--rate', '0.0000001'])).toThrow(
      new UsageError('--rate "0.0000001" is slower than one per 24 days, the longest wait kfek can time'),
    );
    // One event every 11.6 days still fits.
    expect(parseCliArgs(['send', '--log-group', 'g', '--rate', '0.000001'])).toEqual(
      expect.objectContaining({ ratePerSecond: 0.000001 }),
    );
  });

  test.each([
    ['verify', '--run-id', 'r', '--opensearch', 'http://h', '--interval'],
    ['verify', '--run-id', 'r', '--opensearch', 'http://h', '--timeout'],
    ['query', '--name', 'n', '--timeout'],
    ['proxy', '--endpoint', 'h', '--region', 'us-east-1', '--upstream-timeout'],
    ['doctor', '--synth-timeout'],
  ])('fails when a wait is longer than 24 days: %s ... 25d', (...argv) => {
    const option = argv[argv.length - 1];
    expect(() => parseCliArgs([...argv, '25d'])).toThrow(
      new UsageError(`${option} "25d" is longer than 24 days, the longest wait kfek can time`),
    );
  });

  test('fails when --interval is 0 (verify would search again at once for the whole --timeout)', () => {
    expect(() =>
      parseCliArgs(['verify', '--run-id', 'r', '--opensearch', 'http://h', '--interval', '0']),
    ).toThrow(new UsageError('--interval "0" must be longer than 0'));
  });

  test('fails when a duration has more digits than a number holds', () => {
    expect(() => parseCliArgs(['query', '--name', 'n', '--since', '9'.repeat(400)])).toThrow(
      new UsageError(
        `--since "${'9'.repeat(48)}"... (400 characters) is not a duration such as 30s, 15m or 1h`,
      ),
    );
  });

  test('query --since that reaches before 1970 fails before any call', async () => {
    const { code, err } = await kfek(
      [
        'query',
        '--name',
        'latest-errors',
        '--log-group',
        'g',
        '--since',
        '99999999d',
        '--endpoint',
        'http://127.0.0.1:2',
      ],
      { AWS_REGION: 'us-east-1' },
    );
    expect({ code, err }).toEqual({
      code: 2,
      err: `kfek: --since reaches back before 1970; Logs Insights reads from the log groups' creation on${USAGE_HINT}`,
    });
  });
});

describe('names', () => {
  test.each([
    [
      ['send', '--log-group', 'my group'],
      '--log-group "my group" is not a log group name (1-512 letters, digits and . - _ / #)',
    ],
    [
      ['send', '--log-group', 'g', '--log-stream', 'a:b'],
      '--log-stream "a:b" is not a log stream name (1-512 characters, not blank, no : or *)',
    ],
    [['query', '--name', ' '], '--name is blank'],
    [
      ['verify', '--run-id', 'r', '--opensearch', 'http://h', '--ingest-field', ''],
      '--ingest-field is blank',
    ],
    [['doctor', '--cdk-out', ' '], '--cdk-out is blank'],
    [
      ['query', '--name', 'n', '--profile', 'a b'],
      'query: --profile "a b" is not a profile name of cdk.json',
    ],
    [
      ['query', '--name', 'n', '--profile', 'sandbox', '--log-group', 'g'],
      'query: --profile chooses the log groups when no --log-group is given; pass one or the other',
    ],
  ])('fails on %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(new UsageError(message));
  });
});
