/**
 * What the OpenSearch provisioner may do on its domain (./opensearch-provisioner.ts): the paths it may write and
 * delete by kfek's own names, the policy statements that grant them, and the cdk-nag acknowledgements of their
 * wildcards. Kept beside the construct so a new object kfek writes gets its grant in the same change.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { flattenCfnReference } from '../nag';
import { registryPaths } from '../../core/opensearch/registry';
import { ADMIN_ROLES, DASHBOARDS_USER_ROLE } from '../../core/opensearch/security';

/** The domain paths (below the domain ARN) the provisioner may write and delete: see {@link provisionerPaths}. */
export interface ProvisionerPaths {
  /** es:ESHttpPut and es:ESHttpPost. */
  readonly writes: readonly string[];
  /** es:ESHttpDelete: kfek's objects, never an index (ISM deletes indices). */
  readonly deletes: readonly string[];
  /**
   * es:ESHttpDelete refused even where `deletes` matches: a list (`a,b`, also escaped) is never one of kfek's names,
   * since the request-path builder refuses a `,` in every name and kfek deletes one object per request; IAM's `*`
   * matches a `,`, so without this `kfek-*` would admit `kfek-a,victim`.
   */
  readonly deniedDeletes: readonly string[];
}

/**
 * What the provisioner may change, by kfek's own names (issue 39): templates, pipelines and ISM policies
 * `<name>-*`, roles and role mappings `<name>_*`, saved objects `<name>-*`, the built-in roles' mappings kfek adds
 * people to, the security audit config, and the dynamic settings of the profile's stems' indices. So a mistake in
 * the code (a path built from someone else's name) is refused by IAM as well.
 *
 * What IAM matching relies on (the AWS docs on identity-based policies for OpenSearch Service,
 * https://docs.aws.amazon.com/opensearch-service/latest/developerguide/ac.html): the resource of an es:ESHttp* call
 * is the domain ARN followed by the request path, and `*` in a policy's resource matches any characters, `/`
 * included. The path IAM sees is the one sent, after the signer resolved `.`/`..` segments: a `..` can move a
 * request out of kfek's names but never into them, and kfek's names never hold one (core/opensearch/request-path.ts).
 * ISM's `add` and `change_policy` stay open: they name indices of retired stems IAM cannot know at synth, and attach
 * only the policy the body names.
 */
export function provisionerPaths(name: string, stems: readonly string[]): ProvisionerPaths {
  const security = '_plugins/_security/api';
  const owned = [
    `_index_template/${name}-*`,
    `_ingest/pipeline/${name}-*`,
    `_plugins/_ism/policies/${name}-*`,
    `${security}/roles/${name}_*`,
    `${security}/rolesmapping/${name}_*`,
  ];
  return {
    writes: [
      ...owned,
      ...[DASHBOARDS_USER_ROLE, ...ADMIN_ROLES].map((role) => `${security}/rolesmapping/${role}`),
      `${security}/audit/config`,
      '_plugins/_ism/add/*',
      '_plugins/_ism/change_policy/*',
      ...[...new Set(stems)].map((stem) => `${stem}-*/_settings`),
      '_dashboards/api/saved_objects/_bulk_create',
      // kfek's record of what it owns (core/opensearch/registry.ts): the hidden index, then its one document.
      ...registryPaths(name),
    ],
    deletes: [...owned, `_dashboards/api/saved_objects/*/${name}-*`],
    deniedDeletes: ['*,*', '*%2c*', '*%2C*'],
  };
}

/**
 * The provisioner's statements: its log group, reads on this domain, and writes and deletes of kfek's own names
 * (`paths`) only. On a collection (no `domainArn`) only the log group: the collection's data access policy and its
 * `aoss:APIAccessAll` grant (lib/constructs/serverless-collection.ts) say what it may do there.
 */
