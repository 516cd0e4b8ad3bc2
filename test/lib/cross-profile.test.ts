/**
 * Every profile of cdk.json, deployed together into one account and region (issue 11, section 2): no two profiles
 * may claim the same physical name, or the second `cdk deploy` fails with "already exists". The names are read
 * generically from the synthesized templates (test/helpers/physical-names.ts), not from a hand-kept list.
 */
import { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { buildKfek } from '../../lib/app';
import { CONTEXT_KEY, resolveConfig } from '../../core/config';
import { CDK_JSON_CONTEXT, testContext } from '../helpers/app';
import { clashes, nameClaims, unlistedResourceTypes } from '../helpers/physical-names';
import { testOutdir } from '../helpers/temp-dirs';

type Profiles = Record<string, Record<string, unknown>>;

const SHIPPED: Profiles = (CDK_JSON_CONTEXT[CONTEXT_KEY] as { profiles: Profiles }).profiles;

/** Synthesizes each profile of `profiles` as its own app (one `cdk deploy -c profile=NAME` each). */
function synthAll(profiles: Profiles): Map<string, CloudAssembly> {
  const context = { ...testContext(), [CONTEXT_KEY]: { profiles } };
  const out = new Map<string, CloudAssembly>();
  for (const profile of Object.keys(profiles)) {
    const app = new App({ context, outdir: testOutdir() });
    buildKfek(app, resolveConfig(context, profile));
    out.set(profile, app.synth());
  }
  return out;
}

/** The shipped profiles with some settings changed (objects merge one level deep, which is all the variants use). */
function variant(changes: Profiles): Profiles {
  const out: Profiles = { ...SHIPPED };
  for (const [profile, change] of Object.entries(changes)) {
    const base = SHIPPED[profile] ?? {};
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(change)) {
      const current = base[key];
      merged[key] =
        typeof current === 'object' && current !== null && typeof value === 'object' && value !== null
          ? { ...current, ...value }
          : value;
    }
    out[profile] = merged;
  }
  return out;
}

const SCENARIOS: Record<string, Profiles> = {
  'cdk.json as shipped': SHIPPED,
  // The variants turn on every optional resource: the account-level policy (in one profile: the documented
  // exception, see below), the alarm e-mail subscription, and the Pipes transport in a retained profile.
  'with the account-level policy, alarm e-mail and Pipes variants': variant({
    sandbox: { sources: { accountPolicy: { enabled: true } }, alarms: { email: 'ops@example.com' } },
    // Batch size 10, as documented for Pipes: a larger one only adds synth's batch-size warning to the output.
    production: { transport: 'pipes', transform: { batchSize: 10 }, alarms: { email: 'ops@example.com' } },
  }),
};

describe('every profile, together, in one account and region', () => {
  const assemblies = new Map<string, Map<string, CloudAssembly>>();
  beforeAll(() => {
    for (const [name, profiles] of Object.entries(SCENARIOS)) assemblies.set(name, synthAll(profiles));
  });

  test.each(Object.keys(SCENARIOS))('%s: every resource type is in the physical-name table', (scenario) => {
    // GIVEN
    const synthesized = [...(assemblies.get(scenario)?.values() ?? [])];
    // WHEN
    const unlisted = new Set(synthesized.flatMap((a) => unlistedResourceTypes(a)));
    // THEN: add a new type to NAME_PROPERTIES (test/helpers/physical-names.ts) with its name property, or [] and why.
    expect([...unlisted]).toEqual([]);
  });

  test.each(Object.keys(SCENARIOS))('%s: no two profiles claim the same physical name', (scenario) => {
    // GIVEN
    const synthesized = assemblies.get(scenario) ?? new Map<string, CloudAssembly>();
    // WHEN
    const claims = [...synthesized].flatMap(([profile, assembly]) => nameClaims(assembly, profile));
    // THEN
    expect(synthesized.size).toBe(Object.keys(SCENARIOS[scenario]).length);
    expect(clashes(claims)).toEqual([]);
  });

  test('the check sees fixed names: one profile deployed twice clashes on its domain, log groups and stacks', () => {
    // GIVEN: the same profile synthesized twice, as if deployed twice into one account.
    const once = synthAll({ sandbox: SHIPPED.sandbox }).get('sandbox');
    if (once === undefined) throw new Error('sandbox did not synthesize');
    // WHEN
    const found = clashes([...nameClaims(once, 'first'), ...nameClaims(once, 'second')]).join('\n');
    // THEN
    expect(found).toMatch(/AWS::OpenSearchService::Domain\.DomainName = kfek-sandbox:/);
    expect(found).toMatch(/AWS::Logs::LogGroup\.LogGroupName = \/kfek\/sandbox\/app:/);
    expect(found).toMatch(/AWS::Logs::ResourcePolicy\.PolicyName = /);
    expect(found).toMatch(/AWS::CloudFormation::Stack = kfek-sandbox-search:/);
    expect(found).toMatch(/CloudFormation export = kfek-sandbox-search:/);
  });

  test('the account-level subscription policy is one per account and region, whatever its name', () => {
    // GIVEN: two profiles that would both enable it (synthesized one at a time, past the config check, which
    // refuses this combination in one cdk.json: see config.test.ts).
    const a = synthAll({
      sandbox: variant({ sandbox: { sources: { accountPolicy: { enabled: true } } } }).sandbox,
    });
    const b = synthAll({
      production: variant({ production: { sources: { accountPolicy: { enabled: true } } } }).production,
    });
    // WHEN
    const claims = [...a, ...b].flatMap(([profile, assembly]) => nameClaims(assembly, profile));
    // THEN
    expect(clashes(claims)).toEqual([
      expect.stringMatching(
        /^account-region account-level subscription filter policy .*sandbox .* and production /,
      ),
    ]);
  });
});
