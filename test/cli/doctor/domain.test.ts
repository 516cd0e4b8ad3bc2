/**
 * `kfek doctor` plans the domain (issue 30.7): for each change inside OpenSearch (domain-transitions.ts, the rows of
 * docs/deploy.md's "Changes inside the domain"), what the doctor says before the deploy, read from the synthesized
 * and the deployed template's provisioner spec; and, when it can read the domain, the hand edits it will revert and
 * what OpenSearch would refuse.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { checkDomain } from '../../../cli/doctor/domain';
import { outputReferences, provisionerSpecInputOf } from '../../../core/change-plan/provisioner-spec';
import type { DoctorFacts, Finding, Probe } from '../../../cli/doctor/model';
import type { ProfilePlan } from '../../../cli/doctor/plan';
import { exitCodeOf } from '../../../cli/doctor/report';
import type { CfnTemplate } from '../../../core/change-plan';
import { resolveConfig } from '../../../core/config';
import { readDomainFor } from '../../../core/opensearch/domain-read';
import type { DomainState } from '../../../core/opensearch/domain-state';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { buildTestApp, CDK_JSON_CONTEXT } from '../../helpers/app';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';
import { pipelineTemplateOf, specInputOf } from '../../helpers/provisioner-template';
import { DOMAIN_TRANSITIONS, type Profile } from './domain-transitions';
import { markdownTableCells } from '../../helpers/doc-snippets';

const FIREHOSE_ARN = 'arn:aws:iam::123456789012:role/kfek-test-delivery';
const INDEXER_ARN = 'arn:aws:iam::123456789012:role/kfek-test-indexer';
const NOW = Date.UTC(2026, 10, 27, 12);
const SHIPPED = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Profile> }).profiles;
/** The shipped teams profile with default readers and an admin, the start of every row. */
const BASE: Profile = {
  ...SHIPPED.teams,
  openSearch: {
    access: {
      readerBackendRoles: ['log-readers'],
      adminBackendRoles: ['arn:aws:iam::123456789012:role/Ops'],
    },
  },
};
const DEPLOY_DOC = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'deploy.md'), 'utf8');

function planWith(template: CfnTemplate): ProfilePlan {
  return {
    profile: 'test',
    stackNames: { Pipeline: 'kfek-test-pipeline' },
    requiredBootstrapVersion: 6,
    bootstrapParameter: undefined,
    domain: {
      name: 'kfek-test',
      engineVersion: 'OpenSearch_2.19',
      instanceType: 't3.small.search',
      instanceCount: 1,
      masterCount: 0,
    },
    consumers: [],
    reservedConcurrency: 0,
    namedResources: [],
    subscriptions: [],
    stacks: [
      {
        id: 'Pipeline',
        stackName: 'kfek-test-pipeline',
        account: undefined,
        region: undefined,
        dependsOn: [],
        template,
      },
    ],
  };
}

function factsWith(before: CfnTemplate | undefined, domain?: Probe<DomainState>): DoctorFacts {
  return {
    profile: 'test',
    region: { ok: true, value: 'eu-west-1' },
    identity: { ok: true, value: 'arn:aws:iam::123456789012:user/ops' },
    deployedTemplates: {
      ok: true,
      value:
        before === undefined
          ? []
          : [{ stackName: 'kfek-test-pipeline', status: 'UPDATE_COMPLETE', template: before }],
    },
    stacks: {
      ok: true,
      value: [
        {
          stackName: 'kfek-test-pipeline',
          status: 'UPDATE_COMPLETE',
          exports: {},
          outputs: { FirehoseRoleArn: FIREHOSE_ARN, IndexerRoleArn: INDEXER_ARN },
        },
      ],
    },
    now: NOW,
    ...(domain === undefined ? {} : { domain }),
  };
}

const UNREADABLE: Probe<DomainState> = { ok: false, error: "reading kfek's objects in OpenSearch: HTTP 403" };

/** The doctor's domain findings for a change from `from` to `to`, planned from the templates alone. */
function doctor(from: Profile, to: Profile): readonly Finding[] {
  return checkDomain(factsWith(pipelineTemplateOf(from), UNREADABLE), planWith(pipelineTemplateOf(to)));
}

/** The cells of the "Changes inside the domain" row whose first cell is `change`. */
function docRow(change: string): string[] | undefined {
  const start = DEPLOY_DOC.indexOf('### Changes inside the domain');
  const end = DEPLOY_DOC.indexOf('\n## ', start);
  return markdownTableCells(DEPLOY_DOC.slice(start, end)).find((cells) => cells[0] === change);
}

