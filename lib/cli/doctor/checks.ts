/**
 * The doctor's checks: pure functions from gathered facts to findings, one line of what was found and one line
 * of what to do. Gathering (AWS calls, synth) lives in facts.ts; nothing here does I/O, so every rule is tested
 * with hand-built facts.
 */
import { type AuthInfo, mappableArn } from '../proxy';
import type { NamedResource, ProfilePlan } from './plan';

export type Status = 'ok' | 'warn' | 'fail' | 'skip';

export interface Finding {
  /** Short id of the check (`credentials`, `bootstrap`, ...). */
  readonly check: string;
  readonly status: Status;
  /** What was found, in plain words. */
  readonly finding: string;
  /** What to do about it; absent when nothing needs doing. */
  readonly fix?: string;
}

/** A fact that was gathered, or why it could not be. */
export type Probe<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export interface BootstrapFacts {
  /** Status of the `CDKToolkit` stack; undefined when it does not exist. */
  readonly stackStatus: string | undefined;
  /** Its `BootstrapVersion` output. */
  readonly stackVersion: number | undefined;
  /** The SSM parameter the templates read at deploy time; undefined when missing. */
  readonly parameterVersion: number | undefined;
}

export interface LambdaFacts {
  /** `AccountLimit.ConcurrentExecutions`. */
  readonly concurrentExecutions: number;
  /** `AccountLimit.UnreservedConcurrentExecutions`. */
  readonly unreservedConcurrentExecutions: number;
}

/** `DescribeInstanceTypeLimits` for one node role: undefined limits mean the type is not offered. */
export interface InstanceFit {
  readonly role: 'data' | 'master';
  readonly instanceType: string;
  /** Why the type is not offered (the API's error); undefined when it is. */
  readonly unavailable?: string;
  readonly minimumCount?: number;
  readonly maximumCount?: number;
  /** EBS volume limits (GiB) of the storage type the domain uses. */
  readonly minimumVolumeGb?: number;
  readonly maximumVolumeGb?: number;
}

/** A resource with a name the profile wants that already exists in the account. */
export interface ExistingName extends NamedResource {
  /** The stack that owns it, when CloudFormation knows; undefined when it was created outside CloudFormation. */
  readonly ownerStack: string | undefined;
}

export interface DeployedStack {
  readonly stackName: string;
  readonly status: string;
  /** Output values by export name. */
  readonly exports: Readonly<Record<string, string>>;
  /** Output values by output key. */
  readonly outputs: Readonly<Record<string, string>>;
}

export interface SubscriptionFacts {
  readonly logGroupName: string;
  /** Destination ARNs of its subscription filters; undefined when the log group does not exist. */
  readonly destinationArns: readonly string[] | undefined;
}

/** Everything the doctor learned. A probe is undefined when it was not attempted (see the `skip` findings). */
export interface DoctorFacts {
  readonly profile: string;
  readonly region: Probe<string>;
  readonly identity?: Probe<string>;
  readonly plan?: Probe<ProfilePlan>;
  readonly bootstrap?: Probe<BootstrapFacts>;
  readonly lambda?: Probe<LambdaFacts>;
  readonly instances?: Probe<readonly InstanceFit[]>;
  readonly existing?: Probe<readonly ExistingName[]>;
  /** This profile's stacks that exist (absent ones are not listed). */
  readonly stacks?: Probe<readonly DeployedStack[]>;
  readonly subscriptions?: Probe<readonly SubscriptionFacts[]>;
  readonly authInfo?: Probe<AuthInfo>;
}

const skip = (check: string, why: string): Finding => ({ check, status: 'skip', finding: why });

/** Assumed shards of an on-demand stream: new ones start with 4 MiB/s of write capacity, i.e. 4 shards. */
export const ON_DEMAND_INITIAL_SHARDS = 4;
/** Lambda keeps this many unreserved concurrent executions; reservations cannot go below it. */
export const MIN_UNRESERVED_CONCURRENCY = 10;

