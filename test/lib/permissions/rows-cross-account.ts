/**
 * Matrix rows of cross-account delivery (docs/multi-account.md): source account -> destination -> raw stream.
 *
 * Every hop is derived from the templates: the destinations (`AWS::Logs::Destination`) with their access policy,
 * role and target; the source stacks' subscription filters and account policy that name a destination's ARN, and
 * the role they pass. A source stack is one template for every source account, so its calls are evaluated once per
 * source account (the model resolves it in that account) and, with an organization, for a member account.
 */
import type {
  AppModel,
  AppResource,
  Call,
  NamedPolicy,
  PolicyDocument,
} from '../../helpers/permission-matrix';
import { OTHER_ACCOUNT } from '../../helpers/permission-matrix';
import { assume, caller, role, stream, writeCalls, type Row, type VariantTraits } from './calls';

/** A member account of the organization (not listed in `sources.accounts`). */
export const ORG_MEMBER = '555566667777';
const isCrossAccount = (v: VariantTraits): boolean => v.crossAccount;

/** One destination, where it is, and what it is wired to. */
interface Destination {
  readonly resource: AppResource;
  readonly arn: string;
  readonly region: string;
  readonly policy: NamedPolicy;
}

function destinations(m: AppModel): Destination[] {
  const found = m.findAll('AWS::Logs::Destination').map((d) => {
    const { account, region } = m.resolver.targetOf(d.stackName);
    return {
      resource: d,
      arn: `arn:aws:logs:${region}:${account}:destination:${d.properties.DestinationName as string}`,
      region,
      policy: {
        name: `${d.path} access policy`,
        policy: JSON.parse(d.properties.DestinationPolicy as string) as PolicyDocument,
      },
    };
  });
  if (found.length === 0) throw new Error('no AWS::Logs::Destination in a cross-account variant');
  return found;
}

/** The source accounts a variant admits: the listed ones, and with an organization one member account. */
function sourceAccounts(m: AppModel): { account: string; context: Record<string, string> }[] {
  const s = m.testApp.config.sources;
  const org = s.organizationId;
  // A listed account outside the organization still gets in through its own statement.
  const listed: Record<string, string> = org === undefined ? {} : { 'aws:PrincipalOrgID': 'o-notthisone0' };
  return [
    ...s.accounts.map((account) => ({ account, context: listed })),
    ...(org === undefined ? [] : [{ account: ORG_MEMBER, context: { 'aws:PrincipalOrgID': org } }]),
  ];
}

/** What a source stack (resolved in `account`) subscribes to `destination`: filters and account policies. */
function subscriptionsTo(
  m: AppModel,
  destination: Destination,
): { kind: 'filter' | 'account policy'; logGroup: string; roleArn: string; path: string }[] {
  const filters = m
    .findAll('AWS::Logs::SubscriptionFilter')
    .filter((f) => f.properties.DestinationArn === destination.arn)
    .map((f) => ({
      kind: 'filter' as const,
      logGroup: f.properties.LogGroupName as string,
      roleArn: f.properties.RoleArn as string,
      path: f.path,
    }));
  const policies = m
    .findAll('AWS::Logs::AccountPolicy')
    .map((p) => ({ p, doc: JSON.parse(p.properties.PolicyDocument as string) as Record<string, string> }))
    .filter(({ doc }) => doc.DestinationArn === destination.arn)
    .map(({ p, doc }) => ({
      kind: 'account policy' as const,
      // A log group the policy covers (not in its exclusions).
      logGroup: '/aws/lambda/orders-service',
      roleArn: doc.RoleArn,
      path: p.path,
    }));
  const all = [...filters, ...policies];
  if (all.length === 0) throw new Error(`nothing subscribes to ${destination.arn}`);
  return all;
}

/**
 * The identity that deploys a source stack: CDK's CloudFormation execution role (AdministratorAccess unless the
 * bootstrap was customised) or a StackSet execution role; either holds `*` in its own account.
 */
function deployer(account: string, region: string): Pick<Call, 'caller' | 'principal' | 'identityPolicies'> {
  const principal = `arn:aws:iam::${account}:role/cdk-hnb659fds-cfn-exec-role-${account}-${region}`;
  return {
    caller: `source account ${account} deployer`,
    principal,
    identityPolicies: [
      {
        name: 'AdministratorAccess',
        policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
      },
    ],
  };
}

/** Calls of one hop for every admitted source account and every destination. */
function perSource(
  m: AppModel,
  hop: (
    src: AppModel,
    source: { account: string; context: Record<string, string> },
    destination: Destination,
  ) => Call[],
): Call[] {
  return sourceAccounts(m).flatMap((source) => {
    const src = m.inSourceAccount(source.account);
    return destinations(m).flatMap((d) => hop(src, source, d));
  });
}

