/**
 * Temporary directories a test file needs (cloud assemblies, empty HOMEs), removed after the file by
 * test/helpers/jest-setup.ts, so a run leaves nothing in the temp dir even when a test fails half-way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];

/** A new empty directory `<tmpdir>/<prefix>XXXXXX`, removed after the test file. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/**
 * A fresh output directory for one test `App` (`new App({ outdir: testOutdir() })`). Without it every synth
 * creates a `cdk.outXXXXXX` directory in the temp dir that nothing removes.
 */
export function testOutdir(): string {
  return testTempDir('kfek-test-cdk.out-');
}

/** Removes every directory {@link testTempDir} made in this test file (jest-setup.ts calls it in afterAll). */
export function removeTestTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
