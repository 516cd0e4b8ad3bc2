/**
 * A module folder under a distribution's `modules/`, laid out as OpenSearch's own build writes it: the module's
 * jars, a `plugin-descriptor.properties` (name, class, versions, the plugins it extends) and, where the module's
 * code needs more than the default grants, its `plugin-security.policy`. OpenSearch publishes the modules on Maven
 * Central as plain jars with their dependencies in their POMs, not as folders; assembled-distribution.ts builds a
 * node's modules from them.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureMavenArtifact, type MavenArtifact, type MavenFetchOptions } from './maven';

/** One module folder. */
export interface ModuleLayout {
  readonly name: string;
  readonly description: string;
  readonly classname: string;
  readonly extendedPlugins: readonly string[];
  /** The module's jar first, then what its POM lists (compile scope, at the versions the POM pins). */
  readonly jars: readonly MavenArtifact[];
  /** @default - no policy file (the default grants) */
  readonly securityPolicy?: string;
}

function descriptor(module: ModuleLayout, version: string): string {
  return [
    `description=${module.description}`,
    `version=${version}`,
    `name=${module.name}`,
    `classname=${module.classname}`,
    'java.version=11',
    `opensearch.version=${version}`,
    'custom.foldername=',
    `extended.plugins=${module.extendedPlugins.join(',')}`,
    'has.native.controller=false',
    '',
  ].join('\n');
}

/** Fetches every jar of a module (cached like any artifact, maven.ts) and lays out its folder for `version`. */
export async function installModule(
  distribution: string,
  module: ModuleLayout,
  version: string,
  maven: MavenFetchOptions,
): Promise<void> {
  const dir = join(distribution, 'modules', module.name);
  mkdirSync(dir, { recursive: true });
  for (const jar of module.jars) {
    const file = await ensureMavenArtifact(jar, maven, {
      title: `${jar.artifactId} ${jar.version}`,
      aboutSize: '1 MB',
    });
    copyFileSync(file, join(dir, `${jar.artifactId}-${jar.version}.jar`));
  }
  writeFileSync(join(dir, 'plugin-descriptor.properties'), descriptor(module, version));
  if (module.securityPolicy !== undefined) {
    writeFileSync(join(dir, 'plugin-security.policy'), module.securityPolicy);
  }
}
