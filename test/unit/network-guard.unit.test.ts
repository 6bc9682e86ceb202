import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { createHostPolicy, isPrivateAddress, type LookupAll } from '../../infrastructure/rendering/network-guard.js';

describe('isPrivateAddress', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback in URL brackets'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'site-local'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['64:ff9b::a00:1', 'NAT64 of a private address'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:db8::1', 'documentation'],
    ['not-an-ip', 'not an address'],
    ['2130706433', 'an integer, not an address'],
  ])('%s is not public (%s)', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['93.184.215.14'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80e::200e'],
    ['::ffff:8.8.8.8'],
  ])('%s is public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe('createHostPolicy().assertUrlAllowed', () => {
  const dns: Record<string, string[]> = {
    'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed.example': ['93.184.215.14', '10.0.0.7'],
    'internal.example': ['10.0.0.5'],
    'office.example': ['192.168.7.20'],
    'rebind.example': ['::ffff:169.254.169.254'],
  };
  const lookup: LookupAll = async (hostname) => {
    const addresses = dns[hostname];
    if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    return addresses.map((address) => ({ address }));
  };
  const policy = createHostPolicy({
    allowedPrivateHosts: ['internal.example', '10.9.9.9', 'fd00::/8', '192.168.7.0/24'],
    lookup,
  });

  const refusal = async (url: string): Promise<DomainError> => {
    const error = await policy.assertUrlAllowed(url).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('validation');
    return error as DomainError;
  };

  it.each([
    ['https://public.example/image.png', 'a host with only public addresses'],
    ['http://8.8.8.8/', 'a public IP literal'],
    ['https://[2606:4700:4700::1111]/', 'a public IPv6 literal'],
    ['http://internal.example:8080/x', 'an allowed host name, whatever it resolves to'],
    ['HTTP://INTERNAL.EXAMPLE./x', 'an allowed host name in another case, with the root dot'],
    ['http://10.9.9.9/', 'an allowed IP literal'],
    ['http://[fd00::1234]/', 'an IP literal in an allowed block'],
    ['http://office.example/', 'a host resolving into an allowed block'],
  ])('allows %s (%s)', async (url) => {
    await expect(policy.assertUrlAllowed(url)).resolves.toBeUndefined();
  });

  it.each([
    ['http://127.0.0.1:5432/', /blocked/],
    ['http://[::1]/', /blocked/],
    ['http://169.254.169.254/latest/meta-data/', /blocked/],
    ['http://0x7f.1/', /blocked/],
    ['http://2130706433/', /blocked/],
    ['http://[::ffff:127.0.0.1]/', /blocked/],
    ['http://10.9.9.10/', /ALLOWED_PRIVATE_HOSTS/],
    ['https://mixed.example/', /mixed\.example resolves to 10\.0\.0\.7/],
    ['https://rebind.example/', /resolves to ::ffff:169\.254\.169\.254/],
    ['http://nowhere.example/', /could not resolve/],
    ['file:///etc/passwd', /only http and https/],
    ['ftp://public.example/', /only http and https/],
    ['javascript:alert(1)', /only http and https/],
    ['not a url', /not a valid URL/],
  ])('refuses %s', async (url, message) => {
    expect((await refusal(url)).message).toMatch(message);
  });

  it('puts the reason in the details the API shows', async () => {
    const error = await refusal('http://192.168.0.1/');
    expect(error.details).toEqual([error.message]);
  });

  it('resolves through the system resolver by default', async () => {
    const system = createHostPolicy({ allowedPrivateHosts: [] });
    await expect(system.assertUrlAllowed('http://localhost:3000/')).rejects.toThrow(/blocked/);
    await expect(createHostPolicy({ allowedPrivateHosts: ['localhost'] }).assertUrlAllowed('http://localhost/')).resolves.toBeUndefined();
  });
});
