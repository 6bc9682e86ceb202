import { beforeEach, describe, expect, it, vi } from 'vitest';
import { loadRenderStream } from '../../application/renders/load-render.js';
import { completeRender } from '../../application/renders/complete-render/complete-render.js';
import type { StoredFile } from '../../domain/renders/render-events.js';
import { createWorld, ORG, type World } from '../support/application-world.js';

/**
 * A command decided against a stream as its caller already knows it (`known`): appended at that
 * revision without reading, and read afresh only when the stream moved on or nothing was decided.
 */

let world: World;
let requestId: string;
const file = (bytes: number): StoredFile => ({ storageKey: `${ORG}/r/out.png`, fileName: 'out.png', contentType: 'image/png', bytes, width: 1, height: 1 });

beforeEach(async () => {
  world = createWorld();
  await world.given.account(ORG, { credits: 10 });
  requestId = await world.given.acceptedRender(ORG);
});

describe('a command on a stream its caller knows', () => {
  it('is appended at the known revision without reading the stream', async () => {
    const known = await loadRenderStream(world.eventStore, requestId);
    const reads = vi.spyOn(world.eventStore, 'readStream');

    const { recorded, position } = await completeRender(world.commandDeps, known.state.request, file(10), known);

    expect(reads).not.toHaveBeenCalled();
    expect(recorded).toBe(true);
    expect((await world.streamOf(requestId)).at(-1)).toMatchObject({ type: 'RenderCompleted', position, data: { bytes: 10 } });
  });

  it('reads the stream afresh when it moved on since: an outcome recorded meanwhile stands, nothing is appended twice', async () => {
    const known = await loadRenderStream(world.eventStore, requestId);
    // Another worker recorded the outcome after this one read the stream.
    const first = await completeRender(world.commandDeps, known.state.request, file(10));

    const late = await completeRender(world.commandDeps, known.state.request, file(99), known);

    expect(late).toEqual({ recorded: false, position: first.position });
    expect(await world.typesOf(requestId)).toEqual(['RenderRequested', 'RenderCompleted']);
    expect((await world.streamOf(requestId)).at(-1)?.data).toMatchObject({ bytes: 10 });
  });

  it('reads the stream for its position when the known state decides nothing', async () => {
    await completeRender(world.commandDeps, { orgId: ORG, requestId }, file(10));
    const known = await loadRenderStream(world.eventStore, requestId);
    const reads = vi.spyOn(world.eventStore, 'readStream');

    const again = await completeRender(world.commandDeps, known.state.request, file(10), known);

    expect(again).toEqual({ recorded: false, position: (await world.streamOf(requestId)).at(-1)?.position });
    expect(reads).toHaveBeenCalled();
  });
});
