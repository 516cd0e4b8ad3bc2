import { Duration, RemovalPolicy, type App, type Environment } from 'aws-cdk-lib';
import {
  accessFamiliesOf,
  isCrossAccount,
  type PipelineConfig,
  retentionFamiliesOf,
  retiredNamesHours,
} from '../core/config';
import {
  type PhysicalNames,
  physicalNamesFor,
  pipelineLogGroupNames,
} from '../core/contracts/physical-names';
import { transformServiceName } from '../core/contracts/transform-env';
import { buildCrossAccount, type CrossAccountStacks } from './cross-account';
import { MonitoringStack, type MonitoringStackProps } from './stacks/monitoring-stack';
import { PipelineStack } from './stacks/pipeline-stack';
import { SearchStack, type SearchStackProps } from './stacks/search-stack';
import { SourcesStack } from './stacks/sources-stack';

/** The stacks of one kfek deployment. */
export interface KfekStacks {
  readonly search: SearchStack;
  readonly pipeline: PipelineStack;
  readonly sources: SourcesStack;
  readonly monitoring: MonitoringStack;
  /** Cross-account destinations and source stacks (profiles with `sources.accounts`/`organizationId`). */
  readonly crossAccount?: CrossAccountStacks;
}

/** How often a serverless profile's retention function runs: retention counts whole days, and each run wakes the collection. */
const RETENTION_EVERY = Duration.days(1);

/** Who reads and who deletes which of kfek's index families: the collection's data access policy and retention. */
function searchAccessOf(
  config: PipelineConfig,
  names: PhysicalNames,
): Pick<SearchStackProps, 'accessFamilies' | 'serverlessRetention'> {
  if (config.openSearch.kind !== 'serverless') return { accessFamilies: accessFamiliesOf(config) };
  return {
    accessFamilies: accessFamiliesOf(config),
    serverlessRetention: {
      families: retentionFamiliesOf(config),
      indexRotation: config.delivery.indexRotation,
      metricsNamespace: config.name,
      functionName: names.retentionFunction,
      logGroupName: names.retentionLogGroup,
      every: RETENTION_EVERY,
    },
  };
}

/** The scheduled functions the Monitoring stack watches by their fixed names: reconcile, a collection's retention. */
function scheduledFunctionsOf(
  config: PipelineConfig,
  names: PhysicalNames,
): Pick<MonitoringStackProps, 'reconcile' | 'retention'> {
  return {
    ...(config.reconcile.enabled
      ? {
          reconcile: {
            functionName: names.reconcileFunction,
            every: Duration.minutes(config.reconcile.everyMinutes),
          },
        }
      : {}),
    ...(config.openSearch.kind === 'serverless'
      ? { retention: { functionName: names.retentionFunction, every: RETENTION_EVERY } }
      : {}),
  };
}

/**
 * Builds the kfek stacks for a resolved config: the one composition shared by bin/kfek.ts and the tests.
 *
 * Stack construct IDs (`Search`, `Pipeline`, `Sources`) are the CLI's stack selectors and the template file names;
 * the CloudFormation stack names carry name and profile (`kfek-sandbox-search`) so profiles can share an account.
 *
 * Designed for the second deploy (docs/deploy.md, "Changing a deployed profile"): references between stacks run
 * only from the Search stack, which changes rarely and always exports the same values, to the others; the Pipeline
 * stack's function, delivery stream and log groups have fixed names (core/contracts/physical-names.ts) that the
 * Sources and Monitoring stacks use as plain strings, so no change to the Pipeline stack is refused for an export
 * in use. Streams are named on the first deploy, so adding source accounts later never replaces one.
 */
export function buildKfek(app: App, config: PipelineConfig): KfekStacks {
  const retain = config.removalPolicy === 'retain';
  const env: Environment | undefined =
    config.env.account !== undefined || config.env.region !== undefined
      ? { account: config.env.account, region: config.env.region }
      : undefined;
  const stem = `${config.name}-${config.profile}`;
  const shared: Shared = {
    app,
    config,
    stem,
    names: physicalNamesFor(stem),
    common: { env, terminationProtection: retain },
    tags: { tags: { application: config.name, profile: config.profile } },
    // RetainExceptOnCreate, not Retain: data survives stack deletion and replacement, but a failed first create
    // rolls back cleanly instead of leaving the fixed-name domain and log groups behind to block the retry.
    // https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-attribute-deletionpolicy.html
    removalPolicy: retain ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY,
  };

  const search = buildSearch(shared);
  const pipeline = buildPipeline(shared, search);
  const sources = buildSources(shared, search);
  const monitoring = buildMonitoring(shared, search, sources);
  // The saved queries name the log groups the Sources stack creates.
  monitoring.addStackDependency(sources);

  const crossAccount = isCrossAccount(config.sources)
    ? buildCrossAccount(app, config, {
        rawStream: search.rawStream,
        tags: shared.tags.tags,
        terminationProtection: retain,
      })
    : undefined;

  return { search, pipeline, sources, monitoring, ...(crossAccount ? { crossAccount } : {}) };
}

