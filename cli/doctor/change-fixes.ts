/**
 * The fix for each thing a new config would break on deploy: an export in use, a replacement CloudFormation
 * refuses or that loses data, a deleted resource with data, a name still taken. Pure text.
 */
import {
  type Deletion,
  exportsOf,
  importsOf,
  type NameClash,
  type RefusedUpdate,
  type Replacement,
  type StackChangeInput,
} from '../../core/change-plan';

export interface FixContext {
  readonly profile: string;
  readonly input: StackChangeInput;
  /** The construct id `cdk deploy` takes for a stack name (the name itself when unknown). */
  readonly idOf: (stackName: string) => string;
}

const deploy = (ctx: FixContext, stackNames: readonly string[]): string =>
  `\`npx cdk deploy -c profile=${ctx.profile} --exclusively ${stackNames.map(ctx.idOf).join(' ')}\``;

/** How to keep what a resource of the type holds across its replacement or deletion. */
function keepData(type: string, profile: string): string {
  switch (type) {
    case 'AWS::Kinesis::Stream':
      // kfek replay re-sends only objects that name the stream it resolves, so objects kept from the old stream
      // must be re-sent before the replacement (docs/operations.md, Replay).
      return (
        'let the consumers drain it first (IteratorAge at 0, sources quiet) and re-send what kfek kept from it ' +
        `before the deploy (\`npx kfek replay --profile ${profile}\`): afterwards replay refuses objects that name the old stream`
      );
    case 'AWS::OpenSearchService::Domain':
      return 'take a manual snapshot to an S3 repository first and restore it into the new domain (OpenSearch Service guide, "Creating index snapshots")';
    case 'AWS::S3::Bucket':
      return `re-send what it keeps first (\`npx kfek replay --profile ${profile}\`), or copy the objects over afterwards (\`aws s3 sync\`)`;
    case 'AWS::KMS::Key':
      return 'set the profile\'s removalPolicy to "retain" so the old key stays; a key pending deletion is saved with `aws kms cancel-key-deletion`';
    case 'AWS::Logs::LogGroup':
      return 'export its events first (`aws logs create-export-task`), or set the profile\'s removalPolicy to "retain"';
    case 'AWS::KinesisFirehose::DeliveryStream':
      return 'deploy when it has caught up with its source stream (KinesisMillisBehindLatest near 0) and the sources are quiet: the new one never delivers records written before it exists';
    case 'AWS::SQS::Queue':
      return `re-send its messages first (\`npx kfek replay --profile ${profile} --kind pipes-dlq\`)`;
    case 'AWS::Logs::Destination':
      return "redeploy the source stacks afterwards, so the source accounts' subscription filters send to the new destination";
    default:
      return 'save what it holds first';
  }
}

export function exportFix(r: RefusedUpdate, ctx: FixContext): string {
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

export function replacementFix(r: Replacement, ctx: FixContext): string {
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

export function deletionFix(d: Deletion, ctx: FixContext): string {
  return (
    `if it should stay, keep it in the profile; to remove it from the stack but keep it, set the profile's ` +
    `removalPolicy to "retain" and deploy that first; to delete it, ${keepData(d.type, ctx.profile)}`
  );
}

export function clashFix(c: NameClash, ctx: FixContext): string {
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
