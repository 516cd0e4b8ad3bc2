/**
 * assembled-distribution.ts on a made-up skeleton and a local Maven repository folder (no network): the skeleton's
 * jars go except the launch tools it keeps, the recipe's jars come in, and each module is laid out with its
 * descriptor at the recipe's version. The real recipe (recipe-2.19.ts) is proven by every test that starts a node.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assemble, type AssemblyRecipe } from '../../../scripts/opensearch/assembled-distribution';
import { artifactPath, type MavenArtifact } from '../../../scripts/opensearch/maven';
import { RECIPE_2_19 } from '../../../scripts/opensearch/recipe-2.19';
import { testTempDir } from '../../helpers/temp-dirs';

function publish(repository: string, artifact: MavenArtifact): void {
  const file = join(repository, artifactPath(artifact));
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${artifact.artifactId}:${artifact.version}`);
}

test('replaces the skeleton jars with the recipe, keeps the launch tools, lays out the modules', async () => {
  // GIVEN a skeleton of another patch version and a repository holding the recipe's jars
  const root = testTempDir('kfek-assemble-');
  const distribution = join(root, 'opensearch-2.19.6');
  const repository = join(root, 'm2');
  mkdirSync(join(distribution, 'lib'), { recursive: true });
  mkdirSync(join(distribution, 'modules', 'transport-netty4'), { recursive: true });
  for (const jar of ['opensearch-2.19.6.jar', 'lucene-core-9.12.3.jar', 'opensearch-launchers-2.19.6.jar']) {
    writeFileSync(join(distribution, 'lib', jar), 'skeleton');
  }
  writeFileSync(join(distribution, 'modules', 'transport-netty4', 'netty-old.jar'), 'skeleton');
  const recipe: AssemblyRecipe = {
    version: '2.19.4',
    skeletonVersion: '2.19.6',
    keptFromSkeleton: ['opensearch-launchers'],
    lib: [{ groupId: 'org.opensearch', artifactId: 'opensearch', version: '2.19.4' }],
    modules: [
      {
        name: 'lang-painless',
        description: 'painless',
        classname: 'org.opensearch.painless.PainlessPlugin',
        extendedPlugins: [],
        jars: [{ groupId: 'org.opensearch.plugin', artifactId: 'lang-painless', version: '2.19.4' }],
        securityPolicy: 'grant {};\n',
      },
    ],
    name: 'test-v1',
  };
  for (const jar of [...recipe.lib, ...recipe.modules.flatMap((m) => m.jars)]) publish(repository, jar);

  // WHEN
  await assemble(distribution, recipe, { cacheDir: join(root, 'cache'), localMavenRepository: repository });

  // THEN
  expect(readdirSync(join(distribution, 'lib')).sort()).toEqual([
    'opensearch-2.19.4.jar',
    'opensearch-launchers-2.19.6.jar',
  ]);
  expect(readFileSync(join(distribution, 'lib', 'opensearch-2.19.4.jar'), 'utf8')).toBe('opensearch:2.19.4');
  expect(readdirSync(join(distribution, 'modules'))).toEqual(['lang-painless']);
  const descriptor = readFileSync(
    join(distribution, 'modules', 'lang-painless', 'plugin-descriptor.properties'),
    'utf8',
  );
  expect(descriptor).toMatch(/^version=2\.19\.4$/m);
  expect(descriptor).toMatch(/^opensearch\.version=2\.19\.4$/m);
  expect(descriptor).toMatch(/^classname=org\.opensearch\.painless\.PainlessPlugin$/m);
  expect(readFileSync(join(distribution, 'modules', 'lang-painless', 'plugin-security.policy'), 'utf8')).toBe(
    'grant {};\n',
  );
});

test('the 2.19 recipe pins one version per artifact and names every module kfek uses', () => {
  const all = [...RECIPE_2_19.lib, ...RECIPE_2_19.modules.flatMap((m) => m.jars)];
  const versions = new Map<string, Set<string>>();
  for (const a of all) versions.set(a.artifactId, (versions.get(a.artifactId) ?? new Set()).add(a.version));
  expect([...versions].filter(([, v]) => v.size > 1)).toEqual([]);
  expect(RECIPE_2_19.lib).toContainEqual({
    groupId: 'org.opensearch',
    artifactId: 'opensearch',
    version: '2.19.4',
  });
  expect(RECIPE_2_19.modules.map((m) => m.name).sort()).toEqual([
    'analysis-common',
    'ingest-common',
    'lang-painless',
    'reindex',
    'transport-netty4',
  ]);
});
