import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * CPU time of the process families the bench starts, read from /proc without hooks in product code.
 *
 * A process's CPU time lives in /proc/<pid>/stat: utime+stime for itself, cutime+cstime for the
 * children it has waited for (reaped), their own reaped children included. So the CPU a process
 * tree has used so far is the sum, over its live members, of utime+stime+cutime+cstime, as long as
 * every member that exits is reaped by another member: Chromium's renderers are children of its
 * zygote (or of the browser), PostgreSQL's backends of the postmaster, and both parents reap them.
 * A renderer that starts and exits between two samples is thus still counted, in its parent's
 * cutime/cstime, and a renderer that we saw alive and that exits later moves its time into the
 * parent, which we subtract nowhere: the delta of the sum over a run is the tree's CPU in the run.
 *
 * What this misses is a member reaped by a process outside its family: the Chromium browser itself
 * when the pool replaces it (this node process reaps it), or a child reparented to init. Such a
 * process keeps the time we last saw it with ("departed"), which is why the tree is sampled often
 * (every 100 ms) and not only at the ends of a run: at most one sampling interval of its CPU is lost.
 * Processes are keyed by pid and start time, so a reused pid is never mistaken for the old process.
 * Membership is sticky: a process keeps its family when it is reparented out of the tree. Not
 * counted: Chromium's crashpad handlers, which detach to init at start and sleep.
 *
 * Checked against the kernel's own accounting (a cpuacct cgroup holding a puppeteer script), with
 * captures each in a fresh context (a renderer started and killed per capture) and on one warm page:
 * the two agree.
 *
 * The node process itself is not read here but with process.cpuUsage(), which is exact to the
 * microsecond; its cutime would include reaped Chromium browsers, which belong to Chromium.
 */

export const FAMILIES = ['chromium', 'rawChromium', 'temporal', 'postgres', 'other'] as const;
export type Family = (typeof FAMILIES)[number];
export type FamilyTotals = Record<Family, number>;

export const emptyTotals = (): FamilyTotals => ({ chromium: 0, rawChromium: 0, temporal: 0, postgres: 0, other: 0 });

export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface ProcStat {
  readonly pid: number;
  /** The command name (comm): the program's file name, cut to 15 characters. */
  readonly name: string;
  readonly ppid: number;
  /** Start time in clock ticks after boot: with the pid, a key no other process will ever have. */
  readonly start: string;
  readonly state: string;
  /** utime + stime, clock ticks. */
  readonly ownTicks: number;
  /** cutime + cstime: reaped children, clock ticks. */
  readonly childTicks: number;
}

export const readStat = (pid: number): ProcStat | null => {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 of proc(5): field n is fields[n - 3].
  const field = (n: number) => fields[n - 3] ?? '0';
  return {
    pid,
    name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
    state: field(3),
    ppid: Number(field(4)),
    ownTicks: Number(field(14)) + Number(field(15)),
    childTicks: Number(field(16)) + Number(field(17)),
    start: field(22),
  };
};

export const readArgv = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part.length > 0);
  } catch {
    return [];
  }
};

export const listPids = (): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);

/** One sample in so many reads every process again (see FamilyCpu.outsiders). */
const FULL_SCAN_EVERY = 10;

const CHROMIUM_BINARY = /^(chromium|chromium-browser|chrome|headless_shell|chrome-headless-shell|chromium-headless-shell)$/;

export const isChromium = (argv: readonly string[]) => CHROMIUM_BINARY.test(path.basename(argv[0] ?? ''));
/** Chromium's browser process: its helpers (zygote, renderer, gpu, utility) all carry --type=. */
export const isChromiumBrowser = (argv: readonly string[]) => isChromium(argv) && !argv.some((arg) => arg.startsWith('--type='));

const childrenOf = (stats: Iterable<ProcStat>) => {
  const children = new Map<number, number[]>();
  for (const stat of stats) {
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(stat.pid);
    else children.set(stat.ppid, [stat.pid]);
  }
  return children;
};

