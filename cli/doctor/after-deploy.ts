/**
 * The checks that need a deployed profile: the stacks are complete, the log groups are subscribed to the raw
 * stream, and the caller is mapped in OpenSearch. Pure, like checks.ts.
 */
import { mappableArn } from '../proxy';
import { type DoctorFacts, type Finding, skip, unanswered } from './model';
import type { ProfilePlan } from './plan';

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
  if (!p.ok) return unanswered('subscriptions', 'warn', p.error, 'allow logs:DescribeSubscriptionFilters');
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
