/**
 * Which stack of this app owns a resource, by its physical id: CloudFormation's own record of what it created, the
 * one proof of ownership the doctor accepts (a name, a tag or a description can be copied: STYLE 22).
 */
import {
  type CloudFormationClient,
  paginateListStackResources,
  paginateListStacks,
  StackStatus,
} from '@aws-sdk/client-cloudformation';

/** Every stack status but DELETE_COMPLETE: stacks that still own their resources. */
const LIVE_STACK_STATUSES = Object.values(StackStatus).filter(
  (status) => status !== StackStatus.DELETE_COMPLETE,
);

/**
 * Physical ids of the resources of every live stack whose name starts with `stackPrefix` (this app's stacks, all
 * profiles), each with its stack. DescribeStackResources by physical id would answer directly, but it also needs the
 * stack to exist and moto does not implement that form; listing the app's stacks works on both.
 */
export async function stackOwners(
  cloudformation: CloudFormationClient,
  stackPrefix: string,
): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  const client = { client: cloudformation };
  for await (const page of paginateListStacks(client, { StackStatusFilter: LIVE_STACK_STATUSES })) {
    for (const summary of page.StackSummaries ?? []) {
      const stackName = summary.StackName ?? '';
      if (!stackName.startsWith(stackPrefix)) continue;
      for await (const resources of paginateListStackResources(client, { StackName: stackName })) {
        for (const r of resources.StackResourceSummaries ?? []) {
          if (r.PhysicalResourceId !== undefined) map.set(r.PhysicalResourceId, stackName);
        }
      }
    }
  }
  return map;
}

/**
 * The stack of `physicalId` in a {@link stackOwners} map. Some physical ids join several parts with '|' (account
 * policies, OpenSearch Serverless security and access policies among them): the id matches as one part too.
 */
export function ownerIn(byPhysicalId: ReadonlyMap<string, string>, physicalId: string): string | undefined {
  return (
    byPhysicalId.get(physicalId) ?? [...byPhysicalId].find(([id]) => id.split('|').includes(physicalId))?.[1]
  );
}
