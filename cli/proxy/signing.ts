/**
 * Identity pieces the proxy shares with `kfek doctor`: the credential check, STS GetCallerIdentity, the security
 * plugin's authinfo answer, and how errors are described to the operator. Signing itself is core/aws-signing.ts.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { defaultCredentialProvider, postSigned } from '../../core/aws-signing';
import { messageOf } from '../../core/errors';
import { ProxyCredentialsError, ProxyError } from './errors';

/** How the security plugin sees a caller: the answer of `GET _plugins/_security/authinfo`. */
export interface AuthInfo {
  /** Backend roles it derived from the signature: the exact strings a role mapping must contain. */
  readonly backendRoles: readonly string[];
  /** The OpenSearch roles those are mapped to. */
  readonly roles: readonly string[];
}

/** Reads an authinfo response body; undefined when it is not one (no `backend_roles` array). */
export function parseAuthInfo(body: unknown): AuthInfo | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const info = body as { backend_roles?: unknown; roles?: unknown };
  if (!Array.isArray(info.backend_roles)) return undefined;
  return {
    backendRoles: info.backend_roles.map(String),
    roles: Array.isArray(info.roles) ? info.roles.map(String) : [],
  };
}

/** The role ARN to map for an assumed-role session ARN; other ARNs are returned unchanged. */
export function mappableArn(arn: string): string {
  const m = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(arn);
  return m === null ? arn : `arn:${m[1]}:iam::${m[2]}:role/${m[3]}`;
}

export async function resolveCredentials(
  source: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): Promise<AwsCredentialIdentity> {
  let credentials: AwsCredentialIdentity;
  try {
    credentials = typeof source === 'function' ? await source() : source;
  } catch (error) {
    const detail = messageOf(error).split('\n')[0];
    throw new ProxyCredentialsError(detail, { cause: error });
  }
  if (credentials.expiration !== undefined && credentials.expiration.getTime() <= Date.now()) {
    throw new ProxyCredentialsError(`they expired at ${credentials.expiration.toISOString()}`);
  }
  return credentials;
}

export interface CallerIdentityOptions {
  readonly region: string;
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /**
   * STS endpoint, e.g. a moto server in tests.
   * @default - the regional endpoint https://sts.<region>.amazonaws.com
   */
  readonly endpoint?: string;
}

/**
 * The caller's ARN from STS GetCallerIdentity. @aws-sdk/client-sts is not a dependency of this project and this
 * is one Query API call that needs no IAM permission, so it is signed here with
 * the same signing as the proxied requests (core/aws-signing.ts) instead of adding the client.
 * https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html
 */
export async function getCallerIdentity(options: CallerIdentityOptions): Promise<string> {
  const credentials = await resolveCredentials(options.credentials ?? (await defaultCredentialProvider()));
  const url = new URL(options.endpoint ?? `https://sts.${options.region}.amazonaws.com/`);
  const body = 'Action=GetCallerIdentity&Version=2011-06-15';
  const answer = await postSigned({ service: 'sts', region: options.region, credentials }, url, body, {
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
  });
  if ('unreachable' in answer) {
    throw new ProxyError(
      `Cannot ask STS who signs (GetCallerIdentity at ${url.origin}: ${answer.unreachable}).`,
      {
        cause: answer.error,
      },
    );
  }
  const { response, text } = answer;
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(text)?.[1];
  if (!response.ok || arn === undefined) {
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP ${response.status}`;
    throw new ProxyCredentialsError(`STS GetCallerIdentity answered ${code}`);
  }
  return arn;
}
