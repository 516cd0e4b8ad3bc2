/**
 * Where the CPU of a measured local run goes: core-seconds per process tree (the OpenSearch node, moto, this
 * process) and for the whole machine, read from Linux's /proc. `npm run bench:e2e` prints it beside its figures,
 * because on a 2-core machine every stage of the local pipeline shares the same two cores: a run's throughput is
 * bounded by what each event costs all of them together, not by the slowest stage alone (docs/local.md, "Where
 * the time goes").
 *
 * /proc/<pid>/stat gives a process's user and system time (all its threads) in clock ticks of USER_HZ, which Linux
 * fixes at 100 per second for user space on every architecture Node supports. /proc/stat's first line gives the
 * machine's. Elsewhere (macOS, Windows) there is no /proc: {@link sampleCpu} answers undefined and the caller
 * prints nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc's times. */
const TICKS_PER_SECOND = 100;

/** One reading of every process's and the machine's CPU time. */
export interface CpuSample {
  /** Epoch millis of the reading. */
  readonly at: number;
  /** Parent pid and CPU ticks (user + system) of every process alive at the reading. */
  readonly processes: ReadonlyMap<number, { readonly ppid: number; readonly ticks: number }>;
  /** The machine's busy ticks (user, nice, system, irq, softirq, steal), over all cores. */
  readonly machineBusyTicks: number;
  /** Cores the machine has (the `cpuN` lines of /proc/stat). */
  readonly cores: number;
}

/** Core-seconds between two samples, per named process tree and for the machine. */
export interface CpuSpan {
  readonly wallSeconds: number;
  readonly cores: number;
  /** Core-seconds the whole machine was busy. */
  readonly machineBusy: number;
  /** Core-seconds per role: each role's root process and everything it started. */
  readonly byRole: Readonly<Record<string, number>>;
  /** Machine busy time no role accounts for (other processes, the kernel's own threads). */
  readonly other: number;
}

/**
 * The parent pid and CPU ticks (user + system) in one /proc/<pid>/stat line, or undefined if it is not one. The
 * command name, in parentheses, may itself hold spaces and parentheses, so the fields are counted after the last `)`.
 */
export function parseProcStat(text: string): { ppid: number; ticks: number } | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  const ppid = Number(rest[1]);
  const ticks = Number(rest[11]) + Number(rest[12]);
  return rest.length >= 13 && Number.isInteger(ppid) && Number.isInteger(ticks) ? { ppid, ticks } : undefined;
}

/**
 * The machine's busy ticks over all cores and its core count, from /proc/stat: busy is user, nice, system, irq,
 * softirq and steal (time the hypervisor gave to others is not this machine's to use); guest time is already in
 * user, and idle and iowait are not busy.
 */
export function parseMachineStat(text: string): { readonly busyTicks: number; readonly cores: number } {
  const lines = text.split('\n');
  const [user, nice, system, , , irq, softirq, steal] = lines[0].trim().split(/\s+/).slice(1).map(Number);
  const busyTicks = [user, nice, system, irq, softirq, steal].reduce(
    (sum, n) => sum + (Number.isFinite(n) ? n : 0),
    0,
  );
  const cores = lines.filter((line) => /^cpu\d+\s/.test(line)).length;
  return { busyTicks, cores };
}

/** Reads every process's CPU time and the machine's; undefined where there is no /proc. */
export function sampleCpu(now: () => number = Date.now): CpuSample | undefined {
  let stat: string;
  let entries: string[];
  try {
    stat = readFileSync('/proc/stat', 'utf8');
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const processes = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parsed = parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (parsed !== undefined) processes.set(Number(entry), parsed);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const { busyTicks: machineBusyTicks, cores } = parseMachineStat(stat);
  return { at: now(), processes, machineBusyTicks, cores };
}

/** The role of `pid`: the first root found walking up its parents, or undefined. */
function roleOf(pid: number, sample: CpuSample, roots: ReadonlyMap<number, string>): string | undefined {
  const seen = new Set<number>();
  for (
    let p: number | undefined = pid;
    p !== undefined && p > 0 && !seen.has(p);
    p = sample.processes.get(p)?.ppid
  ) {
    const role = roots.get(p);
    if (role !== undefined) return role;
    seen.add(p);
  }
  return undefined;
}

/**
 * Core-seconds from `before` to `after` per role. `roles` names root pids; a process counts for the role of its
 * nearest named ancestor (or itself), so list a child's pid to count it apart from its parent's role. A process
 * that ended between the samples is not counted (its time is in no reading), one that started counts from zero.
 */
export function cpuSpan(
  before: CpuSample,
  after: CpuSample,
  roles: Readonly<Record<string, number | undefined>>,
): CpuSpan {
  const roots = new Map<number, string>();
  for (const [role, pid] of Object.entries(roles)) if (pid !== undefined) roots.set(pid, role);
  const byRole: Record<string, number> = Object.fromEntries(Object.keys(roles).map((role) => [role, 0]));
  for (const [pid, { ticks }] of after.processes) {
    const role = roleOf(pid, after, roots);
    if (role === undefined) continue;
    const earlier = before.processes.get(pid)?.ticks ?? 0;
    byRole[role] += Math.max(0, ticks - earlier) / TICKS_PER_SECOND;
  }
  const machineBusy = (after.machineBusyTicks - before.machineBusyTicks) / TICKS_PER_SECOND;
  const accounted = Object.values(byRole).reduce((sum, n) => sum + n, 0);
  return {
    wallSeconds: (after.at - before.at) / 1000,
    cores: after.cores,
    machineBusy,
    byRole,
    other: Math.max(0, machineBusy - accounted),
  };
}

/** Lines for a report: the span's capacity, the machine's use of it, and each role's share, per event too. */
export function formatCpuSpan(span: CpuSpan, events: number): string[] {
  const capacity = span.wallSeconds * span.cores;
  const perEvent = (coreSeconds: number): string =>
    events > 0 ? `, ${Math.round((coreSeconds * 1e6) / events)} core-us/event` : '';
  const pct = (coreSeconds: number): string =>
    capacity > 0 ? `${Math.round((100 * coreSeconds) / capacity)} %` : 'n/a';
  return [
    `  CPU over the run: ${span.wallSeconds.toFixed(1)} s x ${span.cores} cores = ${capacity.toFixed(1)} ` +
      `core-s; the machine was busy ${span.machineBusy.toFixed(1)} core-s (${pct(span.machineBusy)})` +
      perEvent(span.machineBusy),
    ...Object.entries(span.byRole).map(
      ([role, coreSeconds]) =>
        `    ${role.padEnd(34)} ${coreSeconds.toFixed(1).padStart(5)} core-s  ${pct(coreSeconds).padStart(4)}` +
        perEvent(coreSeconds),
    ),
    `    ${'other processes and the kernel'.padEnd(34)} ${span.other.toFixed(1).padStart(5)} core-s  ` +
      `${pct(span.other).padStart(4)}`,
  ];
}
