import { describe, expect, it } from 'vitest';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import type { FontUploaded, UploadStored } from '../../domain/accounts/asset-events.js';
import { familyFromFont, familyProblem } from '../../application/fonts/upload-font/font-family.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(accountDecider);
const now = '2026-01-02T03:04:05.000Z';
const plan = { name: 'free', status: 'active', credits: 1000, renewalAmount: 1000, nextRenewalAt: '2026-02-02', uploadsBytes: 1000 };
const opened: AccountEvent = { type: 'AccountOpened', data: { orgId: 'org-a', name: 'Acme', plan, openedAt: now } };

const font = { fontId: 'f1', family: 'Brand', originalName: 'Brand Sans', weight: 700, style: 'normal' as const, format: 'woff2' as const, subsets: ['latin'], category: 'sans-serif', bytes: 300, storageKey: 'org-a/fonts/f1.woff2' };
const fontUploaded: FontUploaded = { type: 'FontUploaded', data: { ...font, uploadedAt: now } };
const uploadFont = (data: Partial<typeof font> & { storedResultBytes?: number } = {}) => ({
  type: 'UploadFont' as const,
  data: { ...font, storedResultBytes: 0, orgId: 'org-a', now, ...data },
});

const image = { uploadId: 'u1', contentType: 'image/png' as const, bytes: 400, width: 10, height: 10, storageKey: 'org-a/uploads/u1.png' };
const uploadStored: UploadStored = { type: 'UploadStored', data: { ...image, storedAt: now } };
const storeUpload = (data: Partial<typeof image> & { storedResultBytes?: number } = {}) => ({
  type: 'StoreUpload' as const,
  data: { ...image, storedResultBytes: 0, orgId: 'org-a', now, ...data },
});

describe('UploadFont and StoreUpload', () => {
  it('records a font', () => spec.given([opened]).when(uploadFont()).then([fontUploaded]));
  it('records an image', () => spec.given([opened]).when(storeUpload()).then([uploadStored]));
  it('is idempotent for a retried upload', () => spec.given([opened, fontUploaded]).when(uploadFont()).thenNothingHappens());
  it('fills the quota exactly', () => spec.given([opened, fontUploaded]).when(storeUpload({ bytes: 400, storedResultBytes: 300 })).then([{ ...uploadStored }]));
  it('counts rendered files and earlier uploads against the quota', () =>
    spec.given([opened, fontUploaded]).when(storeUpload({ bytes: 401, storedResultBytes: 300 })).thenThrows('payment_required', /Upload storage is full/));
  it('names the quota', () => {
    expect(() => accountDecider.decide(uploadFont({ fontId: 'f2', bytes: 1001 }), [opened].reduce(accountDecider.evolve, accountDecider.initialState()))).toThrow(
      expect.objectContaining({ details: [expect.stringContaining('uploads.total')] }),
    );
  });
  it('needs an open account', () => spec.given([]).when(uploadFont()).thenThrows('not_found'));
});

describe('DeleteFont and DeleteUpload', () => {
  it('gives a font its bytes back', () =>
    spec.given([opened, fontUploaded]).when({ type: 'DeleteFont', data: { orgId: 'org-a', fontId: 'f1', now } }).then([{ type: 'FontDeleted', data: { fontId: 'f1', bytes: 300, deletedAt: now } }]));
  it('gives an image its bytes back', () =>
    spec.given([opened, uploadStored]).when({ type: 'DeleteUpload', data: { orgId: 'org-a', uploadId: 'u1', now } }).then([{ type: 'UploadDeleted', data: { uploadId: 'u1', bytes: 400, deletedAt: now } }]));
  it('does not delete twice', () =>
    spec
      .given([opened, fontUploaded, { type: 'FontDeleted', data: { fontId: 'f1', bytes: 300, deletedAt: now } }])
      .when({ type: 'DeleteFont', data: { orgId: 'org-a', fontId: 'f1', now } })
      .thenThrows('not_found'));
  it('does not take an image for a font', () => spec.given([opened, uploadStored]).when({ type: 'DeleteFont', data: { orgId: 'org-a', fontId: 'u1', now } }).thenThrows('not_found'));
  it('frees the room a deletion gives back', () =>
    spec
      .given([opened, fontUploaded, uploadStored, { type: 'FontDeleted', data: { fontId: 'f1', bytes: 300, deletedAt: now } }])
      .when(uploadFont({ fontId: 'f2', bytes: 600 }))
      .then([{ type: 'FontUploaded', data: { ...font, fontId: 'f2', bytes: 600, uploadedAt: now } }]));
});

describe('font family names', () => {
  it('accepts names of letters, digits and common punctuation in any script', () => {
    for (const name of ['Brand Sans', 'Noto Sans CJK JP', "Bob's Font (Bold)", '源ノ角ゴシック', 'A&B+C_D.E,F-G']) expect(familyProblem(name)).toBeNull();
  });
  it('refuses what could leave a CSS string or a style element', () => {
    for (const name of ['x"}', 'a</style>', 'a\\b', 'a;b', ' lead', '', 'x'.repeat(101)]) expect(familyProblem(name)).not.toBeNull();
  });
  it('cleans a font\'s own odd name into one that can be used', () => {
    expect(familyFromFont('  "Weird" <Font>; ')).toBe('Weird Font');
    expect(familyProblem(familyFromFont('  "Weird" <Font>; '))).toBeNull();
  });
});
