import { resolveAwsTarget } from '../../cli/aws-target';

describe('resolveAwsTarget', () => {
  test('--endpoint and --region win over the environment', () => {
    expect(
      resolveAwsTarget(
        { endpoint: 'http://127.0.0.1:5000', region: 'eu-west-1' },
        { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'us-west-2' },
      ),
    ).toEqual({ endpoint: 'http://127.0.0.1:5000', region: 'eu-west-1' });
  });

  test('AWS_REGION before AWS_DEFAULT_REGION; us-east-1 only with an endpoint override', () => {
    expect(resolveAwsTarget({}, { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-west-2' })).toEqual({
      region: 'eu-west-1',
    });
    expect(resolveAwsTarget({}, { AWS_DEFAULT_REGION: 'us-west-2' })).toEqual({ region: 'us-west-2' });
    expect(resolveAwsTarget({}, {})).toEqual({});
    expect(resolveAwsTarget({}, { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' })).toEqual({
      endpoint: 'http://127.0.0.1:5000',
      region: 'us-east-1',
    });
  });

  test('an empty or blank variable is an unset one, everywhere', () => {
    expect(
      resolveAwsTarget(
        {},
        { AWS_REGION: '', AWS_DEFAULT_REGION: ' ', AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' },
      ),
    ).toEqual({ endpoint: 'http://127.0.0.1:5000', region: 'us-east-1' });
    expect(resolveAwsTarget({}, { AWS_REGION: '', AWS_ENDPOINT_URL: '' })).toEqual({});
  });

  test("a service's own endpoint variable counts when asked for; the default region can be the caller's", () => {
    const env = { AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: 'http://127.0.0.1:5000' };
    expect(resolveAwsTarget({}, env)).toEqual({});
    expect(resolveAwsTarget({}, env, { service: 'CLOUDWATCH_LOGS' })).toEqual({
      endpoint: 'http://127.0.0.1:5000',
      region: 'us-east-1',
    });
    expect(resolveAwsTarget({}, {}, { defaultRegion: () => 'ap-south-1' })).toEqual({ region: 'ap-south-1' });
  });
});
