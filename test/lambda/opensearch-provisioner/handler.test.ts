import type {
  CloudFormationCustomResourceCreateEvent,
  CloudFormationCustomResourceDeleteEvent,
  CloudFormationCustomResourceEvent,
  CloudFormationCustomResourceUpdateEvent,
} from 'aws-lambda';
import {
  handleEvent,
  ACCESS_DENIED_RETRY_MILLIS,
  PHYSICAL_RESOURCE_ID,
  type ProvisionerDeps,
} from '../../../lambda/opensearch-provisioner/handler';
import { OpenSearchAccessDeniedError, OpenSearchSpecError } from '../../../core/opensearch/errors';
import type { HttpClientOptions } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { FakeOpenSearch, type FakeOptions } from '../../helpers/fake-opensearch-service';

const ENDPOINT = 'search-kfek-sandbox-abc.eu-west-1.es.amazonaws.com';
const SPEC = JSON.stringify({
  indexPrefix: 'logs',
  indexTemplate: { shards: 1, replicas: 0, totalFieldsLimit: 1000 },
  retention: { deleteAfterDays: 14 },
  access: {
    firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose',
    readerBackendRoles: [],
    readerUsers: [],
  },
});

const base = {
  ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:provider',
  ResponseURL: 'https://cloudformation-custom-resource-response.example/',
  StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/kfek-pipeline/1',
  RequestId: 'req-1',
  LogicalResourceId: 'Provisioner',
  ResourceType: 'Custom::KfekOpenSearchProvisioning',
};
const properties = { ServiceToken: base.ServiceToken, DomainEndpoint: ENDPOINT, Spec: SPEC, SpecHash: 'h1' };

function createEvent(extra: Record<string, string> = {}): CloudFormationCustomResourceCreateEvent {
  return { ...base, RequestType: 'Create', ResourceProperties: { ...properties, ...extra } };
}

function updateEvent(): CloudFormationCustomResourceUpdateEvent {
  return {
    ...base,
    RequestType: 'Update',
    PhysicalResourceId: PHYSICAL_RESOURCE_ID,
    ResourceProperties: { ...properties, SpecHash: 'h2' },
    OldResourceProperties: properties,
  };
}

function deleteEvent(): CloudFormationCustomResourceDeleteEvent {
  return {
    ...base,
    RequestType: 'Delete',
    PhysicalResourceId: PHYSICAL_RESOURCE_ID,
    ResourceProperties: properties,
  };
}

/** Deps whose HTTP clients are the fake domain; records the client options the handler asked for. */
function fakeDeps(options: FakeOptions = { ism: true, security: true, dashboards: true }): {
  deps: ProvisionerDeps;
  fake: FakeOpenSearch;
  clientOptions: HttpClientOptions[];
} {
  const fake = new FakeOpenSearch(options);
  const clientOptions: HttpClientOptions[] = [];
  const clock = { t: 0, now: () => clock.t, sleep: (ms: number) => Promise.resolve(void (clock.t += ms)) };
  const deps: ProvisionerDeps = {
    clock,
    region: 'eu-west-1',
    createClient: (o) => {
      clientOptions.push(o);
      return o.baseUrl.endsWith('/_dashboards') ? fake.dashboardsClient() : fake.client();
    },
    provision: provisionOpenSearch,
    provisionCollection: () => Promise.reject(new Error('a domain event provisioned a collection')),
    log: () => undefined,
  };
  return { deps, fake, clientOptions };
}

