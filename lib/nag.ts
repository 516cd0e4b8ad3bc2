/**
 * Helpers for acknowledging cdk-nag findings precisely.
 *
 * cdk-nag 3 reports wildcard resources as granular ids such as
 * `AwsSolutions-IAM5[Resource::<flattened ARN>]`, where the flattened ARN contains the resolved references
 * (`Fn::ImportValue` export names, `Fn::GetAtt` logical ids). Those are only known once the app has been prepared
 * (cross-stack references resolved), so {@link justifyWildcardResources} registers a construct validation that
 * runs after preparation and before the validation plugins, resolves each justified resource in the policy's stack
 * and acknowledges exactly those. Any other wildcard is still reported.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/** One justified wildcard resource and why it is safe. */
export interface WildcardJustification {
  /** The resource exactly as passed to the policy statement (tokens allowed), e.g. `${bucket.bucketArn}/prefix/*`. */
  readonly resource: string;
  readonly reason: string;
}

/** Flattens a resolved CloudFormation value the way cdk-nag does (utils/flatten-cfn-reference). */
export function flattenCfnReference(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
  if (typeof node === 'object' && node !== null) {
    const o = node as Record<string, unknown>;
    if (Array.isArray(o['Fn::Join'])) {
      const [delimiter, items] = o['Fn::Join'] as [string, unknown[]];
      return items.map(flattenCfnReference).join(delimiter);
    }
    if (o['Fn::Sub'] !== undefined) return flattenCfnReference(o['Fn::Sub']);
    if (Array.isArray(o['Fn::GetAtt'])) {
      const [resource, attribute] = o['Fn::GetAtt'] as [unknown, unknown];
      return `<${flattenCfnReference(resource)}.${flattenCfnReference(attribute)}>`;
    }
    if (o['Fn::ImportValue'] !== undefined) return flattenCfnReference(o['Fn::ImportValue']);
    if (o.Ref !== undefined) return `<${flattenCfnReference(o.Ref)}>`;
  }
  return JSON.stringify(node);
}

/**
 * Acknowledges `AwsSolutions-IAM5` wildcard-resource findings of `role`'s inline default policy, one granular id
 * per justified resource, on the policy itself (the narrowest construct). An own role's grants go to its
 * `DefaultPolicy`, an imported role's to a `Policy<stack-unique name>` child (a policy of the importing stack).
 */
export function justifyWildcardResources(
  role: iam.IRole,
  justifications: readonly WildcardJustification[],
): void {
  role.node.addValidation({
    validate: () => {
      const policy =
        role.node.tryFindChild('DefaultPolicy') ?? role.node.children.find((c) => c instanceof iam.Policy);
      if (!(policy instanceof iam.Policy)) return [];
      const cfn = policy.node.defaultChild as iam.CfnPolicy;
      const stack = Stack.of(cfn);
      const doc = stack.resolve(cfn.policyDocument) as { Statement?: Array<Record<string, unknown>> };
      const justified = justifications.map((j) => ({
        flat: flattenCfnReference(stack.resolve(j.resource)),
        reason: j.reason,
      }));
      for (const statement of doc.Statement ?? []) {
        if (statement.Effect !== 'Allow') continue;
        const resources: unknown[] = Array.isArray(statement.Resource)
          ? statement.Resource
          : [statement.Resource];
        for (const resource of resources) {
          const flat = flattenCfnReference(resource);
          if (!flat.includes('*')) continue;
          const match = justified.find((j) => j.flat === flat);
          if (match) acknowledge(policy, `AwsSolutions-IAM5[Resource::${flat}]`, match.reason);
        }
      }
      return [];
    },
  });
}

function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}