/** Every process on the machine with its parent, one scan of /proc; `skip` names processes not to read. */
const scan = (skip?: (pid: number) => boolean) => {
  const stats = new Map<number, ProcStat>();
  for (const pid of listPids()) {
    if (skip?.(pid)) continue;
    const stat = readStat(pid);
    if (stat) stats.set(pid, stat);
  }
  return { stats, children: childrenOf(stats.values()) };
};

/** Every process started (directly or not) by process `root`, as /proc has it now. */
export const descendantStats = (root: number): ProcStat[] => {
  const { stats, children } = scan();
  const found: ProcStat[] = [];
  const queue = [...(children.get(root) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    const stat = stats.get(pid);
    if (stat) found.push(stat);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
};

export const descendantsOf = (root: number): number[] => descendantStats(root).map(({ pid }) => pid);

/** The Chromium browser processes started (directly or not) by process `root`, with their command lines. */
export const chromiumBrowsersUnder = (root: number) =>
  descendantsOf(root)
    .map((pid) => ({ pid, argv: readArgv(pid) }))
    .filter(({ argv }) => isChromiumBrowser(argv));

interface Member {
  readonly family: Family;
  readonly parentKey: string;
  /** CPU so far in ticks: own time, plus reaped children's for families that reap their own. */
  readonly ticks: number;
  /** The program's name, for unclassified members only (the report names them). */
  readonly command: string;
}

export interface FamilyCpuOptions {
  /** The node process whose children are classified (this one). */
  readonly rootPid: number;
  /** Processes elsewhere whose command line names this folder belong to the bench too (PostgreSQL, Temporal). */
  readonly dataDir: string;
}

/**
 * Follows the families' process trees across samples. total() is the CPU seconds each family has
 * used since its processes started, including members that have exited since.
 */
export class FamilyCpu {
  private members = new Map<string, Member>();
  private readonly departed = emptyTotals();
  /** Family decided for a process once and kept (sticky), keyed by pid:start. */
  private readonly assigned = new Map<string, Family>();
  /**
   * Processes found outside every family (pid -> start), not read again until the next full scan:
   * on a shared machine they are most of /proc, and reading them all every 100 ms would cost more
   * CPU than the measuring is worth. A process never joins a tree after its start, and the full
   * scan every FULL_SCAN_EVERY samples catches a pid reused in between.
   */
  private outsiders = new Map<number, string>();
  private samplesTaken = 0;
  private rawBrowserPids = new Set<number>();
  /** Distinct processes seen per family, for the report (how many renderers came and went). */
  readonly seen = new Map<Family, Set<string>>();

  private readonly options: FamilyCpuOptions;

  constructor(options: FamilyCpuOptions) {
    this.options = options;
  }

  setRawBrowserPids(pids: readonly number[]): void {
    this.rawBrowserPids = new Set(pids);
  }

  private classify(pid: number, argv: readonly string[]): Family {
    const binary = path.basename(argv[0] ?? '');
    if (isChromium(argv)) return this.rawBrowserPids.has(pid) ? 'rawChromium' : 'chromium';
    // The dev server runs under a small sh watchdog whose arguments are the server's command line.
    if (binary === 'temporal' || argv.includes('start-dev')) return 'temporal';
    // Backends rewrite their argv to "postgres: user db host state"; they inherit from the postmaster anyway.
    if (binary.startsWith('postgres') || binary === 'postmaster') return 'postgres';
    return 'other';
  }

  /** Reads /proc once and updates the families; returns the totals in CPU seconds. `full` reads every process. */
  sample(full = this.samplesTaken % FULL_SCAN_EVERY === 0): FamilyTotals {
    this.samplesTaken++;
    const { stats, children } = scan(full ? undefined : (pid) => this.outsiders.has(pid));
    const keyOf = (stat: ProcStat) => `${stat.pid}:${stat.start}`;
    const current = new Map<string, Member>();

    const visit = (rootPid: number, rootFamily: Family | 'node') => {
      const queue: [number, Family | 'node'][] = [[rootPid, rootFamily]];
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [pid, inherited] = next;
        const stat = stats.get(pid);
        if (!stat) continue;
        const key = keyOf(stat);
        if (current.has(key)) continue;
        let family: Family | 'node' = inherited;
        let command = '';
        if (pid !== this.options.rootPid) {
          const sticky = this.assigned.get(key);
          if (sticky) family = sticky;
          else if (inherited === 'node' || inherited === 'other') {
            // Read again while unclassified: a child between fork and exec still shows its parent's command.
            const argv = readArgv(pid);
            command = path.basename(argv[0] ?? '');
            family = this.classify(pid, argv);
            if (family !== 'other') this.assigned.set(key, family);
          } else this.assigned.set(key, inherited);
        }
        if (family !== 'node') {
          const parent = stats.get(stat.ppid);
          current.set(key, {
            family,
            parentKey: parent ? keyOf(parent) : '',
            // An unclassified process may reap children of any family: its own time only.
            ticks: stat.ownTicks + (family === 'other' ? 0 : stat.childTicks),
            command: family === 'other' ? command : '',
          });
          let seen = this.seen.get(family);
          if (!seen) this.seen.set(family, (seen = new Set()));
          seen.add(key);
        }
        for (const child of children.get(pid) ?? []) queue.push([child, family]);
      }
    };

    visit(this.options.rootPid, 'node');
    // Members reparented out of the tree, and servers of this data folder started by someone else.
    for (const stat of stats.values()) {
      const key = keyOf(stat);
      if (current.has(key) || stat.pid === this.options.rootPid) continue;
      const sticky = this.assigned.get(key);
      if (sticky) {
        visit(stat.pid, sticky);
        continue;
      }
      if (this.outsiders.get(stat.pid) === stat.start) continue;
      const argv = readArgv(stat.pid);
      if (argv.some((arg) => arg.includes(this.options.dataDir))) {
        const family = this.classify(stat.pid, argv);
        if (family !== 'other') {
          this.assigned.set(key, family);
          visit(stat.pid, family);
        }
      }
    }
    if (full) this.outsiders = new Map();
    for (const stat of stats.values()) {
      if (stat.pid !== this.options.rootPid && !current.has(keyOf(stat))) this.outsiders.set(stat.pid, stat.start);
    }

    for (const [key, member] of this.members) {
      if (current.has(key) || this.absorbed(member, current)) continue;
      this.departed[member.family] += member.ticks;
    }
    this.members = current;

    const totals = { ...this.departed };
    for (const member of current.values()) totals[member.family] += member.ticks;
    for (const family of FAMILIES) totals[family] /= CLOCK_TICKS;
    return totals;
  }

  /**
   * An exited member whose nearest living ancestor (through exited members of the same family) is
   * of its family was reaped inside the family: its time is in that ancestor's cutime/cstime now.
   */
  private absorbed(member: Member, current: Map<string, Member>): boolean {
    if (member.family === 'other') return false;
    let parentKey = member.parentKey;
    for (let depth = 0; parentKey && depth < 64; depth++) {
      const alive = current.get(parentKey);
      if (alive) return alive.family === member.family;
      const gone = this.members.get(parentKey);
      if (!gone || gone.family !== member.family) return false;
      parentKey = gone.parentKey;
    }
    return false;
  }

  /** The live members of each family, and the programs of the unclassified ones, for a line on what is measured. */
  census(): { counts: Record<Family, number>; others: string[] } {
    const counts = emptyTotals();
    const others: string[] = [];
    for (const member of this.members.values()) {
      counts[member.family]++;
      if (member.family === 'other') others.push(member.command);
    }
    return { counts, others };
  }
}
