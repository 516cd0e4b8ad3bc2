/**
 * SDK clients for the transform, created once per container by the handlers.
 *
 * Both use an HTTP/1.1 handler with keep-alive: the SDK's default for Kinesis is HTTP/2, which local emulators
 * (moto) reject with ERR_HTTP2_ERROR, and HTTP/1.1 with reused connections is just as good for PutRecords and
 * PutObject against AWS. Endpoints come from the SDK's own `AWS_ENDPOINT_URL` / `AWS_ENDPOINT_URL_<SERVICE>`
 * variables, so nothing here reads them except to switch S3 to path-style addressing for emulators.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { CommonEnv } from './env';

export interface ClientOptions {
  /**
   * Milliseconds to wait for a TCP connection before giving up on an attempt.
   * @default 2000
   */
  readonly connectionTimeoutMs?: number;
}

function keepAliveHandler(options: ClientOptions): NodeHttpHandler {
  const agentOptions = { keepAlive: true, maxSockets: 50 };
  return new NodeHttpHandler({
    httpAgent: new HttpAgent(agentOptions),
    httpsAgent: new HttpsAgent(agentOptions),
    connectionTimeout: options.connectionTimeoutMs ?? 2000,
  });
}

/**
 * The Kinesis client for the writer. `maxAttempts: 1` because the writer retries only the entries that failed,
 * within the invocation's budget; an SDK retry would re-send a whole call, entries that succeeded included.
 */
export function createKinesisClient(options: ClientOptions = {}): KinesisClient {
  return new KinesisClient({ maxAttempts: 1, requestHandler: keepAliveHandler(options) });
}

/** The S3 client for dead-letter objects; the SDK's standard retries suit a single PutObject. */
export function createS3Client(
  env: Pick<CommonEnv, 's3ForcePathStyle'>,
  options: ClientOptions = {},
): S3Client {
  return new S3Client({ forcePathStyle: env.s3ForcePathStyle, requestHandler: keepAliveHandler(options) });
}
