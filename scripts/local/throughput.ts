/**
 * Where a local run's time goes: events per second per stage and end to end, from timestamps and busy times the
 * runner and the loops record. `npm start` prints it under the summary; `npm run bench:e2e` prints it and the one
 * fixed-format last line of {@link pipelineLine}.
 */
import type { LatencyReport } from './latency-probe';

export interface ThroughputReport {
  readonly events: number;
  /** From the start of the first PutLogEvents call until a search (no forced refresh) finds every document. */
  readonly endToEndInMillis: number | undefined;
  /** From the start of the first PutLogEvents call to the end of the last. */
  readonly writeInMillis: number;
  readonly transformInvocations: number;
  /** Time spent inside the transform handler, all invocations together. */
  readonly transformBusyInMillis: number;
  /** Records the transform wrote to the events stream, as the delivery loop read them (aggregated records). */
  readonly eventsStreamRecords: number;
  readonly documentsIndexed: number;
  readonly bulkRequests: number;
  /** From the start of the first bulk request to the end of the last. */
  readonly indexingSpanInMillis: number;
  /** Emulator read errors the loops retried. */
  readonly emulatorErrors: number;
}

/** Rounded events per second; undefined when there is no time span to divide by. */
export function perSecond(count: number, millis: number | undefined): number | undefined {
  return millis === undefined || millis <= 0 ? undefined : Math.round((count * 1000) / millis);
}

const seconds = (millis: number | undefined): string =>
  millis === undefined ? 'n/a' : `${(millis / 1000).toFixed(1)} s`;
const rate = (value: number | undefined): string => (value === undefined ? 'n/a' : String(value));

/** The throughput lines of the summary. */
export function formatThroughput(t: ThroughputReport): string[] {
  return [
    `  throughput, first write to all searchable ${seconds(t.endToEndInMillis)}: ` +
      `${rate(perSecond(t.events, t.endToEndInMillis))} events/s end to end`,
    `    write (PutLogEvents into moto)   ${seconds(t.writeInMillis)}   ${rate(perSecond(t.events, t.writeInMillis))} events/s`,
    `    transform (handler busy time)    ${seconds(t.transformBusyInMillis)}   ` +
      `${rate(perSecond(t.events, t.transformBusyInMillis))} events/s busy, ${t.transformInvocations} invocations, ` +
      `${t.eventsStreamRecords} events-stream records`,
    `    indexing (first to last bulk)    ${seconds(t.indexingSpanInMillis)}   ` +
      `${rate(perSecond(t.documentsIndexed, t.indexingSpanInMillis))} docs/s, ${t.bulkRequests} bulk requests`,
    `    emulator errors retried          ${t.emulatorErrors}`,
  ];
}

/** `npm run bench:e2e`'s fixed-format last line. */
export function pipelineLine(t: ThroughputReport, latency: LatencyReport): string {
  const s = (millis: number | undefined): string =>
    millis === undefined ? 'n/a' : (millis / 1000).toFixed(2);
  return (
    `pipeline: ${rate(perSecond(t.events, t.endToEndInMillis))} events/s, ` +
    `p50 ${s(latency.p50InMillis)} s, p95 ${s(latency.p95InMillis)} s`
  );
}