export function provisionerStatements(
  logGroupArn: string,
  domainArn: string | undefined,
  paths: ProvisionerPaths,
): iam.PolicyStatement[] {
  const logs = new iam.PolicyStatement({
    actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    resources: [logGroupArn],
  });
  if (domainArn === undefined) return [logs];
  return [
    logs,
    // Reads on this domain only. The `/*` wildcard is the domain's own path space: the provisioner lists what the
    // domain holds (templates, indices, roles, saved objects) to tell kfek's objects from the others.
    new iam.PolicyStatement({
      actions: ['es:ESHttpGet', 'es:ESHttpHead'],
      resources: [domainArn, `${domainArn}/*`],
    }),
    // Writes and deletes only kfek's own names (provisionerPaths): never an index, never someone else's object.
    new iam.PolicyStatement({
      actions: ['es:ESHttpPut', 'es:ESHttpPost'],
      resources: paths.writes.map((path) => `${domainArn}/${path}`),
    }),
    new iam.PolicyStatement({
      actions: ['es:ESHttpDelete'],
      resources: paths.deletes.map((path) => `${domainArn}/${path}`),
    }),
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      actions: ['es:ESHttpDelete'],
      resources: paths.deniedDeletes.map((path) => `${domainArn}/${path}`),
    }),
  ];
}

/** What {@link acknowledgeProvisionerFindings} acknowledges findings on. */
export interface ProvisionerParts {
  /** The construct that validates (the provisioner). */
  readonly scope: Construct;
  readonly function: lambda.IFunction;
  readonly provider: cr.Provider;
  /** The Policy of {@link provisionerStatements}. */
  readonly policy: iam.Policy;
  /** The domain's ARN; none for a collection (no es: grants to acknowledge). */
  readonly domainArn: string | undefined;
  readonly paths: ProvisionerPaths;
}

/**
 * cdk-nag acknowledgements, each on the narrowest construct. The wildcard ids are granular and contain resolved
 * references (a cross-stack domain ARN becomes an import), so they are computed in a validation that runs after the
 * app is prepared, as lib/nag.ts does for role default policies.
 */
export function acknowledgeProvisionerFindings(parts: ProvisionerParts): void {
  const { provider, policy, domainArn, paths } = parts;
  Validations.of(parts.function).acknowledge(
    {
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked synchronously by the custom resource provider; a failure goes back to CloudFormation, which ' +
        'fails the deployment. There is no event to dead-letter.',
    },
    {
      id: 'Serverless-LambdaTracing',
      reason:
        'Runs once per deployment; its log group records every request and status, X-Ray would add nothing.',
    },
  );
  // The framework function of cr.Provider is CDK's: its role, runtime, memory and missing DLQ are not ours to set.
  Validations.of(provider).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The cr.Provider framework function role uses AWSLambdaBasicExecutionRole; CDK owns that role.',
    },
    { id: 'AwsSolutions-L1', reason: 'CDK picks the runtime of the cr.Provider framework function.' },
    {
      id: 'Serverless-LambdaDLQ',
      reason:
        'The provider framework is invoked synchronously by CloudFormation; failures are reported to it.',
    },
    {
      id: 'Serverless-LambdaDefaultMemorySize',
      reason:
        'CDK sets the memory of the cr.Provider framework function; it only relays one call per deploy.',
    },
    { id: 'Serverless-LambdaTracing', reason: 'CDK configures the cr.Provider framework function.' },
  );
  const stack = Stack.of(parts.scope);
  const functionVersions = `${parts.function.functionArn}:*`;
  parts.scope.node.addValidation({
    validate: () => {
      const flat = (value: string): string => flattenCfnReference(stack.resolve(value));
      if (domainArn !== undefined) {
        Validations.of(policy).acknowledge({
          id: `AwsSolutions-IAM5[Resource::${flat(`${domainArn}/*`)}]`,
          reason:
            'The paths of this one domain (index templates, _plugins, _dashboards): the provisioner calls several ' +
            'APIs IAM cannot name in advance, and fine-grained access control authorizes each request.',
        });
        for (const path of new Set([...paths.writes, ...paths.deletes].filter((p) => p.includes('*')))) {
          Validations.of(policy).acknowledge({
            id: `AwsSolutions-IAM5[Resource::${flat(`${domainArn}/${path}`)}]`,
            reason:
              'Writes and deletes of the objects named by kfek (its name, its stems) under this one path of this ' +
              'domain; no index path but the dynamic settings of its stems: the provisioner never deletes an index.',
          });
        }
      }
      Validations.of(provider).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${flat(functionVersions)}]`,
        reason:
          'The cr.Provider framework may invoke any version of the provisioner function and nothing else.',
      });
      return [];
    },
  });
}
