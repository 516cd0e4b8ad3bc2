/**
 * The route table the indexer applies (issue 41, item 4): the one the domain's ingest pipeline applies, read from the
 * pipeline at cold start and again every few minutes, so a document marked with a retired route kfek still keeps
 * lands in its team's index on both deliveries (core/delivery/pipeline-routes.ts says why synth cannot know them).
 * Until the pipeline answers (not yet provisioned, a role without `es:ESHttpGet` on it or a writer role without
 * `cluster:admin/ingest/pipeline/get`, no pipeline named), the
 * profile's routes apply, as before, and a warning says so: such a document then lands in the default index with
 * `kfek.unknownRoute`, found and kept, never in another team's index.
 *
 * A Serverless collection has no pipeline: there the table is built (route-table.ts `routeTableOf`, the pipeline's
 * rule) from the (route, stem) pairs the collection's provisioner records in kfek's record index
 * (core/opensearch/serverless-provision-routes.ts), read the same way, with the same fallback.
 */
import type { Clock } from '../../core/clock';
import type { DeliveryTarget } from '../../core/delivery/document-plan';
import { pipelineRoutesOf } from '../../core/delivery/pipeline-routes';
import { routeTableOf, withholdUnwritable } from '../../core/opensearch/route-table';
import { routeRecordFrom } from '../../core/opensearch/route-record';
import { describeError } from './errors';
import { type SignedBulkOptions, signedPipelinePort, signedRouteRecordPort } from './adapters';
import type { IndexerEnv } from './env';
import type { BulkResponse, IndexerLogger, PipelinePort, RouteRecordPort } from './ports';

/** How long a table read from the pipeline is used before it is read again (a deploy may change it). */
export const ROUTES_REFRESH_MILLIS = 5 * 60_000;
/** How long after a failed read the next read waits, so a refusing domain is not asked on every batch. */
export const ROUTES_RETRY_MILLIS = 60_000;
/** Longest wait for the pipeline's answer. */
const READ_TIMEOUT_MILLIS = 5_000;

/** Where the kept route table is read: a domain's ingest pipeline, or a collection's record index (never both). */
export type RouteTableSource =
  | { readonly kind: 'pipeline'; readonly name: string; readonly port: PipelinePort }
  | { readonly kind: 'record'; readonly index: string; readonly port: RouteRecordPort };

export interface RouteSourceProps {
  /** The target with the profile's routes (env.ts). */
  readonly base: DeliveryTarget;
  /** Where the kept table is read. @default - nowhere: always {@link base} */
  readonly source?: RouteTableSource;
  readonly clock: Clock;
  readonly log: IndexerLogger;
}

/** Where the table is read: the request, what its answer holds, and what the warning tells the operator. */
interface TableOrigin {
  readonly details: Record<string, unknown>;
  readonly fetch: (timeoutMillis: number) => Promise<BulkResponse>;
  /** The table in the parsed answer, or what is wrong with it. */
  readonly tableOf: (body: unknown) => Pick<DeliveryTarget, 'table' | 'nested'> | string;
  readonly what: string;
  readonly fix: string;
}

function pipelineOrigin(pipeline: string, port: PipelinePort): TableOrigin {
  return {
    details: { pipeline },
    fetch: (timeoutMillis) => port.get(pipeline, timeoutMillis),
    tableOf: (body) => pipelineRoutesOf(body, pipeline) ?? `pipeline ${pipeline} has no kfek route table`,
    what: "the ingest pipeline's route table",
    fix:
      `Allow es:ESHttpGet on <domain ARN>/_ingest/pipeline/${pipeline} to this function's role and, under ` +
      "fine-grained access control, cluster:admin/ingest/pipeline/get to the role it is mapped to (kfek's writer " +
      'role has both once the Pipeline stack and its provisioner are deployed).',
  };
}

