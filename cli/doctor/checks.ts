/**
 * The doctor's checks: pure functions from gathered facts to findings, one line of what was found and one line
 * of what to do. Gathering (AWS calls, synth) lives in facts.ts; nothing here does I/O, so every rule is tested
 * with hand-built facts.
 *
 * Why one file of about 300 lines: every check is a short pure rule over the same facts, listed in the order the
 * doctor prints them; one file is the table of what doctor checks.
 */
import { deliveryOf } from '../../core/change-plan';
import { mappableArn } from '../proxy';
import { checkMapping, checkStacks, checkSubscriptions } from './after-deploy';
import { checkChange } from './change';
import { checkDomain } from './domain';
import { type CollectionPlan, describeCollectionPlan } from '../../core/opensearch/serverless-plan';
import { checkServerlessNames } from './serverless-names';
import { checkStreamRetention } from './stream-retention';
import { type DoctorFacts, type ExistingName, type Finding, skip, unanswered } from './model';
import type { NamedResource, ProfilePlan } from './plan';

/** Assumed shards of an on-demand stream: new ones start with 4 MiB/s of write capacity, i.e. 4 shards. */
export const ON_DEMAND_INITIAL_SHARDS = 4;
/** Lambda keeps this many unreserved concurrent executions; reservations cannot go below it. */
export const MIN_UNRESERVED_CONCURRENCY = 10;

export function checkCredentials(facts: DoctorFacts): Finding {
  const p = facts.identity;
  if (p === undefined) return skip('credentials', 'not checked: no region to ask STS in');
  if (!p.ok) {
    return unanswered(
      'credentials',
      'fail',
      p.error,
      'run `aws sso login` (with AWS_PROFILE set), or set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY',
    );
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
    return unanswered(
      'region',
      'fail',
      facts.region.error,
      'pass --region, or set AWS_REGION (or `region` in your AWS profile); deploy with the same one',
    );
  }
  return { check: 'region', status: 'ok', finding: `region ${facts.region.value}` };
}

export function checkSynth(facts: DoctorFacts): Finding {
  const p = facts.plan;
  if (p === undefined) {
    // Without a region nothing after it is asked; only a user's --skip-synth leaves the plan out otherwise.
    return skip('synth', facts.region.ok ? 'not checked (--skip-synth)' : 'not checked: needs a region');
  }
  if (!p.ok) {
    const fix = `fix the error above, then \`npx cdk synth -c profile=${facts.profile}\` until it succeeds`;
    return unanswered('synth', 'fail', p.error, fix);
  }
  // Which delivery the profile deploys (config `delivery.mode`): a switch of it is planned by the change check.
  const delivery = deliveryOf(p.value.stacks.find((s) => s.id === 'Pipeline')?.template);
  return {
    check: 'synth',
    status: 'ok',
    finding:
      `profile ${facts.profile} synthesizes: ${Object.values(p.value.stackNames).join(', ')}` +
      (delivery === undefined
        ? ''
        : `; delivery ${delivery === 'direct' ? "direct (kfek's indexer)" : 'firehose'}`),
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
    return unanswered(
      'lambda-concurrency',
      'warn',
      p.error,
      'allow lambda:GetAccountSettings, or check the quota in the Service Quotas console',
    );
  const onDemand = plan.consumers.some((c) => c.shardCount === undefined);
  const need = plan.consumers.reduce(
    (sum, c) => sum + c.parallelizationFactor * (c.shardCount ?? ON_DEMAND_INITIAL_SHARDS),
    0,
  );
  const { concurrentExecutions: limit, unreservedConcurrentExecutions: unreserved } = p.value;
  const available = unreserved - plan.reservedConcurrency;
  const needText =
    `the stream readers (the transform, and the indexer with delivery direct) need ${need} concurrent executions ` +
    '(shards x parallelization factor' +
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
  if (plan?.collection !== undefined)
    return skip(
      'opensearch-instance',
      'not applicable: a Serverless collection has no instances, OCUs scale with use',
    );
  if (p === undefined || domain === undefined)
    return skip('opensearch-instance', 'not checked: needs credentials and a synthesized profile');
  if (!p.ok)
    return unanswered(
      'opensearch-instance',
      'warn',
      p.error,
      'allow es:DescribeInstanceTypeLimits, or compare with the OpenSearch Service pricing page for this region',
    );
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
    return unanswered(
      'clashes',
      'warn',
      p.error,
      'allow the Describe/List calls named above, or look in the console',
    );
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

/**
 * What a deploy creates on OpenSearch Serverless; a group that never scales to zero is said, since it bills its
 * minimum OCUs around the clock (docs/serverless.md, "What it costs").
 */
function checkCollection(plan: CollectionPlan): Finding {
  const g = plan.group;
  const floor = g === undefined ? undefined : g.minIndexingOcu + g.minSearchOcu;
  return floor === 0
    ? { check: 'collection', status: 'ok', finding: describeCollectionPlan(plan) }
    : {
        check: 'collection',
        status: 'warn',
        finding: `${describeCollectionPlan(plan)}: it never idles at zero compute`,
        fix: 'set openSearch.serverless.capacity.minIndexingOcu and minSearchOcu to 0 to scale to zero when idle',
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
    ...checkChange(facts, plan),
    checkStreamRetention(facts, plan),
    ...(plan?.collection === undefined
      ? checkDomain(facts, plan)
      : [checkCollection(plan.collection), ...checkServerlessNames(facts, plan)]),
    checkStacks(facts, plan),
    checkSubscriptions(facts, plan),
    checkMapping(facts),
  ];
}
