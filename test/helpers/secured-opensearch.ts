/**
 * Jest helper around the secured local node (scripts/opensearch/secured-node.ts): OpenSearch 2.11.1 with the real
 * security plugin, HTTPS with a CA generated at start, users with backend roles. For the test files where access
 * control is under test; everything else uses the plain node of ./opensearch.ts, which starts faster.
 *
 * `useSecuredOpenSearchNode({ users })` starts one node in `beforeAll` and stops it in `afterAll` (also when tests
 * fail); `client(user)` is a client authenticated as that user (HTTP basic auth over HTTPS, trusting only the
 * node's CA). The node listens on 127.0.0.1 only.
 */
import { createHttpClient, type OpenSearchHttpClient } from '../../core/opensearch/http';
import {
  startSecuredOpenSearch,
  type RunningSecuredOpenSearch,
  type StartSecuredOpenSearchOptions,
} from '../../scripts/opensearch-node';
import { OPENSEARCH_START_TIMEOUT_MILLIS, TEST_NODE } from './opensearch';

export type { SecuredUser } from '../../scripts/opensearch-node';

export interface SecuredOpenSearchNodeHandle {
  /** The running node; throws when called outside a test (before beforeAll). */
  node(): RunningSecuredOpenSearch;
  /**
   * A client authenticated as `user` (`admin`, mapped to all_access and security_manager, or one of the users the
   * node was started with); one attempt per request, so a refusal is seen as it is.
   */
  client(user?: string): OpenSearchHttpClient;
}

export function useSecuredOpenSearchNode(
  options: Partial<StartSecuredOpenSearchOptions> = {},
): SecuredOpenSearchNodeHandle {
  let running: RunningSecuredOpenSearch | undefined;
  beforeAll(async () => {
    running = await startSecuredOpenSearch({ ...TEST_NODE, ...options });
  }, OPENSEARCH_START_TIMEOUT_MILLIS);
  afterAll(async () => {
    await running?.stop();
  }, 60_000);
  const node = (): RunningSecuredOpenSearch => {
    if (running === undefined) {
      throw new Error('The secured OpenSearch node is not running: use node() or client() inside a test.');
    }
    return running;
  };
  return {
    node,
    client(user = 'admin'): OpenSearchHttpClient {
      const { username, password } = node().credentials(user);
      return createHttpClient({
        baseUrl: node().url,
        auth: { kind: 'basic', username, password },
        fetchImpl: node().fetch,
        maxAttempts: 1,
      });
    },
  };
}
