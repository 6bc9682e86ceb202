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

  /** Holds the read models back until the test lets them catch up. */
  const heldReadModels = () => {
    let catchUp: (reached: boolean) => void = () => {};
    const waits = vi.spyOn(world.readModels.progress, 'waitFor').mockImplementation(() => new Promise((resolve) => (catchUp = resolve)));
    return { waits, catchUp: () => catchUp(true) };
  };

  /** Whether `step` is still running once it asked for the read models and had time to go on. */
  const stillWaiting = async (step: Promise<unknown>, waits: ReturnType<typeof heldReadModels>['waits']) => {
    let returned = false;
    void step.then(() => (returned = true));
    await vi.waitFor(() => expect(waits).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 20));
    return !returned;
  };

  it('returns once the read models show the completion, which is when the caller waiting here is answered', async () => {
    const { waits, catchUp } = heldReadModels();

    const producing = world.renderSteps.produceNow(requestId);

    expect(await stillWaiting(producing, waits)).toBe(true);
    const completed = (await world.streamOf(requestId)).at(-1);
    expect(completed?.type).toBe('RenderCompleted');
    expect(waits).toHaveBeenCalledWith(completed?.position);
    catchUp();
    expect((await producing).storageKey).toBe((completed?.data as { storageKey: string }).storageKey);
  });

  it('records a failure the same way: the step returns once the read models show it', async () => {
    const { waits, catchUp } = heldReadModels();

    const failing = world.renderSteps.fail(requestId, { status: 'failed', code: 'validation', reason: 'the template threw' });

    expect(await stillWaiting(failing, waits)).toBe(true);
    const failed = (await world.streamOf(requestId)).at(-1);
    expect(failed?.type).toBe('RenderFailed');
    expect(waits).toHaveBeenCalledWith(failed?.position);
    catchUp();
    expect(await failing).toBe(failed?.position);
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
