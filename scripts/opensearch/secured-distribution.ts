/**
 * The secured local node's distribution: the deployed line's node (OpenSearch 2.19.4, assembled from Maven Central
 * by assembled-distribution.ts with recipe-2.19.ts) plus the security plugin `opensearch-security` 2.19.4.0, put
 * together once into `<cacheDir>/opensearch-2.19.4-assembled-v1-secured` (distribution.ts' flavor).
 *
 * Why 2.19.4: a plugin runs only on the core version it was built for, Maven Central has the security plugin for
 * 2.19.3.0 and 2.19.4.0 on the 2.19 line, and the plain node is 2.19.4 too, so both nodes run the same build and
 * differ only by the plugin (docs/local.md, "Which OpenSearch runs where").
 *
 * The plugin zip is unpacked as `opensearch-plugin install` would: its files into `plugins/opensearch-security/`,
 * its `config/` into `config/opensearch-security/` (every node copies the distribution's config folder).
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { assemblyFlavor } from './assembled-distribution';
import { ensureUnpacked, unzip } from './distribution';
import { ensureMavenArtifact, type MavenArtifact, type MavenFetchOptions } from './maven';
import { OPENSEARCH_2_19_VERSION, RECIPE_2_19 } from './recipe-2.19';

export const SECURED_OPENSEARCH_VERSION = OPENSEARCH_2_19_VERSION;
/** The plugin's version is the core's with a fourth number; it must name exactly the core above. */
export const SECURITY_PLUGIN_VERSION = `${SECURED_OPENSEARCH_VERSION}.0`;

const SECURITY_PLUGIN: MavenArtifact = {
  groupId: 'org.opensearch.plugin',
  artifactId: 'opensearch-security',
  version: SECURITY_PLUGIN_VERSION,
  extension: 'zip',
};

/** Unpacks the security plugin as `opensearch-plugin install` lays it out. */
async function installSecurityPlugin(distribution: string, maven: MavenFetchOptions): Promise<void> {
  const zip = await ensureMavenArtifact(SECURITY_PLUGIN, maven, {
    title: `the OpenSearch security plugin ${SECURITY_PLUGIN_VERSION}`,
    aboutSize: '40 MB',
  });
  const dir = join(distribution, 'plugins', 'opensearch-security');
  unzip(zip, dir);
  cpSync(join(dir, 'config'), join(distribution, 'config', 'opensearch-security'), { recursive: true });
  rmSync(join(dir, 'config'), { recursive: true, force: true });
}

/** Returns the secured distribution's folder, assembling it once (downloads: about 100 MB, cached). */
export async function ensureSecuredDistribution(options: MavenFetchOptions): Promise<string> {
  const flavor = assemblyFlavor(RECIPE_2_19, options, {
    name: 'secured',
    install: (distribution) => installSecurityPlugin(distribution, options),
  });
  return ensureUnpacked({
    ...options,
    version: RECIPE_2_19.skeletonVersion,
    flavor,
    folderName: `opensearch-${RECIPE_2_19.version}-${flavor.name}`,
  });
}
