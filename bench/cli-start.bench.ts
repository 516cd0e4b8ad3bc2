/**
 * How fast `kfek --help` answers: bin/kfek-cli.js running its prebuilt bundle, beside `node -e 0` (the floor of
 * any node process) in the same rotation of fresh processes. The target is under 0.5 s.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './helpers/esbuild';
import { median } from './helpers/stats';

const ITERATIONS = 10;

function wallMs(args: readonly string[]): number | string {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, [...args], { cwd: ROOT, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return child.status === 0 ? ms : `failed: ${child.stderr.trim().split('\n').slice(-2).join(' | ')}`;
}

/** The CLI lines of `npm run bench`. */
export function cliStartLines(): string[] {
  const cli = join(ROOT, 'bin', 'kfek-cli.js');
  // Not timed: brings the bundle up to date (a rebuild is what the first run after a change pays).
  const warm = wallMs([cli, '--version']);
  if (typeof warm === 'string') return [`cli: kfek --version ${warm}`];
  const sides = [
    { label: 'kfek --help', args: [cli, '--help'], ms: [] as number[] },
    { label: 'node -e 0', args: ['-e', '0'], ms: [] as number[] },
  ];
  for (let i = 0; i < ITERATIONS; i++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(i + k) % sides.length];
      const ms = wallMs(side.args);
      if (typeof ms === 'string') return [`cli: ${side.label} ${ms}`];
      side.ms.push(ms);
    }
  }
  const [help, floor] = sides.map((side) => median(side.ms));
  return [
    `cli: kfek --help ${help.toFixed(0)} ms, node -e 0 ${floor.toFixed(0)} ms, ratio: ${(help / floor).toFixed(2)} ` +
      `(median of ${ITERATIONS} fresh processes each, taking turns; target < 500 ms)`,
  ];
}
