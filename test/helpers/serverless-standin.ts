/** Test identities of the Serverless conformance stand-in (scripts/serverless/standin.ts). */
import { createHttpClient, type OpenSearchHttpClient } from '../../core/opensearch/http';
import {
  type RunningStandin,
  type ServerlessStandinOptions,
  type StandinIdentity,
  startServerlessStandin,
} from '../../scripts/serverless/standin';
import { type OpenSearchNodeHandle, useOpenSearchNode } from './opensearch';

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

/** A client of the stand-in at `url` signing as `who` for `service` (a collection takes `aoss`), one attempt per call. */
export function standinClient(url: string, who: StandinIdentity, service = 'aoss'): OpenSearchHttpClient {
  return createHttpClient({
    baseUrl: url,
    maxAttempts: 1,
    auth: { kind: 'sigv4', region: STANDIN_REGION, service, credentials: who },
  });
}

/**
 * The real node (test/helpers/opensearch.ts) with the stand-in in front of it for the tests of one `describe`: started
 * in `beforeAll`, closed in `afterAll`. `standin()` is the running stand-in (inside tests and hooks only).
 */
export function useServerlessStandin(options: Omit<ServerlessStandinOptions, 'upstream' | 'region'>): {
  readonly node: OpenSearchNodeHandle;
  readonly standin: () => RunningStandin;
} {
  const node = useOpenSearchNode();
  let running: RunningStandin | undefined;
  beforeAll(async () => {
    running = await startServerlessStandin({ ...options, upstream: node.node().url, region: STANDIN_REGION });
  });
  afterAll(async () => {
    await running?.close();
  });
  return {
    node,
    standin: () => {
      if (running === undefined) throw new Error('the stand-in runs only inside tests and hooks');
      return running;
    },
  };
}
