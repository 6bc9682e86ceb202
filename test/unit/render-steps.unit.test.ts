import { beforeEach, describe, expect, it, vi } from 'vitest';
import { failRender } from '../../application/renders/fail-render/fail-render.js';
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

describe('render steps: producing for a client that waits (produceNow), then recording', () => {
  it('stores the file and records nothing: the recording step after it records the completion once', async () => {
    const file = await world.renderSteps.produceNow(requestId);
    expect(await world.storage.get(file.storageKey)).not.toBeNull();
    expect(await world.typesOf(requestId)).toEqual(['RenderRequested']);

    const position = await world.renderSteps.complete(requestId, file);
    const completed = (await world.streamOf(requestId)).at(-1);
    expect(completed).toMatchObject({ type: 'RenderCompleted', position, data: { storageKey: file.storageKey, bytes: file.bytes, cached: false } });
    // A retried recording step records nothing twice and answers the same position.
    expect(await world.renderSteps.complete(requestId, file)).toBe(position);
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

  it('returns from recording once the read models show the completion, which is when the workflow answers the caller', async () => {
    const file = await world.renderSteps.produceNow(requestId);
    const { waits, catchUp } = heldReadModels();

    const recording = world.renderSteps.complete(requestId, file);

    expect(await stillWaiting(recording, waits)).toBe(true);
    const completed = (await world.streamOf(requestId)).at(-1);
    expect(completed?.type).toBe('RenderCompleted');
    expect(waits).toHaveBeenCalledWith(completed?.position);
    catchUp();
    expect(await recording).toBe(completed?.position);
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
});

describe('render steps: recording a completion the request already has an outcome for', () => {
  const creditTypes = async () => (await world.log()).filter((event) => event.type.startsWith('Credits')).map((event) => event.type);

  it('refunds the charge and drops the file when another process failed the request meanwhile (the pending repair)', async () => {
    const file = await world.renderSteps.produceNow(requestId);
    const accepted = (await world.streamOf(requestId))[0]?.data as { orgId: string; requestId: string };
    await failRender(world.commandDeps, accepted, 'The render could not be started; nothing was charged');

    await world.renderSteps.complete(requestId, file);

    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderFailed']);
    expect(await creditTypes()).toEqual(['CreditsCharged', 'CreditsRefunded']);
    expect(await world.storage.get(file.storageKey)).toBeNull();
  });

  it('keeps the charge and the file when the completion was already recorded (a retried step)', async () => {
    const file = await world.renderSteps.produceNow(requestId);
    await world.renderSteps.complete(requestId, file);
    await world.renderSteps.complete(requestId, file);

    expect(await creditTypes()).toEqual(['CreditsCharged']);
    expect(await world.storage.get(file.storageKey)).not.toBeNull();
  });
});
