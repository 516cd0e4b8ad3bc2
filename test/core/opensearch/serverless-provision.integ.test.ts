/**
 * The provisioner on a Serverless collection (core/opensearch/serverless-provision.ts) through the conformance
 * stand-in (scripts/serverless/standin.ts) in front of the real node: every request signed for `aoss` and judged by
 * the data access policy kfek deploys. kfek's templates (the teams profile: the default family and each route's)
 * reach the collection through the APIs Serverless lists, the record is written, a second run changes nothing, a
 * hand edit is restored, a foreign template that would make OpenSearch refuse kfek's is refused before anything is
 * written, and the indexer's writer role may not provision. The provisioner signs as its own role, which the policy
 * gives the index templates and kfek's record only (not the admins' `aoss:*`): every run here passes under that
 * narrowed statement, and what lies outside it (a log index, deleting an index or a template) is refused for it.
 */
import { resolveConfig } from '../../../core/config';
import { openSearchSpecInputOf } from '../../../core/config/opensearch-spec';
import { OpenSearchAccessDeniedError } from '../../../core/opensearch/errors';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import {
  createHttpClient,
  type HttpClientOptions,
  type OpenSearchHttpClient,
} from '../../../core/opensearch/http';
import { handleEvent, PHYSICAL_RESOURCE_ID } from '../../../lambda/opensearch-provisioner/handler';
import { readRegistry, registryIndex, registryKey } from '../../../core/opensearch/registry';
import { collectionAccessPolicy } from '../../../core/opensearch/serverless-access';
import {
  CollectionTemplateClashError,
  provisionCollection,
} from '../../../core/opensearch/serverless-provision';
import { indexFamilies, resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import {
  type RunningStandin,
  startServerlessStandin,
  type StandinIdentity,
} from '../../../scripts/serverless/standin';
import { CDK_JSON_CONTEXT } from '../../helpers/app';
import { useOpenSearchNode } from '../../helpers/opensearch';
import { STANDIN_REGION, standinIdentity } from '../../helpers/serverless-standin';

jest.setTimeout(120_000);

const ADMIN = standinIdentity('admin');
const PROVISIONER = standinIdentity('provisioner');
const WRITER = standinIdentity('indexer');
const spec = resolveOpenSearchSpec(openSearchSpecInputOf(resolveConfig(CDK_JSON_CONTEXT, 'teams')));
const families = indexFamilies(spec);

describe('provisionCollection on the Serverless stand-in', () => {
  const node = useOpenSearchNode();
  let standin: RunningStandin;

  beforeAll(async () => {
    standin = await startServerlessStandin({
      upstream: node.node().url,
      region: STANDIN_REGION,
      identities: [ADMIN, PROVISIONER, WRITER],
      accessPolicy: collectionAccessPolicy({
        collection: 'kfek-standin',
        writers: [WRITER.principal],
        admins: [ADMIN.principal],
        provisioners: [PROVISIONER.principal],
        recordIndex: registryIndex(spec.name),
        families: families.map((f) => ({ indexPattern: f.indexPattern, readers: [] })),
      }),
    });
  });
  afterAll(() => standin?.close());

  const as = (who: StandinIdentity): OpenSearchHttpClient =>
    createHttpClient({
      baseUrl: standin.url,
      maxAttempts: 1,
      auth: { kind: 'sigv4', region: STANDIN_REGION, service: 'aoss', credentials: who },
    });
  /** One document sent through `_bulk` by `who`, with its id, as the indexer sends it. */
  const bulkOne = (who: StandinIdentity, index: string, id: string, source: object) =>
    as(who).request({
      method: 'POST',
      path: '/_bulk?refresh=true',
      body: `${JSON.stringify({ index: { _index: index, _id: id } })}\n${JSON.stringify(source)}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
  /**
   * The admin's read of a template: undefined when there is none. It retries what a busy node answers for a while
   * (429/502/503/504), so an assertion about the template is never decided by load; any other answer fails with it.
   */
  const template = async (name: string): Promise<Record<string, unknown> | undefined> => {
    const admin = createHttpClient({
      baseUrl: standin.url,
      maxAttempts: 5,
      auth: { kind: 'sigv4', region: STANDIN_REGION, service: 'aoss', credentials: ADMIN },
    });
    const got = await admin.request({ method: 'GET', path: `/_index_template/${name}` });
    if (got.status === 404) return undefined;
    const entries = (got.body as { index_templates?: { index_template: Record<string, unknown> }[] })
      .index_templates;
    if (got.status !== 200 || entries === undefined || entries.length !== 1) {
      throw new Error(
        `GET /_index_template/${name} as the admin answered HTTP ${got.status}: ${got.text.slice(0, 500)}`,
      );
    }
    return entries[0].index_template;
  };

  test("writes every family's template and kfek's record; a second run changes nothing", async () => {
    // GIVEN
    const refusedBefore = standin.refusals.length;
    // WHEN
    const first = await provisionCollection(as(PROVISIONER), spec);
    const recordAfterFirst = await readRegistry(as(ADMIN), spec.name);
    const second = await provisionCollection(as(PROVISIONER), spec);
    const recordAfterSecond = await readRegistry(as(ADMIN), spec.name);
    // THEN
    expect(standin.refusals.slice(refusedBefore)).toEqual([]);
    expect(first.steps.map((s) => [s.step, s.status])).toEqual(
      families.map((f) => [`index template ${f.names.indexTemplate}`, 'created']),
    );
    for (const f of families) {
      const stored = await template(f.names.indexTemplate);
      expect(stored?.index_patterns).toEqual([f.indexPattern]);
      expect(JSON.stringify(stored)).not.toMatch(/number_of_shards|default_pipeline|_routing/);
      expect(recordAfterFirst?.objects.has(registryKey('index-template', f.names.indexTemplate))).toBe(true);
    }
    expect(second.steps.every((s) => s.status === 'unchanged')).toBe(true);
    expect(recordAfterSecond?.seqNo).toBe(recordAfterFirst?.seqNo);
  });

  test("a new route index takes the template's mappings, not dynamic ones", async () => {
    // GIVEN
    await provisionCollection(as(PROVISIONER), spec);
    const route = families[1];
    const index = `${route.stem}-2026-11-29`;
    // WHEN: the writer sends a document whose `cloudwatch.owner` dynamic mapping would make text
    const bulk = await bulkOne(WRITER, index, 'mapped-1', {
      '@timestamp': '2026-11-29T10:00:00.000Z',
      message: 'm',
      cloudwatch: { owner: '1' },
    });
    const mapping = await as(ADMIN).request({ method: 'GET', path: `/${index}/_mapping` });
    // THEN
    expect([bulk.status, (bulk.body as { errors: boolean }).errors]).toEqual([200, false]);
    const owner = (mapping.body as Record<string, { mappings: { properties: Record<string, unknown> } }>)[
      index
    ].mappings.properties.cloudwatch as { properties: { owner: { type: string } } };
    expect(owner.properties.owner.type).toBe('keyword');
  });

  test('a template edited by hand is restored and reported as drift', async () => {
    // GIVEN
    await provisionCollection(as(PROVISIONER), spec);
    const name = families[0].names.indexTemplate;
    const edited = { ...(await template(name)), priority: 1 };
    await as(ADMIN).request({ method: 'PUT', path: `/_index_template/${name}`, body: edited });
    // WHEN
    const report = await provisionCollection(as(PROVISIONER), spec);
    // THEN
    expect(report.steps.find((s) => s.step === `index template ${name}`)).toMatchObject({
      status: 'updated',
      impact: 'drift',
    });
    expect((await template(name))?.priority).not.toBe(1);
  });

  test("fails when a template kfek does not own clashes with a family's, writing nothing", async () => {
    // GIVEN
    const route = families[1];
    const own = await template(route.names.indexTemplate);
    const clash = { index_patterns: [`${route.stem}-*`], priority: own?.priority, template: {} };
    // A clash is refused by OpenSearch on a PUT of either template: the foreign one goes in while kfek's is away.
    await as(ADMIN).request({ method: 'DELETE', path: `/_index_template/${route.names.indexTemplate}` });
    expect(
      (await as(ADMIN).request({ method: 'PUT', path: '/_index_template/team-own', body: clash })).status,
    ).toBe(200);
    // WHEN
    const run = provisionCollection(as(PROVISIONER), spec);
    // THEN
    await expect(run).rejects.toThrow(CollectionTemplateClashError);
    await expect(run).rejects.toThrow(/team-own .*same priority/);
    expect(await template(route.names.indexTemplate)).toBeUndefined();
    await as(ADMIN).request({ method: 'DELETE', path: '/_index_template/team-own' });
  });

  test("the custom resource's handler provisions the collection signed for aoss, as the provisioner's role", async () => {
    // GIVEN the Create event the Pipeline stack's provisioner gets for a serverless profile
    const event = {
      RequestType: 'Create',
      ResourceProperties: {
        ServiceToken: 'x',
        CollectionEndpoint: standin.url.replace('http://', 'https://'),
        Spec: JSON.stringify(openSearchSpecInputOf(resolveConfig(CDK_JSON_CONTEXT, 'teams'))),
      },
    } as unknown as CloudFormationCustomResourceEvent;
    const asked: HttpClientOptions[] = [];
    // WHEN: the stand-in listens on plain HTTP, so the handler's https URL is sent there as http
    const answer = await handleEvent(event, {
      region: STANDIN_REGION,
      createClient: (o) => {
        asked.push(o);
        return as(PROVISIONER);
      },
      provision: () => Promise.reject(new Error('a collection event provisioned a domain')),
      provisionCollection,
      log: () => undefined,
      clock: { now: Date.now, sleep: () => Promise.resolve() },
    });
    // THEN
    expect(asked).toEqual([
      expect.objectContaining({
        auth: expect.objectContaining({ kind: 'sigv4', service: 'aoss' }) as unknown,
      }),
    ]);
    expect(answer.PhysicalResourceId).toBe(PHYSICAL_RESOURCE_ID);
    expect(answer.Data?.Steps).toMatch(/unchanged/);
  });

  test("fails when the indexer's writer role provisions: the data access policy gives it no template permission", async () => {
    // WHEN
    const run = provisionCollection(as(WRITER), spec);
    // THEN
    await expect(run).rejects.toThrow(OpenSearchAccessDeniedError);
  });

  test("fails when the provisioner's role writes a log index, deletes an index or a template, or reads a family", async () => {
    // GIVEN kfek's templates and a family index in place, written by the provisioner and the indexer
    await provisionCollection(as(PROVISIONER), spec);
    const family = families[0];
    const index = `${family.stem}-2026-11-28`;
    const seeded = await bulkOne(WRITER, index, 'seed-1', { message: 'm' });
    expect(seeded.status).toBe(200);
    const refusedBefore = standin.refusals.length;
    // WHEN the provisioner's role tries what lies outside its statement
    const attempts = {
      'write a log index': await bulkOne(PROVISIONER, index, 'p-1', { message: 'x' }),
      'create a log index': await as(PROVISIONER).request({
        method: 'PUT',
        path: `/${family.stem}-2026-11-27`,
      }),
      'delete a log index': await as(PROVISIONER).request({ method: 'DELETE', path: `/${index}` }),
      'delete the record': await as(PROVISIONER).request({
        method: 'DELETE',
        path: `/${registryIndex(spec.name)}`,
      }),
      'delete a template': await as(PROVISIONER).request({
        method: 'DELETE',
        path: `/_index_template/${family.names.indexTemplate}`,
      }),
      'read a log index': await as(PROVISIONER).request({
        method: 'POST',
        path: `/${index}/_search`,
        body: {},
      }),
    };
    // THEN each is refused by the data access policy, and the index and the template are still there
    expect(Object.entries(attempts).map(([what, answer]) => [what, answer.status])).toEqual(
      Object.keys(attempts).map((what) => [what, 403]),
    );
    expect(standin.refusals.length - refusedBefore).toBe(Object.keys(attempts).length);
    expect(standin.refusals.slice(refusedBefore).every((r) => r.reason.includes(PROVISIONER.principal))).toBe(
      true,
    );
    expect((await as(ADMIN).request({ method: 'HEAD', path: `/${index}` })).status).toBe(200);
    expect(await template(family.names.indexTemplate)).toBeDefined();
  });
});
