import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningSecret } from '../../infrastructure/storage/signing-secret.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'signing-secret-')), 'data');
});
afterAll(async () => {
  await rm(path.dirname(dataDir), { recursive: true, force: true });
});

describe('URL signing secret', () => {
  it('uses the configured secret as is', async () => {
    expect(await loadSigningSecret({ configured: 'configured-secret-value', dataDir })).toBe('configured-secret-value');
  });

  it('generates one secret, readable by the owner only, and keeps it across starts', async () => {
    const starts = await Promise.all([1, 2, 3].map(() => loadSigningSecret({ configured: undefined, dataDir })));
    expect(starts[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(starts).size).toBe(1);
    expect(await loadSigningSecret({ configured: undefined, dataDir })).toBe(starts[0]);
    expect((await stat(path.join(dataDir, 'url-signing.key'))).mode & 0o777).toBe(0o600);
    expect(await readdir(dataDir)).toEqual(['url-signing.key']);
  });
});
