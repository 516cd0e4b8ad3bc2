/**
 * A node of an exact OpenSearch version that Maven Central has no usable distribution of, assembled from what it
 * does publish (distribution.ts caches the result like an unpacked zip):
 *
 * - the core: `org.opensearch:opensearch:<version>` and the libraries its POMs pin, into `lib/`;
 * - the modules kfek's objects and tests use, each from its jar and the jars its POM pins (module-layout.ts);
 * - from an integ-test zip of the same line (the skeleton): `bin/`, `config/` and the three `lib/` jars the build
 *   publishes nowhere else (`opensearch-launchers`, which turns `jvm.options` into the JVM's arguments,
 *   `java-version-checker`, and `opensearch-plugin-classloader`). Every other jar of the skeleton is removed, so
 *   the node runs the version's own code and nothing of the skeleton's version but those launch tools.
 *
 * Why: the deployed line (2.19, docs/local.md "Which OpenSearch runs where") has integ-test zips for 2.19.0, 2.19.1
 * and 2.19.6 only, and they hold one module (transport-netty4); the security plugin exists for 2.19.3 and 2.19.4,
 * and a plugin runs only on the exact core it was built for. So the plain and the secured node are both 2.19.4,
 * assembled here, and differ only by the plugin.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DistributionFlavor } from './distribution';
import {
  ensureMavenArtifact,
  type FetchedArtifact,
  type MavenArtifact,
  type MavenFetchOptions,
} from './maven';
import { installModule, type ModuleLayout } from './module-layout';

/** Everything that makes an assembled node; a change to it needs a new {@link AssemblyRecipe.name}. */
export interface AssemblyRecipe {
  /** The node's version: its core and module jars, and what the descriptors say. */
  readonly version: string;
  /** The integ-test zip of the same line whose `bin/`, `config/` and launch jars the node uses. */
  readonly skeletonVersion: string;
  /** Names of `lib/` jars kept from the skeleton (matched on the name without the version). */
  readonly keptFromSkeleton: readonly string[];
  /** `lib/`: the core's jar and everything its POMs pin (compile scope). */
  readonly lib: readonly MavenArtifact[];
  readonly modules: readonly ModuleLayout[];
  /** The cached folder's suffix, e.g. `assembled-v1`. */
  readonly name: string;
}

/** `opensearch-launchers-2.19.6.jar` -> `opensearch-launchers`. */
function jarStem(file: string): string {
  return file.replace(/-\d[\w.-]*\.jar$/, '');
}

/**
 * Sums the recipe's jars into two lines (what it fetches, and what it took) instead of two lines per jar: a first run
 * fetches about 80 of them, which used to be 159 lines of `npm start`'s output.
 */
export class JarTally {
  private count = 0;
  private downloads = 0;
  private bytes = 0;
  private readonly started: number;

  constructor(
    private readonly total: number,
    private readonly log: (line: string) => void,
    private readonly now: () => number,
  ) {
    this.started = now();
  }

  readonly fetched = (artifact: FetchedArtifact): void => {
    if (artifact.downloaded && this.downloads === 0) {
      this.log(`fetching the node's ${this.total} jars from Maven Central (once; later runs use the cache)`);
    }
    this.count += 1;
    if (artifact.downloaded) {
      this.downloads += 1;
      this.bytes += artifact.bytes;
    }
  };

  /** The closing line: jars, bytes downloaded, how many the cache had, seconds. */
  summary(): string {
    const seconds = ((this.now() - this.started) / 1000).toFixed(1);
    return (
      `${this.count} jars in ${seconds} s: ${this.downloads} downloaded ` +
      `(${(this.bytes / 1_000_000).toFixed(1)} MB), ${this.count - this.downloads} from the cache`
    );
  }
}

/** Turns the unpacked skeleton at `distribution` into the recipe's node (see the file comment). */
export async function assemble(
  distribution: string,
  recipe: AssemblyRecipe,
  maven: MavenFetchOptions,
  now: () => number = Date.now,
): Promise<void> {
  const lib = join(distribution, 'lib');
  for (const file of readdirSync(lib)) {
    if (file.endsWith('.jar') && !recipe.keptFromSkeleton.includes(jarStem(file))) {
      rmSync(join(lib, file));
    }
  }
  rmSync(join(distribution, 'modules'), { recursive: true, force: true });
  mkdirSync(join(distribution, 'modules'));
  const { log, ...quiet } = maven;
  const total = recipe.lib.length + recipe.modules.reduce((n, m) => n + m.jars.length, 0);
  const tally = new JarTally(total, log ?? ((): void => undefined), now);
  const jars: MavenFetchOptions = { ...quiet, onFetched: tally.fetched };
  for (const jar of recipe.lib) {
    const file = await ensureMavenArtifact(jar, jars, {
      title: `${jar.artifactId} ${jar.version}`,
      aboutSize: '1 MB',
    });
    copyFileSync(file, join(lib, `${jar.artifactId}-${jar.version}.jar`));
  }
  for (const module of recipe.modules) await installModule(distribution, module, recipe.version, jars);
  log?.(tally.summary());
}

/** The recipe as a distribution flavor over its skeleton zip; `more` adds to it (the security plugin). */
export function assemblyFlavor(
  recipe: AssemblyRecipe,
  maven: MavenFetchOptions,
  more?: { readonly name: string; install(distribution: string): Promise<void> },
): DistributionFlavor {
  return {
    name: more === undefined ? recipe.name : `${recipe.name}-${more.name}`,
    async install(distribution: string): Promise<void> {
      await assemble(distribution, recipe, maven);
      await more?.install(distribution);
    },
  };
}
