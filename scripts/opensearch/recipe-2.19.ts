/**
 * OpenSearch 2.19.4, the node of kfek's deployed line (engine version 2.19), as assembled-distribution.ts builds it.
 * Every version below is the one the 2.19.4 POMs on Maven Central pin (checked 2026-11-27: `opensearch`,
 * `opensearch-core`, `opensearch-x-content`, `opensearch-compress`, `opensearch-cli`, `opensearch-grok`,
 * `opensearch-rest-client` and each module's POM); the 2.19.1 POMs list exactly the jars of the 2.19.1 integ-test
 * zip, so the POMs are what a 2.19.4 distribution ships.
 */
import type { AssemblyRecipe } from './assembled-distribution';
import type { MavenArtifact } from './maven';
import type { ModuleLayout } from './module-layout';

export const OPENSEARCH_2_19_VERSION = '2.19.4';
const V = OPENSEARCH_2_19_VERSION;

const jar = (groupId: string, artifactId: string, version: string): MavenArtifact => ({
  groupId,
  artifactId,
  version,
});
const core = (artifactId: string): MavenArtifact => jar('org.opensearch', artifactId, V);
const plugin = (artifactId: string): MavenArtifact => jar('org.opensearch.plugin', artifactId, V);
const lucene = (artifactId: string): MavenArtifact =>
  jar('org.apache.lucene', `lucene-${artifactId}`, '9.12.3');
const netty = (artifactId: string): MavenArtifact => jar('io.netty', `netty-${artifactId}`, '4.1.125.Final');
const asm = (artifactId: string): MavenArtifact => jar('org.ow2.asm', artifactId, '9.7');
const jackson = (groupId: string, artifactId: string): MavenArtifact =>
  jar(`com.fasterxml.jackson.${groupId}`, artifactId, '2.18.2');
const log4j = (artifactId: string): MavenArtifact => jar('org.apache.logging.log4j', artifactId, '2.21.0');

const LIB: readonly MavenArtifact[] = [
  ...[
    'opensearch',
    'opensearch-common',
    'opensearch-core',
    'opensearch-compress',
    'opensearch-secure-sm',
    'opensearch-x-content',
    'opensearch-geo',
    'opensearch-telemetry',
    'opensearch-task-commons',
    'opensearch-cli',
  ].map(core),
  ...[
    'core',
    'analysis-common',
    'backward-codecs',
    'grouping',
    'highlighter',
    'join',
    'memory',
    'misc',
    'queries',
    'queryparser',
    'sandbox',
    'spatial-extras',
    'spatial3d',
    'suggest',
  ].map(lucene),
  jar('joda-time', 'joda-time', '2.12.7'),
  jar('com.tdunning', 't-digest', '3.2'),
  jar('org.hdrhistogram', 'HdrHistogram', '2.2.2'),
  jar('org.locationtech.spatial4j', 'spatial4j', '0.7'),
  jar('org.locationtech.jts', 'jts-core', '1.15.0'),
  log4j('log4j-api'),
  log4j('log4j-jul'),
  log4j('log4j-core'),
  jar('net.java.dev.jna', 'jna', '5.13.0'),
  jar('com.jcraft', 'jzlib', '1.1.3'),
  jar('org.reactivestreams', 'reactive-streams', '1.0.4'),
  jar('io.projectreactor', 'reactor-core', '3.7.5'),
  jar('com.google.protobuf', 'protobuf-java', '3.25.5'),
  jar('jakarta.annotation', 'jakarta.annotation-api', '1.3.5'),
  jar('org.roaringbitmap', 'RoaringBitmap', '1.3.0'),
  jar('com.github.luben', 'zstd-jni', '1.5.5-5'),
  jackson('core', 'jackson-core'),
  jackson('dataformat', 'jackson-dataformat-smile'),
  jackson('dataformat', 'jackson-dataformat-yaml'),
  jackson('dataformat', 'jackson-dataformat-cbor'),
  jar('org.yaml', 'snakeyaml', '2.1'),
  jar('net.sf.jopt-simple', 'jopt-simple', '5.0.4'),
];

