import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { UrlSigningKeyView } from '../../application/ports/read-models.js';
import type { SecretSealer } from '../../application/ports/secret-sealer.js';
import { canonicalForm, canonicalQuery, signatureMatches, signImageUrl, type SignedImageUrlParts } from '../../application/url-signing/image-url-signature.js';
import { encodeRfc3986 } from '../../application/url-signing/image-url.js';
import { verifySignedImageUrl, type SignedImageRequest } from '../../application/url-signing/verify-signed-image-url/verify-signed-image-url.js';
import { DomainError } from '../../domain/shared/errors.js';
import { fakeClock } from '../support/port-fakes.js';

const run = promisify(execFile);

const SECRET = 'urlsk_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const NOW = 1_800_000_000;
const parts: SignedImageUrlParts = {
  templateId: 'tpl-1',
  extension: 'jpg',
  values: [
    ['title', 'Launch day'],
    ['card.color', '#ff0000'],
    ['subtitle', "50% off (today!) ~ ünïcode*"],
  ],
  expires: String(NOW + 3600),
  keyId: 'key-1',
};

describe('the canonical form', () => {
  it('is the path, the pairs encoded and sorted, the expiry and the key id, one per line', () => {
    expect(canonicalForm(parts)).toBe(
      [
        '/img/tpl-1.jpg',
        'card.color=%23ff0000&subtitle=50%25%20off%20%28today%21%29%20~%20%C3%BCn%C3%AFcode%2A&title=Launch%20day',
        '1800003600',
        'key-1',
      ].join('\n'),
    );
  });

  it('encodes as RFC 3986 does: unreserved characters as they are, everything else as upper-case %XX of its UTF-8', () => {
    expect(encodeRfc3986("AZaz09-._~ !'()*+&=/?#%é")).toBe('AZaz09-._~%20%21%27%28%29%2A%2B%26%3D%2F%3F%23%25%C3%A9');
  });

  it('sorts by name, then by value for a repeated name, by code unit and not by locale', () => {
    expect(canonicalQuery([['b', '2'], ['a', 'z'], ['B', '1'], ['a', 'y']])).toBe('B=1&a=y&a=z&b=2');
    expect(canonicalQuery([])).toBe('');
  });

  it('does not depend on how the URL spelled a value: decoded pairs are encoded again', () => {
    const decoded = [...new URLSearchParams('title=%7Etilde&name=a%20b')];
    const spelledOtherwise = [...new URLSearchParams('name=a+b&title=~tilde')];
    expect(canonicalQuery(decoded)).toBe(canonicalQuery(spelledOtherwise));
  });

  it('encodes the template id in the path', () => {
    expect(canonicalForm({ ...parts, templateId: 'a b/c', values: [] }).split('\n')[0]).toBe('/img/a%20b%2Fc.jpg');
  });
});

describe('image URL signatures', () => {
  const signature = signImageUrl(SECRET, parts);

  it('are lowercase hex HMAC-SHA256, and match the parts they were made for', () => {
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureMatches(SECRET, parts, signature)).toBe(true);
  });

  it('are the ones the shell recipe of docs/signed-urls.md makes with openssl', async () => {
    const pairs = canonicalQuery(parts.values);
    const { stdout } = await run('sh', [
      '-c',
      `printf '%s\\n%s\\n%s\\n%s' "/img/$TEMPLATE.jpg" "$PAIRS" "$EXPIRES" "$KEY_ID" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1`,
    ], { env: { PATH: process.env.PATH, TEMPLATE: parts.templateId, PAIRS: pairs, EXPIRES: parts.expires, KEY_ID: parts.keyId, SECRET } });
    expect(stdout.trim()).toBe(signature);
  });

  it('fail when any one character of any part changes', () => {
    const changed: SignedImageUrlParts[] = [
      { ...parts, templateId: 'tpl-2' },
      { ...parts, extension: 'png' },
      { ...parts, values: [['title', 'Launch dax'], ...parts.values.slice(1)] },
      { ...parts, values: [['titlf', 'Launch day'], ...parts.values.slice(1)] },
      { ...parts, values: parts.values.slice(1) },
      { ...parts, values: [...parts.values, ['extra', '']] },
      { ...parts, expires: String(NOW + 3601) },
      { ...parts, keyId: 'key-2' },
    ];
    for (const each of changed) expect(signatureMatches(SECRET, each, signature)).toBe(false);
    expect(signatureMatches(`${SECRET}x`, parts, signature)).toBe(false);
    expect(signatureMatches(SECRET, parts, `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`)).toBe(false);
  });

  it('refuse what is not 64 lowercase hex digits without comparing', () => {
    for (const bad of ['', 'zz', signature.toUpperCase(), `${signature}00`, signature.slice(2)]) expect(signatureMatches(SECRET, parts, bad)).toBe(false);
  });

  it('do not depend on the order of the pairs in the URL', () => {
    expect(signatureMatches(SECRET, { ...parts, values: [...parts.values].reverse() }, signature)).toBe(true);
  });
});