export function checkCredentials(facts: DoctorFacts): Finding {
  const p = facts.identity;
  if (p === undefined) return skip('credentials', 'not checked: no region to ask STS in');
  if (!p.ok) {
    return {
      check: 'credentials',
      status: 'fail',
      finding: p.error,
      fix: 'run `aws sso login` (with AWS_PROFILE set), or set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY',
    };
  }
  const role = mappableArn(p.value);
  return {
    check: 'credentials',
    status: 'ok',
    finding:
      `signed in as ${p.value}; OpenSearch will see the backend role ${role}` +
      (role === p.value ? '' : ' (the role of this assumed-role session)'),
  };
}

export function checkRegion(facts: DoctorFacts): Finding {
  if (!facts.region.ok) {
    return {
      check: 'region',
      status: 'fail',
      finding: facts.region.error,
      fix: 'pass --region, or set AWS_REGION (or `region` in your AWS profile); deploy with the same one',
    };
  }
  return { check: 'region', status: 'ok', finding: `region ${facts.region.value}` };
}

export function checkSynth(facts: DoctorFacts): Finding {
  const p = facts.plan;
  if (p === undefined) return skip('synth', 'not checked (--skip-synth)');
  if (!p.ok) {
    return {
      check: 'synth',
      status: 'fail',
      finding: p.error,
      fix: `fix the error above, then \`npx cdk synth -c profile=${facts.profile}\` until it succeeds`,
    };
  }
  return {
    check: 'synth',
    status: 'ok',
    finding: `profile ${facts.profile} synthesizes: ${Object.values(p.value.stackNames).join(', ')}`,
  };
}

export function checkBootstrap(facts: DoctorFacts, plan: ProfilePlan | undefined): Finding {
  const p = facts.bootstrap;
  if (p === undefined) return skip('bootstrap', 'not checked: needs credentials and a region');
  const region = facts.region.ok ? facts.region.value : '<region>';
  const account = facts.identity?.ok === true ? (/:(\d{12}):/.exec(facts.identity.value)?.[1] ?? '') : '';
  const fix = `npx cdk bootstrap aws://${account || '<account>'}/${region}`;
  if (!p.ok) return { check: 'bootstrap', status: 'fail', finding: p.error, fix };
  const b = p.value;
  if (b.stackStatus === undefined) {
    return { check: 'bootstrap', status: 'fail', finding: `no CDKToolkit stack in ${region}`, fix };
  }
  if (/FAILED|ROLLBACK|DELETE/.test(b.stackStatus) && b.stackStatus !== 'UPDATE_ROLLBACK_COMPLETE') {
    return {
      check: 'bootstrap',
      status: 'fail',
      finding: `the CDKToolkit stack in ${region} is ${b.stackStatus}`,
      fix: `look at its events in the CloudFormation console, delete it if it never completed, then ${fix}`,
    };
  }
  const version = b.parameterVersion ?? b.stackVersion;
  const required = plan?.requiredBootstrapVersion;
  if (b.parameterVersion === undefined) {
    return {
      check: 'bootstrap',
      status: 'fail',
      finding:
        `the CDKToolkit stack exists but the parameter ${plan?.bootstrapParameter ?? '/cdk-bootstrap/hnb659fds/version'} ` +
        'the templates read at deploy time does not',
      fix: `${fix} (re-creates the parameter)`,
    };
  }
  if (required !== undefined && version !== undefined && version < required) {
    return {
      check: 'bootstrap',
      status: 'fail',
      finding: `bootstrap version ${version} in ${region}; the templates require ${required} or later`,
      fix: `${fix} (with this project's CDK CLI, \`npx cdk\`)`,
    };
  }
  return {
    check: 'bootstrap',
    status: 'ok',
    finding:
      `bootstrapped in ${region} (version ${version ?? '?'}` +
      (required !== undefined ? `, templates need ${required})` : ')'),
  };
}

