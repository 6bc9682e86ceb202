import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createTripwire } from '../../infrastructure/rendering/tripwire.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const never = () => new Promise<never>(() => {});

describe('a tripwire', () => {
  it('settles guarded work as the work settles while it is not tripped', async () => {
    const wire = createTripwire();
    await expect(wire.guard(Promise.resolve('done'))).resolves.toBe('done');
    await expect(wire.guard(Promise.reject(new Error('failed')))).rejects.toThrow('failed');
  });

  it('fails work in flight and every later guard with the first error it trips with', async () => {
    const wire = createTripwire();
    const inFlight = wire.guard(never());
    wire.trip(new Error('crashed'));
    wire.trip(new Error('crashed again'));
    await expect(inFlight).rejects.toThrow('crashed');
    await expect(wire.guard(Promise.resolve('late'))).rejects.toThrow(/^crashed$/);
    // Work failing after the trip is nobody's to observe; vitest fails the run on an unhandled rejection.
    const failing = Promise.reject(new Error('after the trip'));
    await expect(wire.guard(failing)).rejects.toThrow(/^crashed$/);
  });

  it('keeps nothing of settled work while it lives, as Promise.race with a pending promise would', async () => {
    const wire = createTripwire();
    let result: { file: Buffer } | undefined = { file: Buffer.alloc(1024) };
    const held = new WeakRef(result);
    await wire.guard(Promise.resolve(result));
    result = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(held.deref()).toBeUndefined();
  });
});
