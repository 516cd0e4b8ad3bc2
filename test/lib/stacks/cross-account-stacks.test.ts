/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasResource", "*.resourceCountIs", "*.allResources", "*.allResourcesProperties"] }] -- Template assertions throw on mismatch. */
import { App, Stack, Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import { regionFromSubscriptionFilters } from '../../../core/contracts/cross-account-naming';
import type { CrossAccountStacks } from '../../../lib/cross-account';
import { DestinationSubscriptions } from '../../../lib/constructs/destination-subscriptions';
import { LogsDestination } from '../../../lib/constructs/logs-destination';
import { LogsDestinationRole } from '../../../lib/constructs/logs-destination-role';
import { buildTestApp, CDK_JSON_CONTEXT } from '../../helpers/app';
import { testOutdir } from '../../helpers/temp-dirs';

const CENTRAL = '111122223333';
const ORG = 'o-a1b2c3d4e5';

/** A resolved value with `Fn::Join`s of strings and `Ref AWS::Partition` folded into plain strings (partition `aws`). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (o.Ref === 'AWS::Partition') return 'aws';
  if (Array.isArray(o['Fn::Join'])) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    const flat = parts.map(plain);
    if (flat.every((p) => typeof p === 'string')) return flat.join(sep);
    return { 'Fn::Join': [sep, flat] };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, plain(v)]));
}

/** A stack's template with {@link plain} applied. */
function plainTemplate(stack: Stack): Template {
  return Template.fromJSON(plain(Template.fromStack(stack).toJSON()) as Record<string, unknown>);
}

/** The stack of `region` in a map of stacks by region (throws when there is none). */
function inRegion<T>(stacks: ReadonlyMap<string, T>, region: string): T {
  const stack = stacks.get(region);
  if (stack === undefined) throw new Error(`no stack in ${region}`);
  return stack;
}

function crossAccountOf(options: Parameters<typeof buildTestApp>[0]): CrossAccountStacks {
  const { stacks } = buildTestApp(options);
  if (stacks.crossAccount === undefined) throw new Error('no cross-account stacks');
  return stacks.crossAccount;
}

describe('cross-account stacks (profile multi: two source accounts, two regions)', () => {
  let multi: CrossAccountStacks;
  let searchStream: Template;
  beforeAll(() => {
    const app = buildTestApp({ profile: 'multi' });
    if (app.stacks.crossAccount === undefined) throw new Error('no cross-account stacks');
    multi = app.stacks.crossAccount;
    searchStream = Template.fromStack(app.stacks.search);
  });

  test('the app has a role stack, a destination and a source stack per region, in the right environments', () => {
    // THEN
    expect(multi.role.stackName).toBe('kfek-multi-destination-role');
    expect([...multi.destinations.keys()]).toEqual(['eu-west-1', 'us-east-1']);
    expect([...multi.sources.keys()]).toEqual(['eu-west-1', 'us-east-1']);
    for (const [region, stack] of multi.destinations) {
      expect({ account: stack.account, region: stack.region }).toEqual({ account: CENTRAL, region });
      expect(stack.dependencies).toContain(multi.role);
    }
    for (const [region, stack] of multi.sources) {
      // The source stack serves every source account: its account is the one deploying it.
      expect(stack.region).toBe(region);
      expect(Token.isUnresolved(stack.account)).toBe(true);
      expect(stack.dependencies).toEqual([]);
    }
  });

  test('the raw stream gets a fixed name, the one the destinations target', () => {
    searchStream.hasResourceProperties('AWS::Kinesis::Stream', { Name: 'kfek-multi-raw' });
  });

  test.each(['eu-west-1', 'us-east-1'])(
    'destination in %s: targets the raw stream in eu-west-1 through the role, admits both source accounts',
    (region) => {
      // GIVEN
      const stack = inRegion(multi.destinations, region);
      const template = plainTemplate(stack);
      // THEN
      template.resourceCountIs('AWS::Logs::Destination', 1);
      template.hasResourceProperties('AWS::Logs::Destination', {
        DestinationName: 'kfek-multi',
        TargetArn: `arn:aws:kinesis:eu-west-1:${CENTRAL}:stream/kfek-multi-raw`,
        RoleArn: `arn:aws:iam::${CENTRAL}:role/kfek-multi-logs-destination`,
      });
      const text = plain(stack.resolve(stack.destination.destination.destinationPolicy)) as string;
      expect(JSON.parse(text)).toEqual({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'SourceAccounts',
            Effect: 'Allow',
            Principal: { AWS: ['222233334444', '333344445555'] },
            Action: ['logs:PutSubscriptionFilter', 'logs:PutAccountPolicy'],
            Resource: `arn:aws:logs:${region}:${CENTRAL}:destination:kfek-multi`,
          },
        ],
      });
    },
  );

  test('the role trusts CloudWatch Logs of each source account and region, and the central account', () => {
    // GIVEN
    const template = plainTemplate(multi.role);
    const arns = ['eu-west-1', 'us-east-1'].flatMap((r) =>
      ['222233334444', '333344445555', CENTRAL].map((a) => `arn:aws:logs:${r}:${a}:*`),
    );
    // THEN
    template.hasResourceProperties('AWS::IAM::Role', {
      RoleName: 'kfek-multi-logs-destination',
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Service: 'logs.amazonaws.com' },
            Action: 'sts:AssumeRole',
            Condition: { StringLike: { 'aws:SourceArn': Match.arrayEquals(arns) } },
          },
        ],
      },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Action: ['kinesis:PutRecord', 'kinesis:PutRecords'],
            Resource: { 'Fn::ImportValue': Match.stringLikeRegexp('RawStream') },
          },
          {
            Effect: 'Allow',
            Action: 'kms:GenerateDataKey',
            Resource: { 'Fn::ImportValue': Match.stringLikeRegexp('StreamKey') },
          },
        ],
      },
    });
  });

  test.each(['eu-west-1', 'us-east-1'])(
    "source stack in %s: subscribes each remote log group to that region's destination, as the sender role",
    (region) => {
      // GIVEN
      const stack = inRegion(multi.sources, region);
      const template = plainTemplate(stack);
      const destinationArn = `arn:aws:logs:${region}:${CENTRAL}:destination:kfek-multi`;
      // THEN
      template.resourceCountIs('AWS::Logs::SubscriptionFilter', 2);
      for (const name of ['/app/orders', '/app/payments']) {
        template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
          LogGroupName: name,
          FilterName: `kfek-multi@${region}`,
          DestinationArn: destinationArn,
          RoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('SubscriptionsRole'), 'Arn'] },
          FilterPattern: '',
          Distribution: 'Random',
        });
      }
      template.resourceCountIs('AWS::Logs::AccountPolicy', 0);
      // Source stacks never create (or delete) log groups in the source account.
      template.resourceCountIs('AWS::Logs::LogGroup', 0);
      // The sender role may only PutLogEvents, on the subscribed groups' streams (AWS's guide's resource form).
      const groupArn = (name: string): unknown => ({
        'Fn::Join': ['', [`arn:aws:logs:${region}:`, { Ref: 'AWS::AccountId' }, `:log-group:${name}:*`]],
      });
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Allow',
              Action: 'logs:PutLogEvents',
              Resource: [groupArn('/app/orders'), groupArn('/app/payments')],
            },
          ],
        },
      });
      // A StackSet instance needs nothing of CDK's bootstrap: no BootstrapVersion parameter or rule.
      const json = template.toJSON() as { Parameters?: object; Rules?: object };
      expect(json.Parameters ?? {}).toEqual({});
      expect(json.Rules ?? {}).toEqual({});
      // The filter name is the transform's region marker.
      expect(regionFromSubscriptionFilters([`kfek-multi@${region}`])).toBe(region);
    },
  );

  test('single-account profiles have no cross-account stacks, but their streams are named from the first deploy', () => {
    // GIVEN
    const { stacks } = buildTestApp({ profile: 'sandbox' });
    // THEN
    expect(stacks.crossAccount).toBeUndefined();
    // Adding source accounts later needs the fixed name; a name given later would replace the stream.
    Template.fromStack(stacks.search).hasResourceProperties('AWS::Kinesis::Stream', {
      Name: 'kfek-sandbox-raw',
    });
  });
});