describe('the spec the doctor reads from a template', () => {
  test("is the provisioner's: the synthesized teams template gives the spec the profile makes, the role ARN resolved", () => {
    // GIVEN the real Pipeline stack of the teams profile
    const { stacks, config } = buildTestApp({ profile: 'teams' });
    const template = Template.fromStack(stacks.pipeline).toJSON() as CfnTemplate;
    const indexerArn = 'arn:aws:iam::123456789012:role/kfek-teams-indexer';
    // WHEN the references resolve from the deployed stack's outputs (the indexer's ARN, a join of pseudo
    // parameters that CDK inlines into the spec, part by part)
    const refs = outputReferences(template, { FirehoseRoleArn: FIREHOSE_ARN, IndexerRoleArn: indexerArn });
    const input = provisionerSpecInputOf(template, refs);
    // THEN it is what test/helpers/provisioner-template.ts builds for the rows below
    expect(input).toEqual(specInputOf(config, FIREHOSE_ARN, indexerArn));
    expect(provisionerSpecInputOf(pipelineTemplateOf(SHIPPED.teams), new Map())).toMatchObject({
      access: { firehoseRoleArn: expect.stringMatching(/^<.*DeliveryRole.*>$/) as string },
    });
  });
});

describe.each(DOMAIN_TRANSITIONS)('kfek doctor before "$change"', (row) => {
  const findings = doctor(BASE, row.to(BASE));
  const domain = findings.filter((f) => f.check.startsWith('domain'));

  test(`says ${row.doctor}, in ${Object.keys(row.checks).join(', ')}`, () => {
    for (const [check, status] of Object.entries(row.checks)) {
      expect({ check, status: findings.find((f) => f.check === check)?.status }).toEqual({ check, status });
    }
    // The domain could not be read here, which is itself a warning on the head line; the rows' own verdicts are below it.
    const verdicts = new Set(
      domain.filter((f) => f.check !== 'domain' && f.status !== 'skip').map((f) => f.status),
    );
    const worst = verdicts.has('fail') ? 'fail' : verdicts.has('warn') ? 'warn' : 'ok';
    expect(worst).toBe(row.doctor);
    expect(exitCodeOf(domain)).toBe(row.doctor === 'fail' ? 1 : 0);
    // Every finding that is not ok says what to do.
    expect(domain.filter((x) => x.status === 'fail' && x.fix === undefined)).toEqual([]);
  });

  test('is the row of docs/deploy.md "Changes inside the domain"', () => {
    const cells = docRow(row.change);
    expect(cells).toBeDefined();
    const doctorCell = cells?.[cells.length - 1] ?? '';
    expect(doctorCell).toMatch(
      row.doctor === 'fail' ? /^\*\*FAIL\*\*/ : row.doctor === 'warn' ? /^WARN/ : /^ok/,
    );
    for (const check of Object.keys(row.checks)) expect(doctorCell).toContain(`\`${check}\``);
  });
});

