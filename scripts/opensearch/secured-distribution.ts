/**
 * The secured local node's distribution: OpenSearch 2.11.1's integ-test zip, the modules kfek's template and
 * ingest pipeline need that this zip lacks, and the security plugin, all from Maven Central (maven.ts), put
 * together once into `<cacheDir>/opensearch-2.11.1-secured-v1` (distribution.ts' flavor).
 *
 * Why 2.11.1: a plugin runs only on the core version it was built for, and 2.11.1 is the one version Maven Central
 * has both an integ-test zip and an `opensearch-security` plugin zip for (docs/local.md, "The secured node").
 *
 * The 2.11.1 integ-test zip holds one module (transport-netty4). The modules are published as plain jars with
 * their dependencies in their POMs, not as module folders, so each is assembled here as the distribution's build
 * lays it out: the jars, a `plugin-descriptor.properties` (name, class, versions, the plugins it extends) and, for
 * painless, the `plugin-security.policy` its code generation needs. What kfek's objects use:
 * - lang-painless: the ingest pipeline's two `script` processors (core/opensearch/ingest-pipeline.ts);
 * - ingest-common: the `script` processor itself (and grok and dissect, which it loads);
 * - analysis-common: the template's `kfek_uppercase` normalizer (its `uppercase` filter).
 * The plugin zip is unpacked as `opensearch-plugin install` would: its files into `plugins/opensearch-security/`,
 * its `config/` into `config/opensearch-security/` (every node copies the distribution's config folder).
 */
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureUnpacked, unzip, type DistributionFlavor } from './distribution';
import { ensureMavenArtifact, type MavenArtifact, type MavenFetchOptions } from './maven';

export const SECURED_OPENSEARCH_VERSION = '2.11.1';
/** The plugin's version is the core's with a fourth number; it must name exactly the core above. */
export const SECURITY_PLUGIN_VERSION = `${SECURED_OPENSEARCH_VERSION}.0`;

/** One module folder under `modules/`, as OpenSearch's own build writes it. */
interface ModuleLayout {
  readonly name: string;
  readonly description: string;
  readonly classname: string;
  readonly extendedPlugins: readonly string[];
  /** The module's jar first, then what its POM lists (compile scope, versions as 2.11.1's POMs pin them). */
  readonly jars: readonly MavenArtifact[];
  readonly securityPolicy?: string;
}

const V = SECURED_OPENSEARCH_VERSION;
const plugin = (artifactId: string): MavenArtifact => ({
  groupId: 'org.opensearch.plugin',
  artifactId,
  version: V,
});
const asm = (artifactId: string): MavenArtifact => ({ groupId: 'org.ow2.asm', artifactId, version: '9.6' });

export const SECURED_MODULES: readonly ModuleLayout[] = [
  {
    name: 'lang-painless',
    description: 'An easy, safe and fast scripting language for OpenSearch',
    classname: 'org.opensearch.painless.PainlessPlugin',
    extendedPlugins: [],
    jars: [
      plugin('lang-painless'),
      plugin('opensearch-scripting-painless-spi'),
      { groupId: 'org.antlr', artifactId: 'antlr4-runtime', version: '4.11.1' },
      asm('asm'),
      asm('asm-util'),
      asm('asm-tree'),
      asm('asm-commons'),
      asm('asm-analysis'),
    ],
    // As the module ships it: Painless compiles scripts into classes of its own class loader.
    securityPolicy: [
      'grant {',
      '  permission java.lang.RuntimePermission "createClassLoader";',
      '  permission java.lang.RuntimePermission "getClassLoader";',
      '};',
      '',
    ].join('\n'),
  },
  {
    name: 'ingest-common',
    description: 'Module for ingest processors that do not require additional security permissions',
    classname: 'org.opensearch.ingest.common.IngestCommonPlugin',
    extendedPlugins: ['lang-painless'],
    jars: [
      plugin('ingest-common'),
      { groupId: 'org.opensearch', artifactId: 'opensearch-grok', version: V },
      { groupId: 'org.opensearch', artifactId: 'opensearch-dissect', version: V },
      { groupId: 'org.jruby.joni', artifactId: 'joni', version: '2.2.1' },
      { groupId: 'org.jruby.jcodings', artifactId: 'jcodings', version: '1.0.58' },
    ],
  },
  {
    name: 'analysis-common',
    description: 'Adds "built in" analyzers to OpenSearch.',
    classname: 'org.opensearch.analysis.common.CommonAnalysisPlugin',
    extendedPlugins: ['lang-painless'],
    jars: [plugin('analysis-common')],
  },
];

const SECURITY_PLUGIN: MavenArtifact = {
  groupId: 'org.opensearch.plugin',
  artifactId: 'opensearch-security',
  version: SECURITY_PLUGIN_VERSION,
  extension: 'zip',
};

function descriptor(module: ModuleLayout): string {
  return [
    `description=${module.description}`,
    `version=${V}`,
    `name=${module.name}`,
    `classname=${module.classname}`,
    'java.version=11',
    `opensearch.version=${V}`,
    'custom.foldername=',
    `extended.plugins=${module.extendedPlugins.join(',')}`,
    'has.native.controller=false',
    '',
  ].join('\n');
}

/** Fetches every jar of a module (cached like the zip) and lays out its folder. */
async function installModule(
  distribution: string,
  module: ModuleLayout,
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
  writeFileSync(join(dir, 'plugin-descriptor.properties'), descriptor(module));
  if (module.securityPolicy !== undefined) {
    writeFileSync(join(dir, 'plugin-security.policy'), module.securityPolicy);
  }
}

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

/** The flavor: 2.11.1's zip plus the modules and the plugin. A change to what it adds needs a new name. */
export function securedFlavor(maven: MavenFetchOptions): DistributionFlavor {
  return {
    name: 'secured-v1',
    async install(distribution: string): Promise<void> {
      for (const module of SECURED_MODULES) await installModule(distribution, module, maven);
      await installSecurityPlugin(distribution, maven);
    },
  };
}

/** Returns the secured distribution's folder, assembling it once (downloads: about 90 MB, cached). */
export async function ensureSecuredDistribution(options: MavenFetchOptions): Promise<string> {
  return ensureUnpacked({
    ...options,
    version: SECURED_OPENSEARCH_VERSION,
    flavor: securedFlavor(options),
  });
}
