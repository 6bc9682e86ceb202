import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createWorld, ORG, type World } from '../support/application-world.js';

/**
 * The render steps a synchronous render's workflow runs, on the in-memory event store: a request
 * accepted for a webhook (answered at once), whose steps the test then runs as the workflow would.
 */

let world: World;
let requestId: string;

beforeEach(async () => {
  world = createWorld();
  await world.given.account(ORG, { credits: 10 });
  // Its workflow never runs: the test is the workflow.
  requestId = await world.given.acceptedRender(ORG);
  await world.renderSteps.charge(requestId);
});

describe('render steps: producing for a client that waits (produceNow)', () => {
  it('records the completion as soon as the file is stored, and the recording step after it finds it recorded without reading', async () => {
    const file = await world.renderSteps.produceNow(requestId);

    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderCompleted']);
    const completed = (await world.streamOf(requestId)).at(-1);
    expect(completed?.data).toMatchObject({ storageKey: file.storageKey, bytes: file.bytes, cached: false });

    const reads = vi.spyOn(world.eventStore, 'readStream');
    const appends = vi.spyOn(world.eventStore, 'append');
    expect(await world.renderSteps.complete(requestId, file)).toBe(completed?.position);
    expect(reads).not.toHaveBeenCalled();
    expect(appends).not.toHaveBeenCalled();
    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderCompleted']);
  });

  it('returns once the read models show the completion, which is when the caller waiting here is answered', async () => {
    let caughtUp: (reached: boolean) => void = () => {};
    const waits = vi.spyOn(world.readModels.progress, 'waitFor').mockImplementation(() => new Promise((resolve) => (caughtUp = resolve)));
    let returned = false;

    const producing = world.renderSteps.produceNow(requestId).then((file) => {
      returned = true;
      return file;
    });
    await vi.waitFor(() => expect(waits).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 20));

    const completed = (await world.streamOf(requestId)).at(-1);
    expect(completed?.type).toBe('RenderCompleted');
    expect(waits).toHaveBeenCalledWith(completed?.position);
    expect(returned).toBe(false);
    caughtUp(true);
    expect((await producing).storageKey).toBe((completed?.data as { storageKey: string }).storageKey);
  });

  it('still hands over the stored file when recording early fails, and the recording step records it', async () => {
    const append = world.eventStore.append.bind(world.eventStore);
    vi.spyOn(world.eventStore, 'append').mockImplementationOnce(() => Promise.reject(new Error('connection reset')));

    const file = await world.renderSteps.produceNow(requestId);
    expect(await world.storage.get(file.storageKey)).not.toBeNull();
    expect(await world.typesOf(requestId)).toEqual(['RenderRequested']);

    vi.mocked(world.eventStore.append).mockImplementation(append);
    const position = await world.renderSteps.complete(requestId, file);
    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderCompleted']);
    expect((await world.streamOf(requestId)).at(-1)?.position).toBe(position);
  });
});