export function checkLambdaConcurrency(facts: DoctorFacts, plan: ProfilePlan | undefined): Finding {
  const p = facts.lambda;
  if (p === undefined || plan === undefined)
    return skip('lambda-concurrency', 'not checked: needs credentials and a synthesized profile');
  if (!p.ok)
    return {
      check: 'lambda-concurrency',
      status: 'warn',
      finding: p.error,
      fix: 'allow lambda:GetAccountSettings, or check the quota in the Service Quotas console',
    };
  const onDemand = plan.consumers.some((c) => c.shardCount === undefined);
  const need = plan.consumers.reduce(
    (sum, c) => sum + c.parallelizationFactor * (c.shardCount ?? ON_DEMAND_INITIAL_SHARDS),
    0,
  );
  const { concurrentExecutions: limit, unreservedConcurrentExecutions: unreserved } = p.value;
  const available = unreserved - plan.reservedConcurrency;
  const needText =
    `the transform needs ${need} concurrent executions (shards x parallelization factor` +
    (onDemand ? `; an on-demand stream starts at ${ON_DEMAND_INITIAL_SHARDS} shards and grows` : '') +
    ')';
  const raise =
    'request "Concurrent executions" (quota L-B99A9384) of 1000 in Service Quotas > AWS Lambda for this region';
  if (plan.reservedConcurrency > 0 && available < MIN_UNRESERVED_CONCURRENCY) {
    return {
      check: 'lambda-concurrency',
      status: 'fail',
      finding: `the stacks reserve ${plan.reservedConcurrency} of ${unreserved} unreserved executions; Lambda keeps at least ${MIN_UNRESERVED_CONCURRENCY} unreserved`,
      fix: raise,
    };
  }
  if (need > available) {
    return {
      check: 'lambda-concurrency',
      status: 'fail',
      finding: `${needText}, but only ${available} of the account's ${limit} are unreserved`,
      fix: raise,
    };
  }
  if (limit <= MIN_UNRESERVED_CONCURRENCY) {
    return {
      check: 'lambda-concurrency',
      status: 'warn',
      finding: `${needText}; the account's limit is ${limit} (a new account's): every other function shares it`,
      fix: raise,
    };
  }
  return {
    check: 'lambda-concurrency',
    status: 'ok',
    finding: `${needText}; ${available} of ${limit} are unreserved`,
  };
}

export function checkInstanceTypes(facts: DoctorFacts, plan: ProfilePlan | undefined): Finding {
  const p = facts.instances;
  const domain = plan?.domain;
  if (p === undefined || domain === undefined)
    return skip('opensearch-instance', 'not checked: needs credentials and a synthesized profile');
  if (!p.ok)
    return {
      check: 'opensearch-instance',
      status: 'warn',
      finding: p.error,
      fix: 'allow es:DescribeInstanceTypeLimits, or compare with the OpenSearch Service pricing page for this region',
    };
  const region = facts.region.ok ? facts.region.value : 'this region';
  const problems: string[] = [];
  for (const fit of p.value) {
    const count = fit.role === 'data' ? domain.instanceCount : domain.masterCount;
    if (fit.unavailable !== undefined) {
      problems.push(
        `${fit.instanceType} (${fit.role}) is not offered for ${domain.engineVersion} in ${region}: ${fit.unavailable}`,
      );
      continue;
    }
    if (fit.maximumCount !== undefined && count > fit.maximumCount) {
      problems.push(
        `${count} ${fit.role} nodes exceed the ${fit.maximumCount} allowed for ${fit.instanceType}`,
      );
    }
    if (fit.minimumCount !== undefined && count < fit.minimumCount) {
      problems.push(
        `${count} ${fit.role} nodes are fewer than the ${fit.minimumCount} required for ${fit.instanceType}`,
      );
    }
    const size = domain.volumeSizeGb;
    if (fit.role === 'data' && size !== undefined) {
      if (fit.maximumVolumeGb !== undefined && size > fit.maximumVolumeGb) {
        problems.push(
          `a ${size} GiB volume exceeds the ${fit.maximumVolumeGb} GiB maximum of ${fit.instanceType}`,
        );
      }
      if (fit.minimumVolumeGb !== undefined && size < fit.minimumVolumeGb) {
        problems.push(
          `a ${size} GiB volume is below the ${fit.minimumVolumeGb} GiB minimum of ${fit.instanceType}`,
        );
      }
    }
  }
  if (problems.length > 0) {
    return {
      check: 'opensearch-instance',
      status: 'fail',
      finding: problems.join('; '),
      fix: `change openSearch.dataNodeInstanceType / dataNodeCount / volumeSizeGb (or dedicatedMasters) of profile ${facts.profile} in cdk.json`,
    };
  }
  const types = p.value.map((f) => `${f.instanceType} (${f.role})`).join(', ');
  return {
    check: 'opensearch-instance',
    status: 'ok',
    finding: `${types} offered for ${domain.engineVersion} in ${region}`,
  };
}