export const CROSS_ACCOUNT_ROWS: readonly Row[] = [
  {
    // PutAccountPolicy is not resource-scoped in IAM (the simulator, like IAM, only takes `*` for it), so whether
    // the destination's access policy admits an account policy is CloudWatch Logs' own check: the destination
    // policy grants it in the same statement as PutSubscriptionFilter, which is evaluated here.
    name: 'source account | logs:PutSubscriptionFilter | each region destination | identity, destination access policy',
    when: isCrossAccount,
    calls: (m) =>
      perSource(m, (src, source, d) =>
        subscriptionsTo(src, d)
          .filter((sub) => sub.kind === 'filter')
          .map((sub): Call => ({
            ...deployer(source.account, d.region),
            action: 'logs:PutSubscriptionFilter',
            resource: `${d.resource.path} (${sub.path})`,
            resourceArn: d.arn,
            resourceAccount: m.account,
            resourcePolicy: d.policy,
            context: source.context,
            expect: 'Allowed',
          })),
      ),
  },
  {
    name: 'CloudWatch Logs (source account) | sts:AssumeRole (aws:SourceArn of the subscribed log group) | sender role | trust',
    when: isCrossAccount,
    calls: (m) =>
      perSource(m, (src, source, d) =>
        subscriptionsTo(src, d).map((sub) =>
          assume(src, role(src, sub.roleArn), 'logs.amazonaws.com', {
            'aws:SourceArn': `arn:aws:logs:${d.region}:${source.account}:log-group:${sub.logGroup}`,
            'aws:SourceAccount': source.account,
          }),
        ),
      ),
  },
  {
    // AWS's guide grants the sender role logs:PutLogEvents on the subscribed log group (IAM has no destination
    // resource for the action); CloudWatch Logs checks it in the source account before forwarding.
    name: 'sender role | logs:PutLogEvents | each subscribed log group (every group with an account policy) | identity',
    when: isCrossAccount,
    calls: (m) =>
      perSource(m, (src, source, d) =>
        subscriptionsTo(src, d).map((sub): Call => {
          const r = role(src, sub.roleArn);
          const group = `arn:aws:logs:${d.region}:${source.account}:log-group:${sub.logGroup}`;
          return {
            ...caller(src, r),
            action: 'logs:PutLogEvents',
            resource: `${sub.path} log group ${sub.logGroup}`,
            resourceArn: `${group}:log-stream:2026/11/23/app-0123`,
            resourceAccount: source.account,
            expect: 'Allowed',
          };
        }),
      ),
  },
  {
    name: 'CloudWatch Logs (delivering for a source account, and the creation test write) | sts:AssumeRole | destination role | trust',
    when: isCrossAccount,
    calls: (m) => [
      ...perSource(m, (src, source, d) =>
        subscriptionsTo(src, d).map((sub) =>
          assume(m, role(m, d.resource.properties.RoleArn as string), 'logs.amazonaws.com', {
            'aws:SourceArn': `arn:aws:logs:${d.region}:${source.account}:log-group:${sub.logGroup}`,
            'aws:SourceAccount': source.account,
          }),
        ),
      ),
      ...destinations(m).map((d) =>
        assume(m, role(m, d.resource.properties.RoleArn as string), 'logs.amazonaws.com', {
          'aws:SourceArn': d.arn,
          'aws:SourceAccount': m.account,
        }),
      ),
    ],
  },
  {
    name: 'destination role | kinesis:PutRecord(s), kms:GenerateDataKey | raw stream (each destination target, any region), stream key | identity, key',
    when: isCrossAccount,
    calls: (m) =>
      destinations(m).flatMap((d) =>
        writeCalls(
          m,
          role(m, d.resource.properties.RoleArn as string),
          stream(m, d.resource.properties.TargetArn as string),
        ),
      ),
  },
];

export const CROSS_ACCOUNT_DENY_ROWS: readonly Row[] = [
  {
    name: 'an account neither listed nor in the organization | logs:PutSubscriptionFilter | destination | denied by the access policy',
    when: isCrossAccount,
    calls: (m) =>
      destinations(m).map((d): Call => ({
        ...deployer(OTHER_ACCOUNT, d.region),
        action: 'logs:PutSubscriptionFilter',
        resource: d.resource.path,
        resourceArn: d.arn,
        resourceAccount: m.account,
        resourcePolicy: d.policy,
        context: { 'aws:PrincipalOrgID': 'o-notthisone0' },
        expect: 'Denied',
      })),
  },
  {
    name: 'CloudWatch Logs for an account not listed | sts:AssumeRole | destination role | trust denies',
    // With an organization the trust admits any account in the region; the access policy is the gate.
    when: (v) => v.crossAccount && !v.organization,
    calls: (m) =>
      destinations(m).map((d) =>
        assume(
          m,
          role(m, d.resource.properties.RoleArn as string),
          'logs.amazonaws.com',
          {
            'aws:SourceArn': `arn:aws:logs:${d.region}:${OTHER_ACCOUNT}:log-group:/x`,
            'aws:SourceAccount': OTHER_ACCOUNT,
          },
          'Denied',
        ),
      ),
  },
  {
    name: 'CloudWatch Logs for another account | sts:AssumeRole | a source account sender role | trust denies',
    when: isCrossAccount,
    calls: (m) =>
      perSource(m, (src, _source, d) =>
        subscriptionsTo(src, d).map((sub) =>
          assume(
            src,
            role(src, sub.roleArn),
            'logs.amazonaws.com',
            {
              'aws:SourceArn': `arn:aws:logs:${d.region}:${OTHER_ACCOUNT}:log-group:${sub.logGroup}`,
              'aws:SourceAccount': OTHER_ACCOUNT,
            },
            'Denied',
          ),
        ),
      ),
  },
];
