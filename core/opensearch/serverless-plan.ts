/**
 * What a deploy of a serverless profile creates on OpenSearch Serverless (issue 42, docs/serverless.md), read from
 * the synthesized Search template: the collection and its type, its collection group's capacity limits, and its
 * encryption, network and data access policies with who may do what on which index pattern. `kfek doctor` prints it
 * (cli/doctor/checks.ts) as it prints a domain's plan; pure, so it is tested on the templates themselves.
 */
import type { CfnResource } from '../change-plan';
import { isObject } from '../json';

export interface CollectionGroupPlan {
  readonly name: string;
  readonly generation: string;
  readonly minIndexingOcu: number;
  readonly maxIndexingOcu: number;
  readonly minSearchOcu: number;
  readonly maxSearchOcu: number;
}

/** One statement of the data access policy: principals named by what the template can tell (a role's logical id). */
export interface AccessPlan {
  readonly description: string;
  readonly principals: readonly string[];
  readonly patterns: readonly string[];
  readonly permissions: readonly string[];
}

/** A security or data access policy the deploy creates. */
export interface PolicyPlan {
  readonly type: string;
  readonly name: string;
  /**
   * The policy document as the template renders it, a token (a role's ARN) written as `<logical id>`, so `kfek
   * doctor` can compare it with a policy of the same name in the account; undefined when it is not JSON.
   */
  readonly document?: unknown;
}

export interface CollectionPlan {
  readonly name: string;
  readonly type: string;
  /** @default - no collection group (a Classic collection) */
  readonly group?: CollectionGroupPlan;
  /** `encryption: kfek-x-enc`, `network: kfek-x-net`, `data: kfek-x-acc`. */
  readonly policies: readonly PolicyPlan[];
  /** The data access policy's statements; empty when it could not be read from the template. */
  readonly access: readonly AccessPlan[];
}

type Json = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '?');
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));

/** A CloudFormation string (plain or `Fn::Join`), tokens written as `<logical id>`. */
function rendered(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = obj(value)['Fn::Join'];
  if (!Array.isArray(join) || !Array.isArray(join[1])) return '';
  return (join[1] as unknown[])
    .map((part) => {
      if (typeof part === 'string') return part;
      const getAtt = obj(part)['Fn::GetAtt'];
      return `<${Array.isArray(getAtt) ? str(getAtt[0]) : 'token'}>`;
    })
    .join(typeof join[0] === 'string' ? join[0] : '');
}

/** A policy document of the template, parsed; undefined when it is not JSON. */
function documentOf(policy: unknown): unknown {
  try {
    return JSON.parse(rendered(policy)) as unknown;
  } catch {
    return undefined;
  }
}

function accessOf(policy: unknown): AccessPlan[] {
  const statements = documentOf(policy);
  if (!Array.isArray(statements)) return [];
  return statements.map((s) => {
    const rules = Array.isArray(obj(s).Rules) ? (obj(s).Rules as unknown[]).map(obj) : [];
    const list = (key: string): string[] =>
      rules.flatMap((r) => (Array.isArray(r[key]) ? (r[key] as unknown[]).map(str) : []));
    return {
      description: str(obj(s).Description),
      principals: Array.isArray(obj(s).Principal) ? (obj(s).Principal as unknown[]).map(str) : [],
      patterns: [...new Set(list('Resource'))],
      permissions: [...new Set(list('Permission'))],
    };
  });
}

/** The collection a template's resources create, or undefined when they create none (a domain profile). */
export function collectionPlanOf(
  resources: Readonly<Record<string, CfnResource>>,
): CollectionPlan | undefined {
  const all = Object.values(resources);
  const collection = all.find((r) => r.Type === 'AWS::OpenSearchServerless::Collection');
  if (collection === undefined) return undefined;
  const p = obj(collection.Properties);
  const group = obj(all.find((r) => r.Type === 'AWS::OpenSearchServerless::CollectionGroup')?.Properties);
  const limits = obj(group.CapacityLimits);
  const policies = all.filter((r) =>
    ['AWS::OpenSearchServerless::SecurityPolicy', 'AWS::OpenSearchServerless::AccessPolicy'].includes(r.Type),
  );
  const dataPolicy = policies.find((r) => r.Type === 'AWS::OpenSearchServerless::AccessPolicy');
  return {
    name: str(p.Name),
    type: str(p.Type ?? 'TIMESERIES'),
    ...(group.Name === undefined
      ? {}
      : {
          group: {
            name: str(group.Name),
            generation: str(group.Generation),
            minIndexingOcu: num(limits.MinIndexingCapacityInOcu),
            maxIndexingOcu: num(limits.MaxIndexingCapacityInOcu),
            minSearchOcu: num(limits.MinSearchCapacityInOcu),
            maxSearchOcu: num(limits.MaxSearchCapacityInOcu),
          },
        }),
    policies: policies.map((r) => {
      const props = obj(r.Properties);
      const document = documentOf(props.Policy);
      return {
        type: str(props.Type),
        name: str(props.Name),
        ...(document === undefined ? {} : { document }),
      };
    }),
    access: accessOf(obj(dataPolicy?.Properties).Policy),
  };
}

/** The plan in a few lines, as `kfek doctor` prints it. */
export function describeCollectionPlan(plan: CollectionPlan): string {
  const g = plan.group;
  const capacity =
    g === undefined
      ? 'no collection group (Classic: at least 2 OCU always run)'
      : `${g.generation} group ${g.name}, indexing ${g.minIndexingOcu}-${g.maxIndexingOcu} OCU, search ` +
        `${g.minSearchOcu}-${g.maxSearchOcu} OCU`;
  const access = plan.access.map(
    (a) =>
      `${a.description}: ${a.permissions.join(', ')} on ${a.patterns.join(', ')} for ${a.principals.join(', ')}`,
  );
  return [
    `collection ${plan.name} (${plan.type}) in ${capacity}`,
    `policies ${plan.policies.map((p) => `${p.type} ${p.name}`).join(', ')}`,
    ...access,
  ].join('; ');
}
