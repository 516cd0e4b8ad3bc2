import { App } from 'aws-cdk-lib';
import { configFromApp } from '../../lib/config';
import { CDK_JSON_CONTEXT } from '../helpers/app';
import { testOutdir } from '../helpers/temp-dirs';

const withProfile = (overrides: unknown, name = 'test'): Record<string, unknown> => ({
  kfek: { profiles: { [name]: overrides } },
});

describe('configFromApp', () => {
  test('reads the profile from app context and the environment the CLI resolved', () => {
    // GIVEN
    const app = new App({ context: { ...CDK_JSON_CONTEXT, profile: 'production' }, outdir: testOutdir() });
    // WHEN
    const config = configFromApp(app, {
      CDK_DEFAULT_ACCOUNT: '111122223333',
      CDK_DEFAULT_REGION: 'eu-west-1',
    });
    // THEN
    expect(config.profile).toBe('production');
    expect(config.env).toEqual({ account: '111122223333', region: 'eu-west-1' });
  });

  test('an account pinned in the profile wins over the environment', () => {
    const app = new App({
      context: withProfile({ account: '444455556666', region: 'us-west-2' }, 'sandbox'),
      outdir: testOutdir(),
    });
    const config = configFromApp(app, { CDK_DEFAULT_ACCOUNT: '111122223333' });
    expect(config.env).toEqual({ account: '444455556666', region: 'us-west-2' });
  });
});
