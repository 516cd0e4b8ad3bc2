/**
 * The local node helper's pieces that do not need a node: JDK discovery (with real executable `java` scripts in a
 * temp dir, so the version parsing runs on real `java -version` output shapes) and free ports.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findJavaHome, freePort, JavaNotFoundError } from '../../scripts/opensearch-node';

let root: string;

/** Creates `<root>/<name>/bin/java` printing `versionLine` on stderr, as real JDKs do. */
function fakeJdk(name: string, versionLine: string): string {
  const home = join(root, name);
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(join(home, 'bin', 'java'), `#!/bin/sh\necho '${versionLine}' >&2\n`);
  chmodSync(join(home, 'bin', 'java'), 0o755);
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
    expect(findJavaHome({}, root)).toBe(newest);
  });

  test('an explicit OPENSEARCH_JAVA_HOME that qualifies wins over a newer JDK', () => {
    const explicit = fakeJdk('chosen-21', 'openjdk version "21.0.4" 2024-07-16 LTS');
    fakeJdk('temurin-25', 'openjdk version "25" 2025-09-16 LTS');
    expect(findJavaHome({ OPENSEARCH_JAVA_HOME: explicit }, root)).toBe(explicit);
  });

  test('an explicit OPENSEARCH_JAVA_HOME that is too old is passed over', () => {
    const old = fakeJdk('old-17', 'openjdk version "17.0.12" 2024-07-16');
    const good = fakeJdk('temurin-25', 'openjdk version "25" 2025-09-16 LTS');
    expect(findJavaHome({ OPENSEARCH_JAVA_HOME: old }, root)).toBe(good);
  });

  test('falls back to JAVA_HOME', () => {
    const javaHome = fakeJdk('elsewhere', 'openjdk version "22.0.1" 2024-04-16');
    expect(findJavaHome({ JAVA_HOME: javaHome }, join(root, 'missing'))).toBe(javaHome);
  });

  test('fails with what it looked at and how to fix it when no JDK qualifies', () => {
    fakeJdk('java-17', 'openjdk version "17.0.12" 2024-07-16');
    expect(() => findJavaHome({}, root)).toThrow(JavaNotFoundError);
    expect(() => findJavaHome({}, root)).toThrow(
      /needs Java 21 or newer; none found\. Looked at: .*java-17 \(17\).*OPENSEARCH_JAVA_HOME/,
    );
  });
});

describe('freePort', () => {
  test('returns a port that can be bound on 127.0.0.1', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