/**
 * The modules: the transport (HTTP included), and what kfek's objects and tools use: lang-painless (the ingest
 * pipeline's scripts), ingest-common (the `script` processor, and grok and dissect, which it loads),
 * analysis-common (the template's `uppercase` normalizer) and reindex (`_delete_by_query`). Policies as the modules
 * ship them.
 */
export const MODULES_2_19: readonly ModuleLayout[] = [
  {
    name: 'transport-netty4',
    description: 'Netty 4 based transport implementation',
    classname: 'org.opensearch.transport.Netty4Plugin',
    extendedPlugins: [],
    jars: [
      plugin('transport-netty4-client'),
      ...[
        'buffer',
        'codec',
        'codec-http',
        'common',
        'handler',
        'resolver',
        'transport',
        'transport-native-unix-common',
      ].map(netty),
    ],
    securityPolicy: [
      'grant {',
      '  permission java.io.FilePermission "/proc/sys/net/core/somaxconn", "read";',
      '  permission java.net.SocketPermission "*", "accept,connect";',
      '  permission java.lang.RuntimePermission "*", "setContextClassLoader";',
      '  permission java.lang.RuntimePermission "getClassLoader";',
      '  permission java.util.PropertyPermission "sun.nio.ch.bugLevel", "write";',
      '};',
      '',
    ].join('\n'),
  },
  {
    name: 'lang-painless',
    description: 'An easy, safe and fast scripting language for OpenSearch',
    classname: 'org.opensearch.painless.PainlessPlugin',
    extendedPlugins: [],
    jars: [
      plugin('lang-painless'),
      plugin('opensearch-scripting-painless-spi'),
      jar('org.antlr', 'antlr4-runtime', '4.13.1'),
      asm('asm'),
      asm('asm-util'),
      asm('asm-tree'),
      asm('asm-commons'),
      asm('asm-analysis'),
    ],
    // Painless compiles scripts into classes of its own class loader.
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
      core('opensearch-grok'),
      core('opensearch-dissect'),
      jar('org.jruby.joni', 'joni', '2.2.1'),
      jar('org.jruby.jcodings', 'jcodings', '1.0.61'),
    ],
  },
  {
    name: 'analysis-common',
    description: 'Adds "built in" analyzers to OpenSearch.',
    classname: 'org.opensearch.analysis.common.CommonAnalysisPlugin',
    extendedPlugins: ['lang-painless'],
    jars: [plugin('analysis-common')],
  },
  {
    name: 'reindex',
    description:
      'The Reindex module adds APIs to reindex from one index to another or update documents in place.',
    classname: 'org.opensearch.index.reindex.ReindexPlugin',
    extendedPlugins: [],
    jars: [
      plugin('reindex-client'),
      jar('org.opensearch.client', 'opensearch-rest-client', V),
      core('opensearch-ssl-config'),
      jar('org.apache.httpcomponents', 'httpclient', '4.5.14'),
      jar('org.apache.httpcomponents', 'httpcore', '4.4.16'),
      jar('org.apache.httpcomponents', 'httpasyncclient', '4.1.5'),
      jar('org.apache.httpcomponents', 'httpcore-nio', '4.4.16'),
      jar('commons-codec', 'commons-codec', '1.18.0'),
      jar('commons-logging', 'commons-logging', '1.2'),
    ],
    // Reindex from a remote cluster opens connections with the REST client.
    securityPolicy: [
      'grant {',
      '  permission java.net.SocketPermission "*", "connect";',
      '};',
      '',
      'grant codeBase "${codebase.opensearch-rest-client}" {',
      '  permission java.net.NetPermission "getProxySelector";',
      '};',
      '',
      'grant codeBase "${codebase.httpasyncclient}" {',
      '  permission java.net.NetPermission "getProxySelector";',
      '};',
      '',
    ].join('\n'),
  },
];

export const RECIPE_2_19: AssemblyRecipe = {
  version: V,
  // The newest 2.19 integ-test zip; its bin/ and config/ are byte for byte those of the 2.19.1 zip.
  skeletonVersion: '2.19.6',
  keptFromSkeleton: ['opensearch-launchers', 'java-version-checker', 'opensearch-plugin-classloader'],
  lib: LIB,
  modules: MODULES_2_19,
  name: 'assembled-v1',
};
