import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';

/*
 * The synchronous render's protocol in its two shapes, with the render taken out (bench-protocol.ts):
 * each workflow runs charge, produce and record as local activities, as syncRenderWorkflow does.
 */

export interface ProtocolActivities {
  charge(requestId: string): Promise<void>;
  produce(requestId: string): Promise<string>;
  /** Records the outcome; in the early-return shape it also tells a caller waiting in the process. */
  record(requestId: string, file: string, tellLocally: boolean): Promise<void>;
}

const steps = proxyLocalActivities<ProtocolActivities>({ startToCloseTimeout: '1m' });

const run = async (requestId: string, tellLocally: boolean) => {
  await steps.charge(requestId);
  const file = await steps.produce(requestId);
  await steps.record(requestId, file, tellLocally);
  return file;
};

/** Started eagerly; the caller hears from the record step, in its own process, or polls the result. */
export async function eagerStartWorkflow(requestId: string, tellLocally: boolean): Promise<string> {
  return run(requestId, tellLocally);
}

export const outcomeUpdate = defineUpdate<string>('outcome');

/** Temporal's early return: the caller's update is answered as soon as the file is recorded, before the workflow's tail. */
export async function updateWithStartWorkflow(requestId: string): Promise<string> {
  let file: string | undefined;
  setHandler(outcomeUpdate, async () => {
    await condition(() => file !== undefined);
    return file!;
  });
  file = await run(requestId, false);
  return file;
}
