/**
 * A lower Kinesis retention trims the records a lagging consumer has not read yet (issue 30.5): the moment the
 * stream's new retention takes effect, every record older than it is gone, read or not. So before a deploy that
 * lowers `streams.*.retentionHours` the doctor compares how far behind the stream's readers are (CloudWatch
 * `GetRecords.IteratorAgeMilliseconds`, the age of the oldest record any GetRecords reader of the stream still had
 * to read, maximum over the last hour) with the new retention. Pure; the metric is gathered in facts.ts.
 */
import type { CfnTemplate } from '../../core/change-plan';
import { type DoctorFacts, type Finding, skip } from './model';
import type { ProfilePlan } from './plan';

export interface StreamRetention {
  readonly streamName: string;
  readonly beforeHours: number;
  readonly afterHours: number;
}

/** How far behind a stream's readers were over the last hour; undefined when the metric has no datapoint. */
export interface StreamLag {
  readonly streamName: string;
  readonly maxIteratorAgeMillis: number | undefined;
}

type Json = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Json =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};

/** Named streams and their retention (Kinesis' default 24 h when the template leaves it out). */
function retentions(template: CfnTemplate | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const resource of Object.values(obj(obj(template).Resources))) {
    const r = obj(resource);
    if (r.Type !== 'AWS::Kinesis::Stream') continue;
    const p = obj(r.Properties);
    if (typeof p.Name !== 'string') continue;
    const hours = Number(p.RetentionPeriodHours ?? 24);
    out.set(p.Name, Number.isFinite(hours) ? hours : 24);
  }
  return out;
}

/** The deployed streams whose retention the new templates lower. */
export function retentionDecreases(facts: DoctorFacts, plan: ProfilePlan): StreamRetention[] {
  if (facts.deployedTemplates?.ok !== true) return [];
  const deployed = new Map(facts.deployedTemplates.value.map((d) => [d.stackName, d.template]));
  const out: StreamRetention[] = [];
  for (const stack of plan.stacks) {
    const before = retentions(deployed.get(stack.stackName));
    for (const [streamName, afterHours] of retentions(stack.template)) {
      const beforeHours = before.get(streamName);
      if (beforeHours !== undefined && afterHours < beforeHours)
        out.push({ streamName, beforeHours, afterHours });
    }
  }
  return out;
}

const hours = (ms: number): string => `${(ms / 3_600_000).toFixed(1)} h`;

export function checkStreamRetention(facts: DoctorFacts, plan: ProfilePlan | undefined): Finding {
  if (plan === undefined || facts.deployedTemplates?.ok !== true) {
    return skip('streams-retention', 'not checked: needs the deployed and the synthesized templates');
  }
  const lowered = retentionDecreases(facts, plan);
  if (lowered.length === 0)
    return { check: 'streams-retention', status: 'ok', finding: 'no stream retention lowered' };
  const fix =
    'let the readers catch up first (IteratorAge well below the new retention, the sources quiet if needed), ' +
    'then deploy; or lower the retention in steps, each above what the readers lag';
  const lag = facts.streamLag;
  if (lag === undefined || !lag.ok) {
    return {
      check: 'streams-retention',
      status: 'warn',
      finding:
        `${lowered.map((l) => `${l.streamName} ${l.beforeHours} h -> ${l.afterHours} h`).join(', ')}: cannot tell ` +
        `whether its readers are behind (${lag === undefined ? 'not asked' : lag.error})`,
      fix: `look at the stream's GetRecords.IteratorAgeMilliseconds in CloudWatch (allow cloudwatch:GetMetricStatistics); ${fix}`,
    };
  }
  const parts: string[] = [];
  let status: Finding['status'] = 'ok';
  for (const l of lowered) {
    const age = lag.value.find((s) => s.streamName === l.streamName)?.maxIteratorAgeMillis;
    const limit = l.afterHours * 3_600_000;
    if (age === undefined) {
      parts.push(
        `${l.streamName} ${l.beforeHours} h -> ${l.afterHours} h: no reader datapoint in the last hour`,
      );
      if (status === 'ok') status = 'warn';
    } else if (age >= limit) {
      parts.push(
        `${l.streamName} ${l.beforeHours} h -> ${l.afterHours} h: its readers are up to ${hours(age)} behind, so ` +
          'the records they have not read yet are trimmed at the deploy',
      );
      status = 'fail';
    } else {
      parts.push(
        `${l.streamName} ${l.beforeHours} h -> ${l.afterHours} h: its readers are at most ${hours(age)} behind` +
          (age >= limit / 2 ? ', more than half the new retention' : ''),
      );
      if (age >= limit / 2 && status === 'ok') status = 'warn';
    }
  }
  return {
    check: 'streams-retention',
    status,
    finding: parts.join('; '),
    ...(status === 'ok' ? {} : { fix }),
  };
}
