import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The parent of every process (Linux /proc); processes that end while it is read are left out. */
const parentsOfProcesses = async (): Promise<Map<number, number>> => {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      // The command name in parentheses may hold spaces; the fields after it do not.
      const [, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(ppid));
    } catch {
      // Gone meanwhile.
    }
  }
  return parents;
};

/** A process and every process under it. */
export const processTree = async (rootPid: number): Promise<number[]> => {
  const parents = await parentsOfProcesses();
  const tree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
};

const SCHED_IDLE = 5;

/** Whether every thread of a process is in the idle class (field 41 of each thread's stat); false for a process that ended. */
const allThreadsIdle = async (pid: number): Promise<boolean> => {
  const threads = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const tid of threads) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    if (stat && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]) !== SCHED_IDLE) return false;
  }
  return threads.length > 0;
};

/**
 * Moves a process, every process under it and all their threads to the idle scheduling class
 * (SCHED_IDLE, with util-linux's chrt): they run only on CPU time nothing else wants. Threads and
 * processes created later inherit the class, so Chromium's renderers (forked by its zygote) start in
 * it; but Chromium sets some of its threads' scheduling itself (niceness, latency hints), which puts
 * them back in the normal class, so the move is made again from time to time, for the processes that
 * need it. Lowering a class needs no privilege. A process that ends meanwhile is skipped.
 */
export const moveTreeToIdleClass = async (rootPid: number): Promise<void> => {
  for (const pid of await processTree(rootPid)) {
    if (await allThreadsIdle(pid)) continue;
    await run('chrt', ['--idle', '--all-tasks', '--pid', '0', String(pid)]).catch(() => undefined);
  }
};