describe('kfek doctor with the domain read', () => {
  const spec = resolveOpenSearchSpec(
    specInputOf(resolveConfig({ kfek: { profiles: { test: BASE } } }, 'test'), FIREHOSE_ARN),
  );

  async function deployedDomain(): Promise<FakeOpenSearch> {
    const fake = new FakeOpenSearch(
      { ism: true, security: true, indices: ['logs-2026-11-26', 'payments-2026-11-26'] },
      () => NOW,
    );
    await provisionOpenSearch(fake.client(), spec, { now: () => NOW });
    return fake;
  }

  test('warns of hand edits it will revert, and fails for a member mapped by hand who would lose access', async () => {
    // GIVEN someone restricted kfek_reader and mapped a colleague to it by hand
    const fake = await deployedDomain();
    const reader = fake.roles.get('kfek_reader') as { index_permissions: object[] };
    fake.roles.set('kfek_reader', {
      ...reader,
      index_permissions: reader.index_permissions.map((p) => ({ ...p, dls: '{"match_all":{}}' })),
    });
    fake.mappings.set('kfek_reader', { backend_roles: ['log-readers', 'colleague'], hosts: [], users: [] });
    // WHEN the same profile is planned against the domain
    const state = await readDomainFor(fake.client(), spec);
    const template = pipelineTemplateOf(BASE);
    const findings = checkDomain(factsWith(template, { ok: true, value: state }), planWith(template));
    // THEN
    expect(findings.find((f) => f.check === 'domain')?.finding).toMatch(
      /^inside OpenSearch, read from the domain \(OpenSearch 2\.19\.4\)/,
    );
    expect(findings.find((f) => f.check === 'domain-drift')).toMatchObject({
      status: 'warn',
      finding: expect.stringMatching(
        /hand edits reverted: security role kfek_reader \(.*a hand edit is reverted/,
      ) as string,
    });
    expect(findings.find((f) => f.check === 'domain-loses-access')).toMatchObject({
      status: 'fail',
      finding: expect.stringMatching(
        /role mapping kfek_reader \(removes backend role colleague; \(backend role colleague mapped by hand/,
      ) as string,
      fix: expect.stringMatching(/name them in the profile/) as string,
    });
  });

  test('warns of a retention policy and a template edited by hand with their marks kept, saying what changed', async () => {
    // GIVEN kfek's ISM policy edited to delete after 1 day (description kept) and its template given an extra pattern
    const fake = await deployedDomain();
    const policy = fake.policies.get('kfek-logs-retention');
    if (policy === undefined) throw new Error('no kfek-logs-retention');
    fake.policies.set('kfek-logs-retention', {
      ...policy,
      policy: JSON.parse(
        JSON.stringify(policy.policy).replace(/"min_index_age":"\d+d"/, '"min_index_age":"1d"'),
      ) as Record<string, unknown>,
    });
    const template = fake.templates.get('kfek-logs') as { index_patterns: string[] };
    fake.templates.set('kfek-logs', { ...template, index_patterns: [...template.index_patterns, 'foo-*'] });
    // WHEN the same profile is planned against the domain
    const state = await readDomainFor(fake.client(), spec);
    const template0 = pipelineTemplateOf(BASE);
    const findings = checkDomain(factsWith(template0, { ok: true, value: state }), planWith(template0));
    // THEN
    const drift = findings.find((f) => f.check === 'domain-drift');
    expect(drift?.status).toBe('warn');
    expect(drift?.finding).toMatch(/ISM policy kfek-logs-retention \(.*min_index_age 1d -> \d+d/);
    expect(drift?.finding).toMatch(/index template kfek-logs \(.*index_patterns \+ foo-\*/);
  });

  test('fails for a template OpenSearch would refuse, naming the one it ties with and the fix', async () => {
    // GIVEN a template of someone else's at the priority a new prefix's template would take
    const fake = await deployedDomain();
    fake.templates.set('team-logs', { index_patterns: ['logs-v2-team-*'], priority: 207 });
    const state = await readDomainFor(fake.client(), spec);
    // WHEN the prefix changes to logs-v2
    const after = pipelineTemplateOf({ ...BASE, delivery: { indexPrefix: 'logs-v2' } });
    const findings = checkDomain(
      factsWith(pipelineTemplateOf(BASE), { ok: true, value: state }),
      planWith(after),
    );
    // THEN
    expect(findings.find((f) => f.check === 'domain-refused')).toMatchObject({
      status: 'fail',
      finding: expect.stringMatching(
        /index template kfek-logs-v2 \(OpenSearch refuses it: template team-logs .* same priority 207/,
      ) as string,
      fix: "give template team-logs a priority other than 207 (kfek's templates take 200 + the length of their stem)",
    });
    expect(exitCodeOf(findings)).toBe(1);
  });

  test('before the first deploy, says what the deploy will create', () => {
    const findings = checkDomain(factsWith(undefined), planWith(pipelineTemplateOf(BASE)));
    expect(findings.find((f) => f.check === 'domain')).toEqual({
      check: 'domain',
      status: 'ok',
      finding:
        "not deployed yet: the first deploy creates 3 families of indices' template, retention policy and reader role",
    });
  });

  test('warns when the shards would reach 80% of what the data nodes hold (config refuses more at synth)', () => {
    // 901 daily indices of the default route, 31 and 8 of the routes, and the reserve: 990 of 1,000.
    const near = {
      ...BASE,
      openSearch: { retention: { deleteAfterDays: 900 } },
      failedRecords: { expireAfterDays: 1000 },
    };
    const statusOf = (profile: Profile): unknown =>
      checkDomain(factsWith(undefined), planWith(pipelineTemplateOf(profile))).find(
        (f) => f.check === 'domain-shards',
      )?.status;
    expect(statusOf(BASE)).toBe('ok');
    expect(statusOf(near)).toBe('warn');
  });
});
