/** Runs code with an AWS key in the environment, as an operator's shell (or a child process's env) would hold it. */
import type { AwsCredentialIdentity } from '@smithy/types';

/**
 * `fn` with the SDK's default credential chain reading `key` from the environment (no session token, no profile),
 * then the environment as it was.
 */
export async function signedAs<T>(
  key: Pick<AwsCredentialIdentity, 'accessKeyId' | 'secretAccessKey'>,
  fn: () => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  process.env.AWS_ACCESS_KEY_ID = key.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = key.secretAccessKey;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  try {
    return await fn();
  } finally {
    process.env = saved;
  }
}