function recordOrigin(index: string, port: RouteRecordPort, props: RouteSourceProps): TableOrigin {
  // kfek's data access policy lets the indexer write the profile's families only (serverless-access.ts): a pair
  // whose stem left the profile would have the whole `_bulk` refused (403) and the batch retried until it expires.
  // So a retired pair routes only while its stem is still a family of the profile (kept under another route name,
  // docs/serverless.md); a pair whose stem left is withheld: its document is refused and kept with the reason, never
  // written into the default index, which other teams read.
  const { base } = props;
  const writable = new Set([base.prefix, ...Object.values(base.table.marks).flat()]);
  return {
    details: { record: index },
    fetch: (timeoutMillis) => port.get(index, timeoutMillis),
    tableOf: (body) => {
      const kept = routeRecordFrom(body);
      if (kept === undefined) return `${index} has no kfek route pairs (document routes)`;
      const table = routeTableOf(kept.pairs, props.clock.now(), kept.keepRetiredHours * 3_600_000);
      return { table: withholdUnwritable(table, writable) };
    },
    what: "the collection's recorded route pairs",
    fix:
      `Give this function's role aoss:ReadDocument on index/<collection>/${index} in the collection's data access ` +
      "policy (kfek's policy has it once the Search stack is deployed), and deploy the Pipeline stack so its " +
      'provisioner records the pairs.',
  };
}

/** The delivery target of each batch: {@link RouteSourceProps.base} with the kept route table when read. */
export class RouteSource {
  private current: DeliveryTarget;
  private nextReadAt = 0;
  private readonly origin: TableOrigin | undefined;

  constructor(private readonly props: RouteSourceProps) {
    this.current = props.base;
    const { source } = props;
    if (source?.kind === 'pipeline') this.origin = pipelineOrigin(source.name, source.port);
    else if (source?.kind === 'record') this.origin = recordOrigin(source.index, source.port, props);
  }

  /** The target to plan the next batch with; reads the table when the last read is due for renewal. */
  async target(): Promise<DeliveryTarget> {
    const { origin } = this;
    const { clock } = this.props;
    if (origin === undefined || clock.now() < this.nextReadAt) return this.current;
    const problem = await this.read(origin);
    if (problem === undefined) {
      this.nextReadAt = clock.now() + ROUTES_REFRESH_MILLIS;
    } else {
      this.nextReadAt = clock.now() + ROUTES_RETRY_MILLIS;
      this.props.log.warn(
        `could not read ${origin.what}; this batch uses the profile's routes, so a document marked with a ` +
          `retired route kfek keeps goes to the default index (kfek.unknownRoute) until it can: ${problem}. ` +
          origin.fix,
        origin.details,
      );
    }
    return this.current;
  }

  /** Reads the table; undefined when it is now {@link current}, else what went wrong. */
  private async read(origin: TableOrigin): Promise<string | undefined> {
    let answer;
    try {
      answer = await origin.fetch(READ_TIMEOUT_MILLIS);
    } catch (error) {
      return `no answer: ${describeError(error)}`;
    }
    if (answer.status !== 200) return `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return `an answer that is not JSON: ${answer.text.slice(0, 300)}`;
    }
    const routes = origin.tableOf(body);
    if (typeof routes === 'string') return routes;
    this.current = { ...this.props.base, ...routes };
    return undefined;
  }
}

/** The handler's source: the environment's pipeline or record, read signed as the function's role. */
export function signedRouteSource(
  env: Pick<IndexerEnv, 'target' | 'ingestPipeline' | 'routeRecord'>,
  signing: SignedBulkOptions,
  clock: Clock,
  log: IndexerLogger,
): RouteSource {
  const source: RouteTableSource | undefined =
    env.ingestPipeline !== undefined
      ? { kind: 'pipeline', name: env.ingestPipeline, port: signedPipelinePort(signing) }
      : env.routeRecord !== undefined
        ? { kind: 'record', index: env.routeRecord, port: signedRouteRecordPort(signing) }
        : undefined;
  return new RouteSource({ base: env.target, ...(source === undefined ? {} : { source }), clock, log });
}
