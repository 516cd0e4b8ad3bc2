/**
 * assembled-distribution.ts on a made-up skeleton and a local Maven repository folder (no network): the skeleton's
 * jars go except the launch tools it keeps, the recipe's jars come in, and each module is laid out with its
 * descriptor at the recipe's version. The real recipe (recipe-2.19.ts) is proven by every test that starts a node.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

describe('the assembly says what it fetches in two lines, not two per jar', () => {
  const jars: MavenArtifact[] = Array.from({ length: 12 }, (_, i) => ({
    groupId: 'org.example',
    artifactId: `jar-${i}`,
    version: '1.0',
  }));
  const recipe: AssemblyRecipe = {
    version: '2.19.4',
    skeletonVersion: '2.19.6',
    keptFromSkeleton: [],
    lib: jars.slice(0, 8),
    modules: [
      {
        name: 'm',
        description: 'm',
        classname: 'org.example.M',
        extendedPlugins: [],
        jars: jars.slice(8),
      },
    ],
    name: 'test-v1',
  };
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const wanted = jars.find((j) => (request.url ?? '').startsWith(`/${artifactPath(j)}`));
      if (wanted === undefined) {
        response.writeHead(404).end();
        return;
      }
      const body = Buffer.alloc(250_000, wanted.artifactId);
      response
        .writeHead(200)
        .end(request.url?.endsWith('.sha1') === true ? createHash('sha1').update(body).digest('hex') : body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function skeleton(root: string): string {
    const distribution = join(root, `opensearch-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(distribution, 'lib'), { recursive: true });
    return distribution;
  }

  test('a first fetch: one line before, one with jars, bytes and seconds after', async () => {
    // GIVEN an empty cache and a repository on 127.0.0.1, and a clock that advances 2 s per reading
    const root = testTempDir('kfek-assemble-log-');
    const lines: string[] = [];
    let clock = 0;
    const maven = {
      cacheDir: join(root, 'cache'),
      localMavenRepository: join(root, 'm2'),
      repositoryUrl: baseUrl,
    };

    // WHEN
    await assemble(skeleton(root), recipe, { ...maven, log: (l) => lines.push(l) }, () => (clock += 2000));

    // THEN
    expect(lines).toEqual([
      "fetching the node's 12 jars from Maven Central (once; later runs use the cache)",
      '12 jars in 2.0 s: 12 downloaded (3.0 MB), 0 from the cache',
    ]);

    // WHEN the same jars are assembled again
    lines.length = 0;
    await assemble(skeleton(root), recipe, { ...maven, log: (l) => lines.push(l) }, () => (clock += 1000));

    // THEN only the closing line, and nothing downloaded
    expect(lines).toEqual(['12 jars in 1.0 s: 0 downloaded (0.0 MB), 12 from the cache']);
  });
});
