/** The text `kfek backfill` prints: the dry run's estimate, and the summary of a run. Pure. */
import { formatBytes, formatTable } from '../format';
import type { BackfillCounts, BackfillJob } from '../../core/backfill/model';
import type { CostEstimate, DurationEstimate, VolumeEstimate } from '../../core/contracts/backfill-cost';
import type { GroupEstimate } from '../../core/logs/window-estimate';

export function formatDuration(millis: number): string {
  const s = Math.round(millis / 1000);
  if (s < 60) return millis < 10_000 ? `${(millis / 1000).toFixed(1)} s` : `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

const n = (value: number): string => Math.round(value).toLocaleString('en-US');
const usd = (value: number): string => `$${value < 10 ? value.toFixed(2) : n(value)}`;

/** Per log group: what the sample found and how the subscription writes it. */
export interface GroupDryRun extends GroupEstimate {
  readonly storedBytes?: number;
  readonly filterPattern: string;
  readonly subscriptionFilters: readonly string[];
  /** When the log group's subscription to the raw stream was created; events after it were delivered live. */
  readonly subscribedSince?: Date;
}

export interface DryRunReport {
  readonly job: BackfillJob;
  readonly ratePerSecond: number;
  readonly openShards: number;
  readonly groups: readonly GroupDryRun[];
  readonly total: VolumeEstimate;
  readonly duration: DurationEstimate;
  readonly cost: CostEstimate;
}

export function formatDryRun(report: DryRunReport): string {
  const { job, total, duration, cost } = report;
  const rows = report.groups.map((g) => ({
    'log group': g.logGroup,
    stored: g.storedBytes === undefined ? '-' : formatBytes(g.storedBytes),
    'first event in window': g.firstEventAt?.toISOString() ?? '-',
    sampled: `${n(g.sampledEvents)} (${g.exactSlices}/${g.slices} slices whole)`,
    events: n(g.events),
    messages: formatBytes(g.messageBytes),
    pattern: g.filterPattern === '' ? '(all)' : g.filterPattern,
  }));
  const lines = [
    `backfill estimate: ${job.since.toISOString()} to ${job.until.toISOString()} -> ${job.rawStream} (${report.openShards} open shard(s))`,
    formatTable(
      ['log group', 'stored', 'first event in window', 'sampled', 'events', 'messages', 'pattern'],
      rows,
      60,
    ),
    `total: about ${n(total.events)} events, ${formatBytes(total.messageBytes)} of messages; on the raw stream about ` +
      `${formatBytes(total.gzipBytes)} of gzip envelopes in ${n(total.records)} records`,
    `time at ${n(report.ratePerSecond)} events/s: ${formatDuration(duration.atRateInMillis)} (reading alone takes at ` +
      `least ${formatDuration(duration.readingInMillis)}: ${n(total.filterCalls)} FilterLogEvents calls at 4/s)` +
      (duration.shareOfStreamWriteLimit === undefined
        ? ''
        : `; that rate takes ${(duration.shareOfStreamWriteLimit * 100).toFixed(1)}% of the raw stream's write limit ` +
          `(1 MiB/s per shard) besides the live traffic` +
          (duration.shareOfStreamWriteLimit > 0.5
            ? ': lower --rate, or Kinesis throttles the live traffic with the backfill'
            : '')),
  ];
  for (const g of report.groups) {
    if (g.subscribedSince !== undefined && g.subscribedSince.getTime() < job.until.getTime()) {
      lines.push(
        `${g.logGroup} is subscribed to the raw stream since ${g.subscribedSince.toISOString()}: events ingested ` +
          'after that were delivered live. Sent again they overwrite their documents in the index of the day they ' +
          'arrive (Firehose names it by arrival), so one first indexed on an earlier UTC day gets a second copy: ' +
          `--until ${g.subscribedSince.toISOString()} leaves them out`,
      );
    }
  }
  lines.push(`cost (us-east-1 list prices of ${cost.pricesDate}, docs/costs.md):`);
  lines.push(
    formatTable(
      ['item', 'quantity', 'usd', 'note'],
      cost.lines.map((l) => ({
        item: l.item,
        quantity: l.quantity,
        usd: `${usd(l.usd)}${l.monthly === true ? '/month' : ''}`,
        note: l.note ?? '',
      })),
      100,
    ),
  );
  lines.push(
    `total: ${usd(cost.once)} once, plus ${usd(cost.perMonth)} a month while the documents are kept`,
  );
  lines.push('dry run: nothing was written');
  return lines.join('\n');
}

export interface RunSummary {
  readonly job: BackfillJob;
  readonly counts: BackfillCounts;
  readonly thisRun: BackfillCounts;
  readonly runs: number;
  readonly durationInMillis: number;
  readonly interrupted: boolean;
  readonly checkpoint: string;
  readonly keptIn?: string;
  readonly keptFiles: readonly string[];
  readonly lastErrorCode?: string;
}

export function formatSummary(summary: RunSummary): string {
  const { job, counts: c, thisRun: t } = summary;
  const rate = summary.durationInMillis > 0 ? (t.written * 1000) / summary.durationInMillis : 0;
  const lines = [
    `backfill of ${job.logGroups.join(', ')} from ${job.since.toISOString()} to ${job.until.toISOString()} -> ` +
      `${job.rawStream}: ${summary.interrupted ? 'interrupted' : 'done'}` +
      `${summary.runs > 1 ? ` (run ${summary.runs})` : ''}`,
    `  read     ${n(c.read)} events (${n(c.pages)} FilterLogEvents calls)`,
    `  written  ${n(c.written)} events, ${formatBytes(c.messageBytes)} of messages, in ${n(c.records)} records ` +
      `(${formatBytes(c.gzipBytes)} gzip, ${n(c.retries)} entries retried)`,
    `  skipped  ${n(c.skipped)} (written before an interruption, or too large for a Kinesis record)`,
    `  failed   ${n(c.failed)} events in ${n(c.failedRecords)} records refused by Kinesis after every retry`,
    `  this run ${n(t.written)} events in ${formatDuration(summary.durationInMillis)} (${n(rate)} events/s)`,
  ];
  if (c.failed > 0 && summary.keptIn !== undefined) {
    lines.push(
      `kept for replay in ${summary.keptIn}/dead-letter/ (${summary.keptFiles.join(', ')}${
        c.failedRecords > summary.keptFiles.length ? ', ...' : ''
      }); re-send them with: kfek replay --local --local-dir ${summary.keptIn} --kind dead-letter --raw-stream ${job.rawStream}`,
    );
  }
  if (summary.interrupted) {
    lines.push(
      `the checkpoint ${summary.checkpoint} holds where it stopped: run the same command with --resume to go on`,
    );
  }
  return lines.join('\n');
}