describe('cross-account stacks with an organization and account-level policies', () => {
  let org: CrossAccountStacks;
  beforeAll(() => {
    const multi = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Record<string, unknown>> }).profiles
      .multi;
    org = crossAccountOf({
      overrides: {
        ...multi,
        sources: {
          ...(multi.sources as object),
          accounts: [],
          organizationId: ORG,
          regions: ['us-east-1'],
          remote: {
            logGroups: ['/app/orders'],
            accountPolicy: { enabled: true, excludeLogGroups: ['/aws/noisy'] },
          },
        },
      },
    });
  });

  test('the destination admits the organization by aws:PrincipalOrgID', () => {
    // GIVEN
    const stack = inRegion(org.destinations, 'us-east-1');
    const policy = JSON.parse(
      plain(stack.resolve(stack.destination.destination.destinationPolicy)) as string,
    ) as {
      Statement: unknown[];
    };
    // THEN
    expect(policy.Statement).toEqual([
      {
        Sid: 'SourceOrganization',
        Effect: 'Allow',
        Principal: '*',
        Action: ['logs:PutSubscriptionFilter', 'logs:PutAccountPolicy'],
        Resource: `arn:aws:logs:us-east-1:${CENTRAL}:destination:kfek-test`,
        Condition: { StringEquals: { 'aws:PrincipalOrgID': [ORG] } },
      },
    ]);
  });

  test('the role trusts CloudWatch Logs of any account in the source region (the destination policy gates)', () => {
    plainTemplate(org.role).hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Condition: {
              StringLike: {
                'aws:SourceArn': ['arn:aws:logs:us-east-1:*:*', `arn:aws:logs:us-east-1:${CENTRAL}:*`],
              },
            },
          }),
        ],
      },
    });
  });

  test('the source stack sets an account policy that excludes the listed groups and the subscribed ones', () => {
    // GIVEN
    const stack = inRegion(org.sources, 'us-east-1');
    const template = Template.fromStack(stack);
    // THEN
    template.hasResourceProperties('AWS::Logs::AccountPolicy', {
      PolicyName: 'kfek-test@us-east-1',
      PolicyType: 'SUBSCRIPTION_FILTER_POLICY',
      Scope: 'ALL',
      SelectionCriteria: 'LogGroupName NOT IN ["/aws/noisy","/app/orders"]',
      PolicyDocument: Match.anyValue(),
    });
  });
});

