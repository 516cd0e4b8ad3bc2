import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  cpuSpan,
  type CpuSample,
  type CpuSpan,
  formatCpuSpan,
  parseMachineStat,
  parseProcStat,
  sampleCpu,
} from '../../../scripts/local/cpu-usage';

/** A /proc/<pid>/stat line with this command name, parent, and user/system ticks. */
function statLine(pid: number, comm: string, ppid: number, utime: number, stime: number): string {
  const fields = [
    'S',
    ppid,
    pid,
    pid,
    0,
    -1,
    4194560,
    100,
    0,
    0,
    0,
    utime,
    stime,
    0,
    0,
    20,
    0,
    1,
    0,
    1,
    2,
    3,
  ];
  return `${pid} (${comm}) ${fields.join(' ')}\n`;
}

function sample(
  at: number,
  machineBusyTicks: number,
  processes: ReadonlyArray<readonly [pid: number, ppid: number, ticks: number]>,
): CpuSample {
  return {
    at,
    machineBusyTicks,
    cores: 2,
    processes: new Map(processes.map(([pid, ppid, ticks]) => [pid, { ppid, ticks }])),
  };
}

describe('parseProcStat', () => {
  test('reads the parent and user + system ticks after the command name, whatever the name holds', () => {
    expect(parseProcStat(statLine(42, 'java', 7, 1500, 250))).toEqual({ ppid: 7, ticks: 1750 });
    expect(parseProcStat(statLine(43, 'a b) S 99 (c', 8, 10, 5))).toEqual({ ppid: 8, ticks: 15 });
  });

  test('answers undefined for text that is not a stat line', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('12 (x) S 1 2')).toBeUndefined();
    expect(parseProcStat(statLine(44, 'x', 1, 10, 5).replace(' 10 5 ', ' ten 5 '))).toBeUndefined();
  });
});

describe('parseMachineStat', () => {
  test('busy is user, nice, system, irq, softirq and steal; guest is in user already; cores are the cpuN lines', () => {
    const text = [
      'cpu  1000 20 300 5000 40 6 7 8 900 10',
      'cpu0 500 10 150 2500 20 3 3 4 450 5',
      'cpu1 500 10 150 2500 20 3 4 4 450 5',
      'intr 123456',
      'ctxt 789',
    ].join('\n');
    expect(parseMachineStat(text)).toEqual({ busyTicks: 1000 + 20 + 300 + 6 + 7 + 8, cores: 2 });
  });

  test('an older kernel without steal or guest columns still adds up', () => {
    expect(parseMachineStat('cpu 10 0 5 100 1 0 2\ncpu0 10 0 5 100 1 0 2\n')).toEqual({
      busyTicks: 17,
      cores: 1,
    });
  });
});

describe('cpuSpan', () => {
  // runner 100 -> node launcher 200 -> java 201; runner -> moto 300; runner -> child 400; 999 is unrelated.
  const before = sample(1_000, 10_000, [
    [100, 1, 500],
    [200, 100, 0],
    [201, 200, 1_000],
    [300, 100, 200],
    [400, 100, 50],
    [500, 100, 70],
    [999, 1, 3_000],
  ]);
  const after = sample(11_000, 11_900, [
    [100, 1, 800],
    [200, 100, 0],
    [201, 200, 2_200],
    [300, 100, 350],
    [400, 100, 90],
    [600, 100, 40], // started after `before`: counts from zero; 500 ended: not counted
    [999, 1, 3_100],
  ]);

  test('counts each process for its nearest named ancestor, in core-seconds', () => {
    const span = cpuSpan(before, after, { node: 200, moto: 300, runner: 100 });
    expect(span.wallSeconds).toBe(10);
    expect(span.cores).toBe(2);
    expect(span.machineBusy).toBeCloseTo(19);
    expect(span.byRole.node).toBeCloseTo(12);
    expect(span.byRole.moto).toBeCloseTo(1.5);
    // 100 itself (3 s), 400 (0.4 s) and 600 (0.4 s) are under the runner; 999 is no role's.
    expect(span.byRole.runner).toBeCloseTo(3.8);
    expect(span.other).toBeCloseTo(19 - 12 - 1.5 - 3.8);
  });

  test('a child named on its own is counted apart from its parent, and an absent role counts zero', () => {
    const span = cpuSpan(before, after, { runner: 100, child: 400, gone: undefined });
    expect(span.byRole.child).toBeCloseTo(0.4);
    expect(span.byRole.runner).toBeCloseTo(3 + 12 + 1.5 + 0.4);
    expect(span.byRole.gone).toBe(0);
  });

  test('the report gives capacity, use and each role per event', () => {
    const lines = formatCpuSpan(cpuSpan(before, after, { node: 200 }), 100_000);
    expect(lines[0]).toBe(
      '  CPU over the run: 10.0 s x 2 cores = 20.0 core-s; the machine was busy 19.0 core-s (95 %), ' +
        '190 core-us/event',
    );
    expect(lines[1]).toMatch(/^ {4}node +12\.0 core-s +60 %, 120 core-us\/event$/);
    expect(lines[2]).toMatch(/^ {4}other processes and the kernel +7\.0 core-s +35 %$/);
  });
});

const onLinux = existsSync('/proc/stat');

/** Waits for `pid` to appear in /proc, then until it has burnt a quarter of a core-second; that span. */
async function busySpan(pid: number): Promise<CpuSpan> {
  const deadline = Date.now() + 30_000;
  let before: CpuSample | undefined;
  while (Date.now() < deadline) {
    const now = sampleCpu();
    if (now === undefined) throw new Error('no /proc');
    if (before === undefined) {
      if (now.processes.has(pid)) before = now;
    } else {
      const span = cpuSpan(before, now, { child: pid, self: process.pid });
      if (span.byRole.child >= 0.25) return span;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`process ${pid} was never counted a quarter of a core-second in 30 s`);
}

(onLinux ? describe : describe.skip)('sampleCpu on this machine', () => {
  test("counts a busy child's CPU for the role named by its pid", async () => {
    const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try {
      const pid = child.pid!;
      const span = await busySpan(pid);
      expect(span.byRole.child).toBeGreaterThanOrEqual(0.25);
      expect(span.cores).toBeGreaterThanOrEqual(1);
      expect(span.machineBusy).toBeGreaterThanOrEqual(span.byRole.child);
      expect(sampleCpu()?.processes.get(pid)?.ppid).toBe(process.pid);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