describe('opensearch-provisioner handler', () => {
  test('Create provisions over SigV4 to the domain and its Dashboards, with a stable physical id', async () => {
    // GIVEN
    const { deps, fake, clientOptions } = fakeDeps();

    // WHEN
    const response = await handleEvent(createEvent(), deps);

    // THEN
    expect(response.PhysicalResourceId).toBe(PHYSICAL_RESOURCE_ID);
    expect(response.Data?.Steps).toMatch(/index template kfek-logs: created/);
    expect(clientOptions).toEqual([
      { baseUrl: `https://${ENDPOINT}`, auth: { kind: 'sigv4', region: 'eu-west-1', service: 'es' } },
      {
        baseUrl: `https://${ENDPOINT}/_dashboards`,
        auth: { kind: 'sigv4', region: 'eu-west-1', service: 'es' },
      },
    ]);
    expect(fake.templates.has('kfek-logs')).toBe(true);
    expect(fake.policies.has('kfek-logs-retention')).toBe(true);
    expect(fake.mappings.get('kfek_writer')?.backend_roles).toEqual([
      'arn:aws:iam::123456789012:role/firehose',
    ]);
  });

  test('Update re-applies idempotently and keeps the physical id', async () => {
    // GIVEN
    const { deps, fake } = fakeDeps();
    await handleEvent(createEvent(), deps);

    // WHEN
    const response = await handleEvent(updateEvent(), deps);

    // THEN
    expect(response.PhysicalResourceId).toBe(PHYSICAL_RESOURCE_ID);
    // Only what changed or was kept is listed (the Data is limited to 4 KB), then how much stayed as it was.
    expect(response.Data?.Steps).toMatch(/^dashboards saved objects: updated; \d+ unchanged$/);
    expect(fake.templates.size).toBe(1);
  });

  test('Delete touches nothing and succeeds', async () => {
    // GIVEN
    const { deps, fake, clientOptions } = fakeDeps();

    // WHEN
    const response = await handleEvent(deleteEvent(), deps);

    // THEN
    expect(response).toEqual({ PhysicalResourceId: PHYSICAL_RESOURCE_ID });
    expect(clientOptions).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  test('Dashboards "false" skips the Dashboards client', async () => {
    const { deps, clientOptions, fake } = fakeDeps();
    const response = await handleEvent(createEvent({ Dashboards: 'false' }), deps);
    expect(clientOptions).toHaveLength(1);
    expect(fake.savedObjects.size).toBe(0);
    expect(response.Data?.Steps).toMatch(/dashboards saved objects: skipped/);
  });

  test('fails the deployment when the domain refuses the provisioner', async () => {
    const { deps } = fakeDeps({
      ism: true,
      security: true,
      dashboards: true,
      forbidden: ['/_index_template'],
    });
    await expect(handleEvent(createEvent(), deps)).rejects.toBeInstanceOf(OpenSearchAccessDeniedError);
  });

  test('waits out refusals while the just-attached IAM policy propagates, on a fake clock', async () => {
    // GIVEN: the first four calls are refused, as in the seconds after the role's policy was attached.
    const { deps, fake } = fakeDeps({
      ism: true,
      security: true,
      dashboards: true,
      forbiddenFirstRequests: 4,
    });
    // WHEN
    const response = await handleEvent(createEvent(), deps);
    // THEN
    expect(response.Data?.Steps).toMatch(/index template kfek-logs: created/);
    expect(fake.mappings.has('kfek_writer')).toBe(true);
    expect(deps.clock.now()).toBe(1000 + 2000 + 4000 + 8000);
  });

  test('fails when the refusal lasts longer than the retry budget, which stays well inside the Lambda timeout', async () => {
    // GIVEN
    const { deps } = fakeDeps({
      ism: true,
      security: true,
      dashboards: true,
      forbidden: ['/_index_template'],
    });
    // WHEN
    const run = handleEvent(createEvent(), deps);
    // THEN
    await expect(run).rejects.toThrow(/still refused after retrying for 120 s/);
    expect(deps.clock.now()).toBe(ACCESS_DENIED_RETRY_MILLIS);
    // The function times out after 5 minutes (opensearch-provisioner.test.ts asserts Timeout 300).
    expect(ACCESS_DENIED_RETRY_MILLIS).toBeLessThanOrEqual(300_000 / 2);
  });

  test('fails when the domain lacks ISM (an AWS domain always has it: something is wrong)', async () => {
    const { deps } = fakeDeps({ security: true, dashboards: true });
    await expect(handleEvent(createEvent(), deps)).rejects.toThrow(/ism plugin was required/);
  });

  test('fails with a spec error on an invalid spec or endpoint', async () => {
    const { deps } = fakeDeps();
    const badSpec = createEvent({ Spec: JSON.stringify({ indexPrefix: '_bad' }) });
    await expect(handleEvent(badSpec, deps)).rejects.toBeInstanceOf(OpenSearchSpecError);
    const badEndpoint: CloudFormationCustomResourceEvent = createEvent({ DomainEndpoint: 'https://x/y' });
    await expect(handleEvent(badEndpoint, deps)).rejects.toThrow(/DomainEndpoint must be a host name/);
  });

  test('a Dashboards failure does not fail the deployment; it is reported in Data', async () => {
    const { deps, fake } = fakeDeps({
      ism: true,
      security: true,
      dashboards: true,
      forbidden: ['/api/saved_objects'],
    });
    const response = await handleEvent(createEvent(), deps);
    expect(response.Data?.Steps).toMatch(/dashboards saved objects: failed/);
    expect(fake.templates.has('kfek-logs')).toBe(true);
  });
});
