/**
 * OpenSearch Serverless's control plane (AWS JSON 1.0, signed for `aoss`), one operation at a time: what `kfek doctor`
 * reads to learn which collection and policy names the account holds (cli/doctor/serverless-names.ts).
 * https://docs.aws.amazon.com/opensearch-service/latest/ServerlessAPIReference/
 * @aws-sdk/client-opensearchserverless is not a dependency of this project; as for STS (cli/proxy/signing.ts), the
 * few calls are signed with core/aws-signing.ts ({@link postSigned}) instead of adding the client.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { postSigned } from '../aws-signing';
import { OperatorError } from '../errors';
import { isObject } from '../json';

/** One call of OpenSearch Serverless's control-plane API: operation name and input to its output. */
export type AossCall = (operation: string, input: Readonly<Record<string, unknown>>) => Promise<unknown>;

/** An OpenSearch Serverless control-plane call answered with an error (`code` is the error's type). */
export class AossCallError extends OperatorError {
  constructor(
    readonly operation: string,
    readonly code: string,
    detail: string,
  ) {
    super(`OpenSearch Serverless ${operation} answered ${code}: ${detail.slice(0, 200)}`);
    this.name = 'AossCallError';
  }
}

export interface AossControlPlaneOptions {
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** e.g. a moto server in tests. @default - https://aoss.<region>.amazonaws.com */
  readonly endpoint?: string;
}

/** Calls over HTTPS, signed for `aoss`, as the AWS JSON 1.0 protocol has them (`X-Amz-Target`). */
export function aossControlPlane(options: AossControlPlaneOptions): AossCall {
  const url = new URL(options.endpoint ?? `https://aoss.${options.region}.amazonaws.com/`);
  return async (operation, input) => {
    const body = JSON.stringify(input);
    const answer = await postSigned(
      { service: 'aoss', region: options.region, credentials: options.credentials },
      url,
      body,
      { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `OpenSearchServerless.${operation}` },
    );
    if ('unreachable' in answer)
      throw new AossCallError(operation, 'nothing', `${url.origin}: ${answer.unreachable}`);
    const { response, text } = answer;
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : (JSON.parse(text) as unknown);
    } catch {
      // Not the service's JSON (a proxy's or an emulator's HTML page): the status says what happened.
      throw new AossCallError(operation, `HTTP ${response.status}`, 'the answer is not JSON');
    }
    if (response.ok) return parsed;
    // `__type` is `ResourceNotFoundException` or `<namespace>#ResourceNotFoundException[:<more>]`.
    const field = (key: string): string | undefined =>
      isObject(parsed) && typeof parsed[key] === 'string' ? parsed[key] : undefined;
    const type = field('__type') ?? response.headers.get('x-amzn-errortype') ?? '';
    const code = type.split('#').pop()?.split(':')[0] || `HTTP ${response.status}`;
    const message = field('message') ?? field('Message') ?? text;
    throw new AossCallError(operation, code, message);
  };
}
