/**
 * The route table the domain's ingest pipeline applies, read back from the pipeline itself (issue 41, item 4).
 *
 * Why: the pipeline knows more routes than the profile. At each deploy the provisioner writes into it the pairs kfek
 * keeps (core/opensearch/domain-families.ts): the profile's, and the retired ones whose indices are still there, so
 * a document a transform marked with a route that has since left the profile (in flight during the deploy, or
 * replayed days later) still lands in its team's index on the Firehose path. Those pairs come from the domain's
 * state, which synth cannot see; the indexer reads them where the pipeline has them, so both deliveries put such a
 * document in the same index.
 */
import type { RouteTable } from '../opensearch/route-table';

/** The `tag` of the pipeline's one script processor (core/opensearch/ingest-pipeline.ts). */
export const ROUTE_SCRIPT_TAG = 'kfek-route-and-id';

/** What the indexer takes from the pipeline: its route table and the nested stems it never moves. */
export interface PipelineRoutes {
  readonly table: RouteTable;
  readonly nested: readonly string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? [...value] : undefined;

/**
 * The routes of pipeline `name` in a `GET _ingest/pipeline/<name>` answer; undefined when the answer has no such
 * pipeline or its script's parameters are not kfek's (a pipeline kfek did not write).
 */
export function pipelineRoutesOf(answer: unknown, name: string): PipelineRoutes | undefined {
  const pipeline = isRecord(answer) ? answer[name] : undefined;
  const processors = isRecord(pipeline) && Array.isArray(pipeline.processors) ? pipeline.processors : [];
  const script = processors
    .map((p) => (isRecord(p) && isRecord(p.script) ? p.script : undefined))
    .find((s) => s?.tag === ROUTE_SCRIPT_TAG);
  const params = isRecord(script?.params) ? script.params : undefined;
  if (params === undefined || !isRecord(params.routes)) return undefined;
  const names: Record<string, string> = {};
  for (const [route, stem] of Object.entries(params.routes)) {
    if (typeof stem !== 'string') return undefined;
    names[route] = stem;
  }
  const marks: Record<string, readonly string[]> = {};
  for (const [route, stems] of Object.entries(isRecord(params.marks) ? params.marks : {})) {
    const list = strings(stems);
    if (list === undefined) return undefined;
    marks[route] = list;
  }
  const ambiguous = strings(params.ambiguous ?? []);
  const nested = strings(params.nested ?? []);
  if (ambiguous === undefined || nested === undefined) return undefined;
  return { table: { names, marks, ambiguous }, nested };
}