const KIND_TEXT: Readonly<Record<NamedResource['kind'], string>> = {
  'opensearch-domain': 'OpenSearch domain',
  'log-group': 'log group',
  'logs-resource-policy': 'CloudWatch Logs resource policy',
  'logs-account-policy': 'account-level subscription policy',
};

export function checkClashes(facts: DoctorFacts): Finding {
  const p = facts.existing;
  if (p === undefined) return skip('clashes', 'not checked: needs credentials and a synthesized profile');
  if (!p.ok)
    return {
      check: 'clashes',
      status: 'warn',
      finding: p.error,
      fix: 'allow the Describe/List calls named above, or look in the console',
    };
  // A name held by the very stack that wants it is an earlier deploy of this profile: an update, not a clash.
  const clashes = p.value.filter((e) => e.ownerStack !== e.stackName);
  if (clashes.length === 0) {
    return {
      check: 'clashes',
      status: 'ok',
      finding: 'no resource in the account holds a name this profile wants',
    };
  }
  const where = (e: ExistingName): string =>
    e.ownerStack === undefined ? 'outside CloudFormation' : `owned by stack ${e.ownerStack}`;
  const describe = (e: ExistingName): string =>
    e.kind === 'logs-account-policy'
      ? `${KIND_TEXT[e.kind]} ${e.name} exists (${where(e)}) and ${e.stackName} wants one too`
      : `${KIND_TEXT[e.kind]} ${e.name} (wanted by ${e.stackName}) exists, ${where(e)}`;
  const accountPolicy = clashes.some((e) => e.kind === 'logs-account-policy');
  return {
    check: 'clashes',
    status: 'fail',
    finding: clashes.map(describe).join('; '),
    fix:
      'delete what a failed or retained deploy left behind, or destroy the other profile first' +
      (accountPolicy
        ? '; a log group takes only one account-level subscription filter: enable the account-level policy in one profile per account and region'
        : ''),
  };
}

/** The stacks this profile deploys that exist: before the first deploy none do, and the later checks skip. */
export function checkStacks(facts: DoctorFacts, plan: ProfilePlan | undefined): Finding {
  const p = facts.stacks;
  if (p === undefined || plan === undefined)
    return skip('stacks', 'not checked: needs credentials and a synthesized profile');
  if (!p.ok)
    return { check: 'stacks', status: 'warn', finding: p.error, fix: 'allow cloudformation:DescribeStacks' };
  const wanted = Object.values(plan.stackNames);
  if (p.value.length === 0) {
    return {
      check: 'stacks',
      status: 'ok',
      finding: `not deployed yet (${wanted.join(', ')}): after-deploy checks skipped`,
    };
  }
  const byName = new Map(p.value.map((s) => [s.stackName, s]));
  const missing = wanted.filter((n) => !byName.has(n));
  const broken = p.value.filter(
    (s) =>
      !/_COMPLETE$/.test(s.status) ||
      (/ROLLBACK_COMPLETE$|^DELETE/.test(s.status) && s.status !== 'UPDATE_ROLLBACK_COMPLETE'),
  );
  if (broken.length > 0) {
    return {
      check: 'stacks',
      status: 'fail',
      finding: broken.map((s) => `${s.stackName} is ${s.status}`).join('; '),
      fix:
        'read the stack events (`aws cloudformation describe-stack-events --stack-name <name>`); a stack in ' +
        'ROLLBACK_COMPLETE must be deleted before it can be deployed again',
    };
  }
  if (missing.length > 0) {
    return {
      check: 'stacks',
      status: 'fail',
      finding: `${missing.join(', ')} not deployed (the others are)`,
      fix: `npx cdk deploy --all -c profile=${facts.profile}`,
    };
  }
  return { check: 'stacks', status: 'ok', finding: `${wanted.length} stacks deployed and complete` };
}

