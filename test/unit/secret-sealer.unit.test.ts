import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAesGcmSecretSealer, parseSealingKeys, SEALED_SECRET } from '../../infrastructure/security/aes-gcm-secret-sealer.js';
import { loadSecretSealer } from '../../infrastructure/security/secrets-encryption-key.js';

const key = (id: string) => ({ id, key: randomBytes(32) });
const secret = `whsec_${randomBytes(32).toString('base64url')}`;

/** The sealed string with one character of its `part` (0 format .. 3 body) replaced. */
const alter = (sealed: string, part: number) => {
  const parts = sealed.split(':');
  const text = parts[part] ?? '';
  parts[part] = `${text.slice(0, 4)}${text[4] === 'A' ? 'B' : 'A'}${text.slice(5)}`;
  return parts.join(':');
};

describe('AES-256-GCM secret sealer', () => {
  const k1 = key('k1');
  const sealer = createAesGcmSecretSealer([k1]);

  it('opens what it sealed, and the sealed string does not contain the secret', () => {
    const sealed = sealer.seal(secret);
    expect(sealed).toMatch(SEALED_SECRET);
    expect(sealed).toMatch(/^v1:k1:/);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealer.open(sealed)).toBe(secret);
  });

  it('seals the same secret differently each time (a fresh nonce)', () => {
    const sealed = new Set(Array.from({ length: 20 }, () => sealer.seal(secret)));
    expect(sealed.size).toBe(20);
    expect(new Set([...sealed].map((text) => text.split(':')[2])).size).toBe(20);
  });

  it('refuses an altered nonce, ciphertext or tag', () => {
    const sealed = sealer.seal(secret);
    expect(() => sealer.open(alter(sealed, 2))).toThrow(/does not open/);
    expect(() => sealer.open(alter(sealed, 3))).toThrow(/does not open/);
    const body = sealed.split(':')[3] ?? '';
    const lastByteFlipped = Buffer.from(body, 'base64url');
    lastByteFlipped[lastByteFlipped.length - 1]! ^= 1;
    expect(() => sealer.open(sealed.replace(body, lastByteFlipped.toString('base64url')))).toThrow(/does not open/);
    expect(() => sealer.open(sealed.slice(0, -4))).toThrow(/does not open|known format/);
  });

  it('authenticates the key id: relabelling a sealed string for another configured key fails', () => {
    const both = createAesGcmSecretSealer([k1, { id: 'k2', key: k1.key }]);
    const sealed = both.seal(secret);
    expect(() => both.open(sealed.replace(/^v1:k1:/, 'v1:k2:'))).toThrow(/does not open/);
  });

  it('refuses a wrong key under the right id, an unknown key id and strings of no known format', () => {
    const sealed = sealer.seal(secret);
    expect(() => createAesGcmSecretSealer([key('k1')]).open(sealed)).toThrow(/does not open/);
    expect(() => createAesGcmSecretSealer([key('k9')]).open(sealed)).toThrow(/key "k1", which is not configured/);
    expect(() => sealer.open(secret)).toThrow(/known format/);
    expect(() => sealer.open(sealed.replace(/^v1:/, 'v2:'))).toThrow(/known format/);
  });

  it('seals with the first key and opens with any: a new key goes first, older secrets stay readable', () => {
    const sealedBefore = sealer.seal(secret);
    const k2 = key('k2');
    const rotated = createAesGcmSecretSealer([k2, k1]);
    const sealedAfter = rotated.seal(secret);
    expect(sealedAfter).toMatch(/^v1:k2:/);
    expect(rotated.open(sealedBefore)).toBe(secret);
    expect(rotated.open(sealedAfter)).toBe(secret);
    expect(() => sealer.open(sealedAfter)).toThrow(/key "k2", which is not configured/);
  });

  it('seals any text, including empty and non-ASCII', () => {
    for (const text of ['', 'é€😀', 'x'.repeat(10_000)]) expect(sealer.open(sealer.seal(text))).toBe(text);
  });

  it('refuses keys of the wrong length, bad ids and an id given twice', () => {
    expect(() => createAesGcmSecretSealer([])).toThrow(/at least one key/);
    expect(() => createAesGcmSecretSealer([{ id: 'short', key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => createAesGcmSecretSealer([{ id: 'has:colon', key: randomBytes(32) }])).toThrow(/key id/);
    expect(() => createAesGcmSecretSealer([k1, k1])).toThrow(/twice/);
  });
});

describe('sealing keys as configured', () => {
  it('reads comma-separated id:base64 keys in order, in either base64 alphabet', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const keys = parseSealingKeys(`new:${a.toString('base64')}, old:${b.toString('base64url')}`, 'SECRETS_ENCRYPTION_KEY');
    expect(keys).toEqual([
      { id: 'new', key: a },
      { id: 'old', key: b },
    ]);
  });

  it('names the source of a malformed value', () => {
    expect(() => parseSealingKeys('no-id-here', 'SECRETS_ENCRYPTION_KEY')).toThrow(/^SECRETS_ENCRYPTION_KEY: each key/);
    expect(() => parseSealingKeys(`k:${randomBytes(16).toString('base64')}`, 'SECRETS_ENCRYPTION_KEY')).toThrow(/SECRETS_ENCRYPTION_KEY/);
  });
});

describe('the secrets encryption key in DATA_DIR', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'secrets-key-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('is generated once, readable by the owner only, and reused: what one start sealed the next opens', async () => {
    const dataDir = path.join(root, 'data');
    const starts = await Promise.all([1, 2, 3].map(() => loadSecretSealer({ configured: undefined, dataDir })));
    const file = path.join(dataDir, 'secrets-encryption.key');
    expect(await readdir(dataDir)).toEqual(['secrets-encryption.key']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const content = await readFile(file, 'utf8');
    expect(content).toMatch(/^local-[0-9a-f]{8}:[\w-]{43}$/);

    const sealed = starts[0]!.seal(secret);
    expect(sealed.startsWith(`v1:${content.split(':')[0]}:`)).toBe(true);
    for (const start of starts) expect(start.open(sealed)).toBe(secret);
    expect((await loadSecretSealer({ configured: undefined, dataDir })).open(sealed)).toBe(secret);
    expect(await readFile(file, 'utf8')).toBe(content);
  });

  it('uses the configured keys instead, and the file content moves into the variable behind a new key', async () => {
    const dataDir = path.join(root, 'moved');
    const generated = await loadSecretSealer({ configured: undefined, dataDir });
    const sealed = generated.seal(secret);
    const fileContent = await readFile(path.join(dataDir, 'secrets-encryption.key'), 'utf8');
    const configured = await loadSecretSealer({ configured: `k2:${randomBytes(32).toString('base64')},${fileContent}`, dataDir: path.join(root, 'unused') });
    expect(configured.open(sealed)).toBe(secret);
    expect(configured.seal(secret)).toMatch(/^v1:k2:/);
    await expect(readdir(path.join(root, 'unused'))).rejects.toThrow(/ENOENT/);
  });

  it('stops on a damaged key file rather than replacing it', async () => {
    const dataDir = path.join(root, 'damaged');
    await loadSecretSealer({ configured: undefined, dataDir });
    await writeFile(path.join(dataDir, 'secrets-encryption.key'), '');
    await expect(loadSecretSealer({ configured: undefined, dataDir })).rejects.toThrow(/secrets-encryption\.key: each key/);
    expect(await readFile(path.join(dataDir, 'secrets-encryption.key'), 'utf8')).toBe('');
  });
});