describe('verifying a signed GET /img request', () => {
  /** Sealing is the identity here: the sealer's own tests cover it. */
  const sealer: SecretSealer = { seal: (plain) => `sealed:${plain}`, open: (sealed) => sealed.slice('sealed:'.length) };
  const key = (overrides: Partial<UrlSigningKeyView> = {}): UrlSigningKeyView => ({
    id: 'key-1',
    orgId: 'org-a',
    sealedSecret: sealer.seal(SECRET),
    createdAt: new Date(0),
    rotatedAt: null,
    revokedAt: null,
    ...overrides,
  });
  const deps = (found: UrlSigningKeyView | null = key(), at = NOW) => {
    const clock = fakeClock(new Date(at * 1000).toISOString());
    return { signingKeys: { lookup: async (keyId: string) => (found?.id === keyId ? found : null) }, secretSealer: sealer, clock };
  };
  const request: SignedImageRequest = { ...parts, signature: signImageUrl(SECRET, parts) };

  const refusal = async (promise: Promise<unknown>): Promise<string> => {
    const error = await promise.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('forbidden');
    return (error as DomainError).details.join(' ');
  };

  it('renders for the organization whose key signed, with the render scope only, for as long as the URL lives', async () => {
    expect(await verifySignedImageUrl(deps(), request)).toEqual({ caller: { orgId: 'org-a', actor: 'key-1', scopes: ['render'] }, secondsLeft: 3600 });
  });

  it('refuses a URL that expired, and only after its signature checked out', async () => {
    expect(await refusal(verifySignedImageUrl(deps(key(), NOW + 3600), request))).toBe('expires: the URL expired at 2027-01-15T09:00:00.000Z');
  });

  it('refuses an unknown or revoked key', async () => {
    expect(await refusal(verifySignedImageUrl(deps(null), request))).toMatch(/^keyId: /);
    expect(await refusal(verifySignedImageUrl(deps(key({ revokedAt: new Date(NOW * 1000) })), request))).toMatch(/^keyId: /);
  });

  it('refuses a signature made with another secret, as after a rotation', async () => {
    expect(await refusal(verifySignedImageUrl(deps(key({ sealedSecret: sealer.seal(`${SECRET}-rotated`) })), request))).toBe('signature: does not match the URL');
  });

  it('refuses an incomplete URL, and an expiry written otherwise than as plain unix seconds', async () => {
    for (const missing of ['expires', 'keyId', 'signature'] as const) {
      expect(await refusal(verifySignedImageUrl(deps(), { ...request, [missing]: null }))).toMatch(/once each/);
    }
    expect(await refusal(verifySignedImageUrl(deps(), { ...request, expires: `0${request.expires}` }))).toBe('expires: must be unix seconds');
    expect(await refusal(verifySignedImageUrl(deps(), { ...request, expires: '1e10' }))).toBe('expires: must be unix seconds');
  });

  it('never names the signature in its refusal', async () => {
    const tampered = { ...request, values: [['title', 'forged']] as const };
    const reason = await refusal(verifySignedImageUrl(deps(), tampered));
    expect(reason).not.toContain(request.signature ?? '');
  });
});
