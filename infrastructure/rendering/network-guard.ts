import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { validationError } from '../../domain/shared/errors.js';

type Address = ReturnType<typeof ipaddr.parse>;

/*
 * ipaddr.js names the special-purpose ranges it knows; anything it does not call 'unicast' is not
 * reachable on the public internet. These are special-purpose blocks it classifies as 'unicast'
 * in some versions, and the ones that carry an IPv4 address a gateway could translate into a
 * private one (local-use NAT64, IPv4-compatible).
 */
const EXTRA_NON_PUBLIC: readonly string[] = [
  '198.18.0.0/15', // benchmarking
  '::/96', // IPv4-compatible (deprecated), also covers :: and ::1
  '64:ff9b:1::/48', // local-use NAT64
  '100::/64', // discard-only
  '2001:10::/28', // ORCHID
  '2001:20::/28', // ORCHIDv2
  'fec0::/10', // site-local (deprecated)
];
const extraRanges = EXTRA_NON_PUBLIC.map((cidr) => ipaddr.parseCIDR(cidr));

function parseIp(text: string): Address | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // A zone id ("fe80::1%eth0") names an interface, so the address is link-local whatever it says.
  if (bare.includes('%')) return ipaddr.parse('fe80::');
  // The strict forms only: "127.1" or "0x7f.0.0.1" are hostnames to dns.lookup, which resolves them.
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !(bare.includes(':') && ipaddr.IPv6.isValid(bare))) return undefined;
  const address = ipaddr.parse(bare);
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

function matches(address: Address, [range, bits]: [Address, number]): boolean {
  if (address instanceof ipaddr.IPv4) return range instanceof ipaddr.IPv4 && address.match(range, bits);
  return range instanceof ipaddr.IPv6 && address.match(range, bits);
}

/**
 * True for every address a render must not reach by default: private, loopback, link-local,
 * carrier-grade NAT, unspecified, broadcast, multicast, unique-local, documentation and other
 * reserved blocks, including IPv4 addresses written as IPv4-mapped IPv6. Anything that does not
 * parse as an IP address counts as private, so a mistake fails closed.
 */
export function isPrivateAddress(ip: string): boolean {
  const address = parseIp(ip);
  if (!address) return true;
  if (address.range() !== 'unicast') return true;
  return extraRanges.some((range) => matches(address, range));
}

export type LookupAll = (hostname: string) => Promise<readonly { address: string }[]>;

export interface HostPolicyOptions {
  /** Hostnames, IP addresses or CIDR blocks that renders may reach although they are not public. */
  allowedPrivateHosts: readonly string[];
  /** Defaults to dns.lookup with all addresses, which is what Chromium's resolver sees too. */
  lookup?: LookupAll;
}

export interface HostPolicy {
  /** Resolves when url is http(s) and its host is public or allowed; throws DomainError('validation') otherwise. */
  assertUrlAllowed(url: string): Promise<void>;
  /**
   * Makes every request of the page (subresources, frames, redirects) pass assertUrlAllowed, or
   * be aborted. Uses cooperative interception: other handlers on the page must pass a priority
   * to continue/respond/abort too, or they resolve requests before the guard has decided.
   */
  guardPage(page: Page): Promise<void>;
  /** The checked address to connect to for a host; throws DomainError('validation') when it may not be reached. */
  allowedAddress(host: string): Promise<string>;
}

const defaultLookup: LookupAll = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** Higher than any handler's continue or respond, so a refusal always wins. */
const BLOCK_PRIORITY = 1_000_000;
const PASS_THROUGH = new Set(['data:', 'blob:', 'about:']);

export function createHostPolicy(options: HostPolicyOptions): HostPolicy {
  const resolve = options.lookup ?? defaultLookup;
  const allowedNames = new Set<string>();
  const allowedRanges: [Address, number][] = [];
  for (const raw of options.allowedPrivateHosts) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry.includes('/') && ipaddr.isValid(entry.split('/')[0] ?? '')) {
      allowedRanges.push(ipaddr.parseCIDR(entry));
      continue;
    }
    const ip = parseIp(entry);
    if (ip) allowedRanges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
    else allowedNames.add(entry.replace(/\.$/, ''));
  }

  // Guarding twice would resolve every request twice; a pool may guard a page before the renderer does.
  const guarded = new WeakSet<Page>();

  const isAllowedAddress = (text: string): boolean => {
    const address = parseIp(text);
    return address !== undefined && allowedRanges.some((range) => matches(address, range));
  };

  /**
   * The address to connect to for `host` (a name or an IP literal) when it may be reached, so the
   * connection goes where the check looked and a second DNS answer cannot point it elsewhere.
   * `shown` is what errors name (the URL the client gave).
   */
  async function allowedAddress(host: string, shown: string = host): Promise<string> {
    const name = host.toLowerCase().replace(/\.$/, '');
    const literal = parseIp(name);
    let addresses: string[];
    if (literal) {
      addresses = [name.startsWith('[') ? name.slice(1, -1) : name];
    } else {
      try {
        addresses = (await resolve(name)).map((entry) => entry.address);
      } catch (error) {
        throw validationError(`could not resolve the host of ${shown}: ${(error as Error).message}`);
      }
      if (addresses.length === 0) throw validationError(`could not resolve the host of ${shown}`);
    }
    const [first] = addresses as [string, ...string[]];
    if (allowedNames.has(name)) return first;
    const refused = addresses.find((address) => isPrivateAddress(address) && !isAllowedAddress(address));
    if (refused !== undefined) {
      const via = literal ? '' : ` (${name} resolves to ${refused})`;
      throw validationError(
        `requests to private, loopback or link-local addresses are blocked: ${shown}${via}; list the host in ALLOWED_PRIVATE_HOSTS to allow it`,
      );
    }
    return first;
  }

  async function assertUrlAllowed(url: string): Promise<void> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw validationError(`"${url}" is not a valid URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw validationError(`only http and https URLs may be fetched, not ${parsed.protocol} (${url})`);
    }
    await allowedAddress(parsed.hostname, url);
  }

  async function guardPage(page: Page): Promise<void> {
    if (guarded.has(page)) return;
    guarded.add(page);
    // A page asks for the same few hosts over and over; one lookup per host per page is enough.
    const verdicts = new Map<string, Promise<boolean>>();
    const verdict = (url: URL): Promise<boolean> => {
      const key = `${url.protocol}//${url.host}`;
      let known = verdicts.get(key);
      if (!known) {
        known = assertUrlAllowed(`${key}/`).then(() => true, () => false);
        verdicts.set(key, known);
      }
      return known;
    };
    const decide = async (request: HTTPRequest): Promise<void> => {
      let url: URL;
      try {
        url = new URL(request.url());
      } catch {
        await request.abort('blockedbyclient', BLOCK_PRIORITY);
        return;
      }
      if (PASS_THROUGH.has(url.protocol)) {
        await request.continue(request.continueRequestOverrides(), 0);
        return;
      }
      // Never resolves (RFC 6761); refused without asking DNS. The pages' own documents live there.
      if (url.hostname.endsWith('.invalid')) {
        await request.abort('blockedbyclient', BLOCK_PRIORITY);
        return;
      }
      if (await verdict(url)) await request.continue(request.continueRequestOverrides(), 0);
      else await request.abort('blockedbyclient', BLOCK_PRIORITY);
    };
    // Puppeteer awaits the promise a 'request' listener returns before it resolves the request.
    page.on('request', (request) => (request.isInterceptResolutionHandled() ? undefined : decide(request).catch(() => {})));
    await page.setRequestInterception(true);
  }

  return { assertUrlAllowed, allowedAddress, guardPage };
}