export function checkSubscriptions(facts: DoctorFacts, plan: ProfilePlan | undefined): Finding {
  const p = facts.subscriptions;
  if (p === undefined || plan === undefined)
    return skip('subscriptions', 'not checked: the stacks are not deployed');
  if (!p.ok)
    return {
      check: 'subscriptions',
      status: 'warn',
      finding: p.error,
      fix: 'allow logs:DescribeSubscriptionFilters',
    };
  const search =
    facts.stacks?.ok === true
      ? facts.stacks.value.find((s) => s.stackName === plan.stackNames.Search)
      : undefined;
  const problems: string[] = [];
  for (const want of plan.subscriptions) {
    const rawArn = want.destinationExport !== undefined ? search?.exports[want.destinationExport] : undefined;
    const got = p.value.find((s) => s.logGroupName === want.logGroupName);
    if (got?.destinationArns === undefined) {
      problems.push(`log group ${want.logGroupName} does not exist`);
    } else if (rawArn === undefined) {
      problems.push(
        `cannot tell the raw stream's ARN (no export ${want.destinationExport ?? '?'} on ${plan.stackNames.Search})`,
      );
    } else if (!got.destinationArns.includes(rawArn)) {
      problems.push(
        `${want.logGroupName} sends to ${got.destinationArns.length === 0 ? 'nothing' : got.destinationArns.join(', ')}, not the raw stream ${rawArn}`,
      );
    }
  }
  if (problems.length > 0) {
    return {
      check: 'subscriptions',
      status: 'fail',
      finding: problems.join('; '),
      fix: `redeploy the Sources stack (npx cdk deploy ${plan.stackNames.Sources ?? 'Sources'} -c profile=${facts.profile}); a log group has at most 2 subscription filters: remove foreign ones`,
    };
  }
  return {
    check: 'subscriptions',
    status: 'ok',
    finding: `${plan.subscriptions.length} log group(s) subscribed to the raw stream`,
  };
}

export function checkMapping(facts: DoctorFacts): Finding {
  const p = facts.authInfo;
  if (p === undefined) return skip('opensearch-mapping', 'not checked: the Search stack is not deployed');
  const who = facts.identity?.ok === true ? mappableArn(facts.identity.value) : 'your IAM principal';
  const fix =
    `put ${who} in openSearch.access.adminBackendRoles or readerBackendRoles of profile ${facts.profile} and ` +
    'redeploy; your identity policy must also allow es:ESHttp* on the domain';
  if (!p.ok) return { check: 'opensearch-mapping', status: 'fail', finding: p.error, fix };
  // Every authenticated caller gets own_index, whatever the mapping: it grants nothing on the pipeline's indices.
  const roles = p.value.roles.filter((r) => r !== 'own_index');
  if (roles.length === 0) {
    return {
      check: 'opensearch-mapping',
      status: 'fail',
      finding: `OpenSearch sees you as backend role ${p.value.backendRoles.join(', ') || '(none)'}, mapped to no role`,
      fix,
    };
  }
  return {
    check: 'opensearch-mapping',
    status: 'ok',
    finding: `OpenSearch maps you (${p.value.backendRoles.join(', ')}) to ${roles.join(', ')}`,
  };
}

/** All findings, in the order a person fixes them. */
export function runChecks(facts: DoctorFacts): readonly Finding[] {
  const plan = facts.plan?.ok === true ? facts.plan.value : undefined;
  return [
    checkRegion(facts),
    checkCredentials(facts),
    checkSynth(facts),
    checkBootstrap(facts, plan),
    checkLambdaConcurrency(facts, plan),
    checkInstanceTypes(facts, plan),
    checkClashes(facts),
    checkStacks(facts, plan),
    checkSubscriptions(facts, plan),
    checkMapping(facts),
  ];
}
