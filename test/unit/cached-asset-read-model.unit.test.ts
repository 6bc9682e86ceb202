import { describe, expect, it } from 'vitest';
import type { AssetReadModel, FontView } from '../../application/ports/read-models.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import type { CommitListener } from '../../infrastructure/projections/projection-set.js';
import { cachedAssetReadModel } from '../../infrastructure/read-models/cached-read-models.js';

const font = (orgId: string, family: string) => ({ id: `${orgId}-${family}`, orgId, family }) as FontView;

const event = (type: string, streamName: string) => ({ type, streamName, data: {}, revision: 0, position: 1 }) as unknown as RecordedEvent;

/** A read model answering from `rows`, counting reads; a feed the test commits batches of the assets projection to. */
const setup = () => {
  const rows = new Map<string, FontView[]>();
  let reads = 0;
  const inner = {
    listFonts: async (orgId: string) => {
      reads++;
      return rows.get(orgId) ?? [];
    },
  } as AssetReadModel;
  const listeners: CommitListener[] = [];
  const assets = cachedAssetReadModel(inner, { onCommitted: (projection, listener) => projection === 'assets' && listeners.push(listener) });
  const commit = (...events: RecordedEvent[]) => listeners.forEach((listener) => listener(events, null));
  return { rows, assets, commit, reads: () => reads };
};

describe('cached font lists', () => {
  it("reads an organization's fonts once, an empty list too, and never answers them for another", async () => {
    const { rows, assets, reads } = setup();
    rows.set('org-a', [font('org-a', 'Inter')]);
    expect(await assets.listFonts('org-a')).toEqual([font('org-a', 'Inter')]);
    expect(await assets.listFonts('org-a')).toEqual([font('org-a', 'Inter')]);
    expect(await assets.listFonts('org-b')).toEqual([]);
    expect(await assets.listFonts('org-b')).toEqual([]);
    expect(reads()).toBe(2);
  });

  it("reads an organization's fonts again once a font of its own is uploaded or deleted, and only then", async () => {
    const { rows, assets, commit, reads } = setup();
    rows.set('org-a', []);
    rows.set('org-b', [font('org-b', 'Lato')]);
    await assets.listFonts('org-a');
    await assets.listFonts('org-b');

    // An image upload, and another stream's events, change no font list.
    commit(event('UploadStored', 'account-org-a'), event('RenderCompleted', 'render-1'));
    await assets.listFonts('org-a');
    expect(reads()).toBe(2);

    rows.set('org-a', [font('org-a', 'Inter')]);
    commit(event('FontUploaded', 'account-org-a'));
    expect(await assets.listFonts('org-a')).toEqual([font('org-a', 'Inter')]);
    expect(reads()).toBe(3);

    rows.set('org-a', []);
    commit(event('FontDeleted', 'account-org-a'));
    expect(await assets.listFonts('org-a')).toEqual([]);
    // The other organization's list stayed cached through both.
    expect(await assets.listFonts('org-b')).toEqual([font('org-b', 'Lato')]);
    expect(reads()).toBe(4);
  });
});
