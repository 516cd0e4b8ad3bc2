/**
 * A node's own config folder: a copy of the distribution's `config/` with kfek's `opensearch.yml` (ports, paths,
 * single-node discovery, safe defaults for a developer machine, a caller's extra settings) and `jvm.options`
 * pointed at the node's own folders, and any files a caller adds (the secured node's certificates and security
 * config). Split from node-process.ts, which starts and stops the process.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What {@link writeNodeConfig} needs besides the distribution's own config. */
export interface NodeConfig {
  readonly distribution: string;
  readonly homeDir: string;
  readonly httpPort: number;
  readonly transportPort: number;
  readonly dataDir: string;
  readonly extraJvmOptions: readonly string[];
  readonly missingModules: readonly string[];
  readonly settings: Readonly<Record<string, string | number | boolean>>;
  /** More files for the config folder, by path relative to it (TLS material, the security plugin's yml). */
  readonly files?: Readonly<Record<string, string>>;
}

/** Drops jvm.options lines such as `20-:--add-modules=jdk.incubator.vector` that name a missing module. */
function withoutModules(jvmOptions: string, missingModules: readonly string[]): string {
  return jvmOptions
    .split('\n')
    .filter((line) => {
      const match = /^(?:[\d-]+:)?--add-modules=(.+)$/.exec(line.trim());
      return match === null || !missingModules.includes(match[1]);
    })
    .join('\n');
}

/** Writes the node's own config dir (a copy of the distribution's, with ports, paths and safe defaults). */
export function writeNodeConfig(config: NodeConfig): string {
  const { distribution, homeDir, httpPort, transportPort, dataDir } = config;
  const confDir = join(homeDir, 'config');
  cpSync(join(distribution, 'config'), confDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(join(homeDir, 'logs'));
  writeFileSync(
    join(confDir, 'opensearch.yml'),
    [
      'cluster.name: kfek-local',
      'node.name: kfek-local-1',
      'discovery.type: single-node',
      'network.host: 127.0.0.1',
      `http.port: ${httpPort}`,
      `transport.port: ${transportPort}`,
      `path.data: ${dataDir}`,
      `path.logs: ${join(homeDir, 'logs')}`,
      // A developer machine's disk is often over 90 % full; the default watermarks would make indices read-only.
      'cluster.routing.allocation.disk.threshold_enabled: false',
      // Tests create and delete indices freely.
      'action.destructive_requires_name: false',
      ...Object.entries(config.settings).map(([key, value]) => `${key}: ${String(value)}`),
      '',
    ].join('\n'),
  );
  // jvm.options points GC logs, heap dumps and crash files at paths relative to the distribution, which is shared
  // and not writable by the node's user: send them to this node's own dirs.
  const jvmOptionsFile = join(confDir, 'jvm.options');
  writeFileSync(
    jvmOptionsFile,
    withoutModules(readFileSync(jvmOptionsFile, 'utf8'), config.missingModules)
      .replaceAll('logs/', `${join(homeDir, 'logs')}/`)
      .replace(/HeapDumpPath=data\b/, `HeapDumpPath=${dataDir}`),
  );
  for (const [relative, content] of Object.entries(config.files ?? {})) {
    mkdirSync(dirname(join(confDir, relative)), { recursive: true });
    // Keys among them: readable by the node's user only (node-process.ts hands the folder over to it).
    writeFileSync(join(confDir, relative), content, { mode: 0o600 });
  }
  if (config.extraJvmOptions.length > 0) {
    // The launcher reads jvm.options.d/*.options after jvm.options, so these come later and win.
    mkdirSync(join(confDir, 'jvm.options.d'), { recursive: true });
    writeFileSync(
      join(confDir, 'jvm.options.d', 'kfek-java-runtime.options'),
      `${config.extraJvmOptions.join('\n')}\n`,
    );
  }
  return confDir;
}
