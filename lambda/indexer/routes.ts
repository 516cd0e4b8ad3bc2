/**
 * The route table the indexer applies (issue 41, item 4): the one the domain's ingest pipeline applies, read from the
 * pipeline at cold start and again every few minutes, so a document marked with a retired route kfek still keeps
 * lands in its team's index on both deliveries (core/delivery/pipeline-routes.ts says why synth cannot know them).
 * Until the pipeline answers (not yet provisioned, a role without `es:ESHttpGet` on it or a writer role without
 * `cluster:admin/ingest/pipeline/get`, no pipeline named), the
 * profile's routes apply, as before, and a warning says so: such a document then lands in the default index with
 * `kfek.unknownRoute`, found and kept, never in another team's index.
 */
import type { Clock } from '../../core/clock';
import type { DeliveryTarget } from '../../core/delivery/document-plan';
import { pipelineRoutesOf } from '../../core/delivery/pipeline-routes';
import { describeError } from './errors';
import type { IndexerLogger, PipelinePort } from './ports';

/** How long a table read from the pipeline is used before it is read again (a deploy may change it). */
export const ROUTES_REFRESH_MILLIS = 5 * 60_000;
/** How long after a failed read the next read waits, so a refusing domain is not asked on every batch. */
export const ROUTES_RETRY_MILLIS = 60_000;
/** Longest wait for the pipeline's answer. */
const READ_TIMEOUT_MILLIS = 5_000;

export interface RouteSourceProps {
  /** The target with the profile's routes (env.ts). */
  readonly base: DeliveryTarget;
  /** The pipeline to read; undefined: always {@link base}. */
  readonly pipeline: string | undefined;
  readonly port: PipelinePort;
  readonly clock: Clock;
  readonly log: IndexerLogger;
}

/** The delivery target of each batch: {@link RouteSourceProps.base} with the pipeline's route table when read. */
export class RouteSource {
  private current: DeliveryTarget;
  private nextReadAt = 0;

  constructor(private readonly props: RouteSourceProps) {
    this.current = props.base;
  }

  /** The target to plan the next batch with; reads the pipeline when the last read is due for renewal. */
  async target(): Promise<DeliveryTarget> {
    const { pipeline, clock } = this.props;
    if (pipeline === undefined || clock.now() < this.nextReadAt) return this.current;
    const problem = await this.read(pipeline);
    if (problem === undefined) {
      this.nextReadAt = clock.now() + ROUTES_REFRESH_MILLIS;
    } else {
      this.nextReadAt = clock.now() + ROUTES_RETRY_MILLIS;
      this.props.log.warn(
        "could not read the ingest pipeline's route table; this batch uses the profile's routes, so a " +
          'document marked with a retired route kfek keeps goes to the default index (kfek.unknownRoute) ' +
          `until it can: ${problem}. Allow es:ESHttpGet on <domain ARN>/_ingest/pipeline/${pipeline} to this ` +
          "function's role and, under fine-grained access control, cluster:admin/ingest/pipeline/get to the role " +
          "it is mapped to (kfek's writer role has both once the Pipeline stack and its provisioner are deployed).",
        { pipeline },
      );
    }
    return this.current;
  }

  /** Reads the pipeline; undefined when its table is now {@link current}, else what went wrong. */
  private async read(pipeline: string): Promise<string | undefined> {
    let answer;
    try {
      answer = await this.props.port.get(pipeline, READ_TIMEOUT_MILLIS);
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
    const routes = pipelineRoutesOf(body, pipeline);
    if (routes === undefined) return `pipeline ${pipeline} has no kfek route table`;
    this.current = { ...this.props.base, table: routes.table, nested: routes.nested };
    return undefined;
  }
}
