/**
 * The fix for each finding of a change plan (describe.ts): an export in use, a replacement CloudFormation refuses
 * or that loses data, a deleted resource with data, a name still taken, a type the plan could not judge. Decided
 * here once, beside the impact; `kfek doctor` (cli/doctor/change.ts) only renders. Pure text.
 */
import type { ChangeFinding } from './describe';
import { keepData } from './stateful';
import { exportsOf, importsOf } from './template';
import type { Deletion, NameClash, RefusedUpdate, Replacement, StackChangeInput } from './types';

export interface FixContext {
  /** The kfek profile the templates were synthesized from. */
  readonly profile: string;
  readonly input: StackChangeInput;
  /** The construct id `cdk deploy` takes for a stack name (the name itself when unknown). */
  readonly idOf: (stackName: string) => string;
}

const deploy = (ctx: FixContext, stackNames: readonly string[]): string =>
  `\`npx cdk deploy -c profile=${ctx.profile} --exclusively ${stackNames.map(ctx.idOf).join(' ')}\``;

function exportFix(r: RefusedUpdate, ctx: FixContext): string {
  const keepExport = (producer: string): string =>
    `keep the export for one more deploy (CDK: \`this.exportValue(...)\` in ${ctx.idOf(producer)}) and remove it ` +
    'once nothing imports it';
  if (r.kind === 'import-missing') {
    return (
      `deploy ${r.importers.map(ctx.idOf).join(', ')} with the new export first; to get there, ` +
      `${keepExport(r.importers[0] ?? r.stackName)}; then deploy ${ctx.idOf(r.stackName)}`
    );
  }
  const after = ctx.input.after;
  const stillImporting = r.importers.filter((s) => importsOf(after[s]).has(r.exportName));
  if (stillImporting.length === 0) {
    // The importers stop importing in their new templates, but deploy after the producer: CDK's deadly embrace.
    // Deploying them first works only if they import nothing that no deployed stack exports yet.
    const deployed = new Set(Object.values(ctx.input.before).flatMap((t) => [...exportsOf(t).keys()]));
    const needFresh = r.importers.filter((s) => [...importsOf(after[s])].some((e) => !deployed.has(e)));
    if (needFresh.length > 0) {
      return `${keepExport(r.stackName)}: ${needFresh.map(ctx.idOf).join(', ')} cannot go first, since ${needFresh.length === 1 ? 'its' : 'their'} new template imports exports no deployed stack has yet`;
    }
    return (
      `deploy the importing stack first, whose new template no longer imports it: ${deploy(ctx, r.importers)}, ` +
      `then deploy as usual; or ${keepExport(r.stackName)}`
    );
  }
  return (
    `CloudFormation never changes an export in use: keep the old value (if a replacement changes it, avoid the ` +
    `replacement), or deploy in two steps: first make ${stillImporting.map(ctx.idOf).join(', ')} stop importing it ` +
    `and deploy ${stillImporting.length === 1 ? 'it' : 'them'} (${deploy(ctx, stillImporting)}), then deploy the rest`
  );
}

function replacementFix(r: Replacement, ctx: FixContext): string {
  const avoid =
    r.type === 'AWS::OpenSearchService::Domain' && r.reasons.some((why) => why.startsWith('EngineVersion'))
      ? 'keep openSearch.engineVersion at the deployed version, or upgrade in place, which needs ' +
        'UpdatePolicy.EnableVersionUpgrade on the domain (CDK: `enableVersionUpgrade: true`)'
      : 'keep the deployed value of what changed (the cdk.json setting or construct id behind it)';
  const parts = [`to avoid it, ${avoid}`];
  if (r.refused) parts.push('to replace it on purpose, give it a new name as well');
  if (r.stateful) parts.push(`to keep its data through a replacement, ${keepData(r.type, ctx.profile)}`);
  return parts.join('; ');
}

function deletionFix(d: Deletion, ctx: FixContext): string {
  return (
    `if it should stay, keep it in the profile; to remove it from the stack but keep it, set the profile's ` +
    `removalPolicy to "retain" and deploy that first; to delete it, ${keepData(d.type, ctx.profile)}`
  );
}

function clashFix(c: NameClash, ctx: FixContext): string {
  const holder = `${c.heldBy.stackName}/${c.heldBy.logicalId}`;
  switch (c.reason) {
    case 'created-before-deleted':
      return c.heldBy.stackName === c.stackName
        ? `keep the construct id of ${holder} (a new id is a new resource), or deploy once without the resource and once with it`
        : `deploy ${ctx.idOf(c.heldBy.stackName)} first, so that it deletes ${holder}: ${deploy(ctx, [c.heldBy.stackName])}`;
    case 'retained':
      return `after the deploy that removes ${holder}, delete the retained resource ${c.name} by hand (or bring it into the new stack with \`cdk import\`), then deploy again`;
    case 'left-deployed':
      return `delete the stack ${c.heldBy.stackName} (\`aws cloudformation delete-stack --stack-name ${c.heldBy.stackName}\`) first, or give the new resource another name`;
    case 'kept':
      return `two resources claim ${c.name}: give one of them another name`;
  }
}

/** The fix of a finding. */
export function fixOf(finding: ChangeFinding, ctx: FixContext): string {
  switch (finding.kind) {
    case 'refused-update':
      return exportFix(finding.subject, ctx);
    case 'replacement':
      return replacementFix(finding.subject, ctx);
    case 'deletion':
      return deletionFix(finding.subject, ctx);
    case 'name-clash':
      return clashFix(finding.subject, ctx);
    case 'delivery-switch':
      return finding.subject.to === 'firehose'
        ? 'deploy while the indexer keeps up (its IteratorAge under a minute): a record it has not read when its ' +
            'mapping goes was written before the delivery stream existed; `kfek reconcile --heal` finds any such gap'
        : 'nothing to do; the indexer re-reads the events stream once, so expect its retained window indexed again';
    case 'unchecked':
      return 'regenerate core/change-plan/create-only-properties.json (scripts/create-only-properties.ts) and update kfek';
  }
}

/** A finding with its fix. */
export type FixedFinding = ChangeFinding & { readonly fix: string };

/** The findings of a plan with their fixes, worst first (describe.ts `planFindings`). */
export function withFixes(findings: readonly ChangeFinding[], ctx: FixContext): FixedFinding[] {
  return findings.map((f) => ({ ...f, fix: fixOf(f, ctx) }));
}