/** What every stack of one deployment shares. */
interface Shared {
  readonly app: App;
  readonly config: PipelineConfig;
  /** `<name>-<profile>`: the stack names' and the physical names' stem. */
  readonly stem: string;
  readonly names: PhysicalNames;
  readonly common: { readonly env: Environment | undefined; readonly terminationProtection: boolean };
  readonly tags: { readonly tags: Record<string, string> };
  readonly removalPolicy: RemovalPolicy;
}

function buildSearch({ app, config, stem, names, common, tags, removalPolicy }: Shared): SearchStack {
  return new SearchStack(app, 'Search', {
    ...common,
    ...tags,
    stackName: `${stem}-search`,
    description: `kfek (${config.profile}): OpenSearch domain, streams, failed-records bucket and queue (stateful)`,
    domainName: names.stem,
    streamNames: { raw: names.rawStream, events: names.eventsStream },
    openSearch: config.openSearch,
    streams: config.streams,
    failedRecords: config.failedRecords,
    ...searchAccessOf(config, names),
    reconcile: config.reconcile.enabled,
    removalPolicy,
  });
}

function buildPipeline(
  { app, config, stem, names, common, tags }: Shared,
  search: SearchStack,
): PipelineStack {
  const domain = search.domain;
  // A serverless profile: the indexer writes the collection as the writer role its data access policy names.
  const collection =
    search.collection === undefined
      ? undefined
      : {
          endpoint: search.collection.collectionEndpoint,
          arn: search.collection.collectionArn,
          writerRole: search.collection.writerRole,
          ...(search.collection.reconcileRole === undefined
            ? {}
            : { reconcileRole: search.collection.reconcileRole }),
        };
  return new PipelineStack(app, 'Pipeline', {
    ...common,
    ...tags,
    stackName: `${stem}-pipeline`,
    description:
      `kfek (${config.profile}): transform (${config.transport}) and ` +
      `${config.delivery.mode === 'direct' ? 'the indexer' : 'Firehose'} delivery to OpenSearch`,
    rawStream: search.rawStream,
    eventsStream: search.eventsStream,
    ...(domain === undefined ? {} : { domain }),
    ...(collection === undefined ? {} : { collection }),
    bucket: search.bucket,
    failureQueue: search.failureQueue,
    openSearchAdminRole: search.adminRole,
    openSearch: config.openSearch,
    transport: config.transport,
    sourceRegions: config.sources.regions,
    transform: config.transform,
    delivery: config.delivery,
    routes: config.routes,
    ...(config.reconcile.enabled
      ? { reconcile: { ...config.reconcile, logGroups: config.sources.logGroups } }
      : {}),
    keepRetiredHours: retiredNamesHours(config),
    metricsNamespace: config.name,
    names,
  });
}

function buildSources(
  { app, config, stem, names, common, tags, removalPolicy }: Shared,
  search: SearchStack,
): SourcesStack {
  return new SourcesStack(app, 'Sources', {
    ...common,
    ...tags,
    stackName: `${stem}-sources`,
    description: `kfek (${config.profile}): log groups and subscription filters to the raw stream`,
    rawStream: search.rawStream,
    subscriptionRole: search.subscriptionRole,
    sources: config.sources,
    // Plain names, not the log groups: an import from the Pipeline stack would pin it (see above). Every name
    // the Pipeline stack may use is listed whatever the transport, so a transport switch leaves this unchanged.
    pipelineLogGroupNames: [...pipelineLogGroupNames(names), ...search.logGroups.map((g) => g.logGroupName)],
    accountPolicyName: `${stem}-subscription`,
    removalPolicy,
  });
}

function buildMonitoring(
  { app, config, stem, names, common, tags }: Shared,
  search: SearchStack,
  sources: SourcesStack,
): MonitoringStack {
  const domain = search.domain;
  return new MonitoringStack(app, 'Monitoring', {
    ...common,
    ...tags,
    // Stateless: alarms, dashboard and queries can always be recreated.
    terminationProtection: false,
    stackName: `${stem}-monitoring`,
    description: `kfek (${config.profile}): alarms, dashboard and saved Logs Insights queries`,
    namePrefix: stem,
    rawStream: search.rawStream,
    eventsStream: search.eventsStream,
    transformFunctionName: names.transformFunction,
    invokedByEventSourceMapping: config.transport === 'lambda',
    deliveryStreamName: names.deliveryStream,
    ...(config.delivery.mode === 'direct' ? { indexerFunctionName: names.indexerFunction } : {}),
    ...(domain === undefined ? {} : { domain }),
    sourceLogGroupNames: [...sources.logGroups.keys()],
    dataNodeVolumeSizeInGiB: config.openSearch.volumeSizeGb,
    metricsNamespace: config.name,
    transformServiceName: transformServiceName(config.transport),
    ...scheduledFunctionsOf(config, names),
    alarmEmail: config.alarms.email,
    thresholds: {
      maxIteratorAge: Duration.millis(config.alarms.iteratorAgeMs),
      // The config says "alarm at this many"; the alarm compares with "greater than".
      maxPoisonRecords: config.alarms.poisonRecords - 1,
      maxDeliveryDataFreshnessInSeconds: config.alarms.firehoseFreshnessSeconds,
      minFreeStorageSpaceInMiB: config.alarms.freeStorageMb,
      maxJvmMemoryPressurePercent: config.alarms.jvmMemoryPressurePercent,
    },
  });
}
