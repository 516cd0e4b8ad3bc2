/**
 * The SQS client the local runner and the tests use against moto, with the same settings as the other local
 * clients (scripts/local/aws-clients.ts). A module of its own so that loading the local runner does not load the
 * SQS client: only the `pipes` transport, replays and tests need it.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { LOCAL_CREDENTIALS } from './aws-clients';

/** An SQS client pointed at a local endpoint (HTTP/1.1, dummy credentials); the caller destroys it. */
export function localSqsClient(endpoint: string, region: string): SQSClient {
  return new SQSClient({
    endpoint,
    region,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler(),
  });
}
