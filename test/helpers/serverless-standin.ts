/** Test identities of the Serverless conformance stand-in (scripts/serverless/standin.ts). */
import type { StandinIdentity } from '../../scripts/serverless/standin';

/** The region the stand-in's tests sign for. */
export const STANDIN_REGION = 'us-east-1';

/** A key pair the stand-in knows, acting as the IAM role `name` of a test account. */
export function standinIdentity(name: string): StandinIdentity {
  return {
    accessKeyId: `AKIA${name.toUpperCase().padEnd(16, 'X')}`,
    secretAccessKey: `secret-of-${name}`,
    principal: `arn:aws:iam::123456789012:role/${name}`,
  };
}