describe('cross-account constructs validate first', () => {
  const stack = (): Stack =>
    new Stack(new App({ outdir: testOutdir() }), 'S', { env: { account: CENTRAL, region: 'eu-west-1' } });

  /** A destination in a fresh stack admitting `sourceAccounts`. */
  const destination = (sourceAccounts: readonly string[]): LogsDestination =>
    new LogsDestination(stack(), 'D', {
      destinationName: 'd',
      targetArn: 'arn:aws:kinesis:eu-west-1:111122223333:stream/s',
      roleArn: 'arn:aws:iam::111122223333:role/r',
      sourceAccounts,
    });

  test('fails when a destination admits nobody', () => {
    expect(() => destination([])).toThrow(
      /neither sourceAccounts nor organizationId is set; the destination would admit nobody/,
    );
  });

  test('fails when the access policy would exceed 5120 bytes, pointing at organizationId', () => {
    const many = Array.from({ length: 400 }, (_v, i) => String(200000000000 + i));
    expect(() => destination(many)).toThrow(
      /at most 5120\. Admit the accounts through sources\.organizationId/,
    );
  });

  test('fails when the destination role has no region or no source', () => {
    const s = stack();
    const stream = new kinesis.Stream(s, 'Stream');
    const role = (id: string, sourceAccounts: string[], regions: string[]): LogsDestinationRole =>
      new LogsDestinationRole(s, id, { stream, roleName: 'r', sourceAccounts, regions });
    expect(() => role('R1', ['222233334444'], [])).toThrow(/regions is empty/);
    expect(() => role('R2', [], ['eu-west-1'])).toThrow(/neither sourceAccounts nor organizationId is set/);
  });

  test('fails when the source side would subscribe nothing', () => {
    expect(
      () =>
        new DestinationSubscriptions(stack(), 'S', {
          destinationArn: 'arn:aws:logs:eu-west-1:111122223333:destination:d',
          filterName: 'd@eu-west-1',
          logGroupNames: [],
        }),
    ).toThrow(/no log group and no account policy/);
  });
});
