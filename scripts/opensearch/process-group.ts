/**
 * The operating-system side of running a node: who it runs as (OpenSearch refuses root, so as root it runs as
 * `nobody`/`nogroup` and its files are handed over), and its process group (signalled as a whole, waited for).
 * node-process.ts uses these to start and stop a node; they know nothing about OpenSearch.
 */
import type { ChildProcess } from 'node:child_process';
import { chownSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

export const NOBODY_UID = 65534;
export const NOGROUP_GID = 65534;

export function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) {
      chownTree(join(path, entry), uid, gid);
    }
  }
}

export async function waitForExit(child: ChildProcess, timeoutMillis: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return true;
  }
  return new Promise((resolveExit) => {
    const timer = setTimeout(() => resolveExit(false), timeoutMillis);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveExit(true);
    });
  });
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
