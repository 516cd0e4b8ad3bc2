/**
 * `kfek doctor` on a serverless profile (issue 42, docs/serverless.md): are the names the deploy gives the collection
 * and its encryption, network and data access policies already held in the account and region? CloudFormation cannot
 * create a collection or a policy whose name (and type) exists (CreateCollection, CreateSecurityPolicy and
 * CreateAccessPolicy answer ConflictException), so each name held by anything but this profile's Search stack is a
 * finding of impact `fails` (core/contracts/impact.ts) with its fix, as a domain's name is (checks.ts `clashes`).
 *
 * Whose it is: CloudFormation's record of what it created (stack-owners.ts) decides, never the name, a tag or the
 * description, which anyone can copy (STYLE 22). What the account holds is then compared with what the deploy would
 * create (core/opensearch/serverless-held.ts decides how they differ), so the fix can tell a collection an earlier
 * deploy retained (RETAIN_ON_UPDATE_OR_DELETE) from someone else's.
 *
 * The calls: OpenSearch Serverless's control plane (core/opensearch/serverless-control.ts): BatchGetCollection,
 * GetSecurityPolicy and GetAccessPolicy.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { IMPACTS } from '../../core/contracts/impact';
import { messageOf } from '../../core/errors';
import { isObject } from '../../core/json';
import { type AossCall, AossCallError } from '../../core/opensearch/serverless-control';
import { heldDifferences, type ServerlessName } from '../../core/opensearch/serverless-held';
import type { CollectionPlan } from '../../core/opensearch/serverless-plan';
import { type DoctorFacts, type Finding, type HeldName, skip, unanswered } from './model';
import type { ProfilePlan } from './plan';
import { ownerIn, stackOwners } from './stack-owners';

/** What the account holds under one name: its physical id (CloudFormation's) and content, undefined when free. */
async function lookUp(
  clients: { readonly aoss: AossCall; readonly accessPolicies?: AossCall },
  n: ServerlessName,
): Promise<{ physicalId: string; content: unknown } | undefined> {
  if (n.kind === 'collection') {
    const out = await clients.aoss('BatchGetCollection', { names: [n.name] });
    const details = isObject(out) && Array.isArray(out.collectionDetails) ? out.collectionDetails : [];
    const found = details.filter(isObject).find((d) => d.name === n.name);
    // A collection's physical id in CloudFormation is its id, not its name.
    return found === undefined
      ? undefined
      : { physicalId: String(found.id), content: { type: found.type, group: found.collectionGroupName } };
  }
  const data = n.kind === 'data';
  const call = data ? (clients.accessPolicies ?? clients.aoss) : clients.aoss;
  try {
    const out = await call(data ? 'GetAccessPolicy' : 'GetSecurityPolicy', { name: n.name, type: n.kind });
    const detail = isObject(out) ? (data ? out.accessPolicyDetail : out.securityPolicyDetail) : undefined;
    const policy = isObject(detail) ? detail.policy : undefined;
    return { physicalId: n.name, content: typeof policy === 'string' ? JSON.parse(policy) : policy };
  } catch (error) {
    if (error instanceof AossCallError && error.code === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

/** The port: each name looked up on its own, so one refused call is one warning, not a lost check. */
export function serverlessNamesPort(clients: {
  readonly aoss: AossCall;
  /** GetAccessPolicy's caller (moto lacks it). @default - `aoss` */
  readonly accessPolicies?: AossCall;
  readonly cloudformation: CloudFormationClient;
}): (names: readonly ServerlessName[], stackPrefix: string) => Promise<readonly HeldName[]> {
  return async (names, stackPrefix) => {
    const looked = await Promise.all(
      names.map(async (n) => {
        try {
          return { ...n, held: await lookUp(clients, n) };
        } catch (error) {
          return { ...n, error: messageOf(error) };
        }
      }),
    );
    if (!looked.some((n) => 'held' in n && n.held !== undefined)) return looked;
    const owners = await stackOwners(clients.cloudformation, stackPrefix);
    return looked.map((n): HeldName => {
      if (!('held' in n) || n.held === undefined) return n;
      return { ...n, held: { ...n.held, ownerStack: ownerIn(owners, n.held.physicalId) } };
    });
  };
}

const WHAT: Readonly<Record<ServerlessName['kind'], string>> = {
  collection: 'OpenSearch Serverless collection',
  encryption: 'encryption policy',
  network: 'network policy',
  data: 'data access policy',
};

/** One finding of impact `fails` for a name held by anything but `searchStack`. */
function heldFinding(n: HeldName, plan: CollectionPlan, searchStack: string): Finding | undefined {
  const held = n.held;
  if (held === undefined || held.ownerStack === searchStack) return undefined;
  const diff = heldDifferences(n, held.content, plan);
  const where =
    held.ownerStack === undefined ? 'outside CloudFormation' : `owned by stack ${held.ownerStack}`;
  const what = `${WHAT[n.kind]} ${n.name} (wanted by ${searchStack}) exists, ${where}`;
  const finding =
    `${IMPACTS.fails.title}: ${what}; ` +
    (diff.length === 0 ? 'it is what kfek would create' : `${diff.join('; ')}: it is not kfek's`);
  const fix =
    held.ownerStack !== undefined
      ? `it belongs to stack ${held.ownerStack}: destroy that profile first, or give this profile another name ` +
        '(the collection and its policies are named after it)'
      : diff.length === 0
        ? 'no stack of this app owns it, so a deploy that retained it (RETAIN_ON_UPDATE_OR_DELETE) or someone who ' +
          `copied it left it: delete it once its data is saved, or bring it into ${searchStack} with cdk import; its ` +
          'name alone never makes it kfek’s'
        : 'it is someone else’s: give this profile another name, or delete it if nobody uses it';
  return { check: 'collection-names', status: IMPACTS.fails.severity, finding, fix };
}

/**
 * The names check of a serverless profile: one failed finding per name held by anything but this profile's Search
 * stack, one warning per name that could not be looked up, and one `ok` line when all are free or this stack's.
 */
export function checkServerlessNames(facts: DoctorFacts, plan: ProfilePlan): readonly Finding[] {
  const collection = plan.collection;
  const p = facts.serverlessNames;
  if (collection === undefined) return [];
  if (p === undefined) {
    return [skip('collection-names', 'not checked: needs credentials and a synthesized profile')];
  }
  const permissions = 'allow aoss:BatchGetCollection, aoss:GetSecurityPolicy and aoss:GetAccessPolicy';
  if (!p.ok) return [unanswered('collection-names', 'warn', p.error, permissions)];
  const searchStack = plan.stackNames.Search ?? '';
  const findings: Finding[] = [];
  for (const n of p.value) {
    if (n.error !== undefined) {
      findings.push({
        check: 'collection-names',
        status: 'warn',
        finding: `could not look up ${WHAT[n.kind]} ${n.name}: ${n.error}`,
        fix: permissions,
      });
    }
    const held = heldFinding(n, collection, searchStack);
    if (held !== undefined) findings.push(held);
  }
  if (findings.length > 0) return findings;
  const names = p.value.map((n) => n.name).join(', ');
  return [
    {
      check: 'collection-names',
      status: 'ok',
      finding: `${names}: free in the account, or already ${searchStack}'s (an update)`,
    },
  ];
}
