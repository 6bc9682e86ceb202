import { execFileSync } from 'node:child_process';
import type { Placement } from '../../support/service-process.js';

/*
 * Hosts made of Linux network namespaces: each host a namespace with a veth into one bridge in this
 * (the root) namespace, so the test reaches every host and they reach each other, and a fault is cut
 * into the network itself (a link taken down, packets dropped by nftables) rather than faked in code.
 * Everything made here is named `rsf-*`, and `removeNetwork` takes away all of it, leftovers of an
 * earlier run included.
 */

const BRIDGE = 'rsf-br0';
const SUBNET = '10.213.0';
/** The bridge's own address: this process, reaching every host. */
export const BRIDGE_ADDRESS = `${SUBNET}.1`;
export const NETWORK_CIDR = `${SUBNET}.0/24`;

export const HOST_NAMES = ['pg', 'temporal', 'minio', 'api', 'w1', 'w2', 'hook'] as const;
export type HostName = (typeof HOST_NAMES)[number];

export interface NetworkHost extends Placement {
  readonly name: HostName;
  /** The veth end in the root namespace: taking it down cuts the host off. */
  readonly link: string;
}

export const hostOf = (name: HostName): NetworkHost => ({
  name,
  netns: `rsf-${name}`,
  host: `${SUBNET}.${HOST_NAMES.indexOf(name) + 2}`,
  link: `rsf-${name}-h`,
});

const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const ip = (...args: string[]) => run('ip', args);
const inHost = (host: NetworkHost, command: string, ...args: string[]) => run('ip', ['netns', 'exec', host.netns, command, ...args]);
const quietly = (action: () => unknown) => {
  try {
    action();
  } catch {
    // Already gone.
  }
};

/** Pids of every process inside a namespace: whatever a run left there is ended with it. */
const pidsIn = (netns: string): number[] => {
  try {
    return run('ip', ['netns', 'pids', netns]).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** Every process in an `rsf-*` namespace, each namespace, the bridge and the veths. */
export const removeNetwork = () => {
  const namespaces = run('ip', ['netns', 'list'])
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith('rsf-'));
  for (const netns of namespaces) for (const pid of pidsIn(netns)) quietly(() => process.kill(pid, 'SIGKILL'));
  for (const netns of namespaces) quietly(() => ip('netns', 'del', netns));
  for (const name of HOST_NAMES) quietly(() => ip('link', 'del', hostOf(name).link));
  quietly(() => ip('link', 'del', BRIDGE));
};

/** The bridge and one host per name, each with loopback up and its address on the bridge. */
export const createNetwork = (): Record<HostName, NetworkHost> => {
  removeNetwork();
  ip('link', 'add', BRIDGE, 'type', 'bridge');
  ip('addr', 'add', `${BRIDGE_ADDRESS}/24`, 'dev', BRIDGE);
  ip('link', 'set', BRIDGE, 'up');
  const hosts = Object.fromEntries(HOST_NAMES.map((name) => [name, hostOf(name)])) as Record<HostName, NetworkHost>;
  for (const host of Object.values(hosts)) {
    ip('netns', 'add', host.netns);
    ip('link', 'add', host.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.netns);
    ip('link', 'set', host.link, 'master', BRIDGE);
    ip('link', 'set', host.link, 'up');
    inHost(host, 'ip', 'link', 'set', 'lo', 'up');
    inHost(host, 'ip', 'addr', 'add', `${host.host}/24`, 'dev', 'eth0');
    inHost(host, 'ip', 'link', 'set', 'eth0', 'up');
  }
  return hosts;
};

/** The host's only link goes down: it reaches nothing and nothing reaches it. */
export const isolate = (host: NetworkHost) => void ip('link', 'set', host.link, 'down');
export const reconnect = (host: NetworkHost) => void ip('link', 'set', host.link, 'up');

/**
 * nftables rules in `host`'s namespace on its traffic with `peer`, both ways: `drop` silently drops
 * every packet (a partition, as a dead switch port looks: no reset, no ICMP), `loss` drops a share at random.
 */
export const dropBetween = (host: NetworkHost, peer: NetworkHost, how: { drop: 'all' } | { lossPercent: number }) => {
  const verdict = 'drop' in how ? 'drop' : `numgen random mod 100 < ${how.lossPercent} drop`;
  const script = [
    'table inet rsf_fault {',
    `  chain out { type filter hook output priority 0; ip daddr ${peer.host} ${verdict}; }`,
    `  chain in { type filter hook input priority 0; ip saddr ${peer.host} ${verdict}; }`,
    '}',
  ].join('\n');
  execFileSync('ip', ['netns', 'exec', host.netns, 'nft', '-f', '-'], { input: script });
};

export const healDrops = (host: NetworkHost) => quietly(() => inHost(host, 'nft', 'delete', 'table', 'inet', 'rsf_fault'));
