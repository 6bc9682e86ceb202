import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { renderWorkflow } from '../../workflows/render.workflow.js';
import type { DeliveryRef } from '../../workflows/webhook.activities.js';
import { webhookWorkflow } from '../../workflows/webhook.workflow.js';
import { COMPLETED_AT, QUICK_WEBHOOK_RETRIES, STORED_FILE, stubActivities, useWorkflowEnvironment } from '../support/workflow-env.js';

const environment = useWorkflowEnvironment();

/** A receiver that answers 500 to the first `failures` attempts, recording the attempt numbers Temporal gives them. */
const receiver = (failures: number) => {
  const attempts: { attempt: number; deliveryId: string; at: number }[] = [];
  const deliverWebhook = async ({ deliveryId }: DeliveryRef) => {
    const { attempt } = Context.current().info;
    attempts.push({ attempt, deliveryId, at: Date.now() });
    // What the delivery throws for a failed attempt: a plain error, retryable.
    if (attempt <= failures) throw new Error(`webhook attempt ${attempt} to https://hooks.example/render failed: the receiver answered 500`);
    return { status: 'delivered' as const, attempts: attempt };
  };
  return { attempts, deliverWebhook };
};

describe('webhookWorkflow', () => {
  it('delivers once and abandons nothing when the receiver answers', async () => {
    const requestId = randomUUID();
    const stubs = stubActivities();

    await environment.execute(webhookWorkflow, requestId, { requestId }, stubs.activities);

    expect(stubs.names()).toEqual(['webhookRetryPolicy', 'deliverWebhook']);
  });

  it('retries a failing receiver with the same delivery id, numbering attempts from Temporal’s retry count', async () => {
    const requestId = randomUUID();
    const { attempts, deliverWebhook } = receiver(2);
    const stubs = stubActivities({ deliverWebhook });

    await environment.execute(webhookWorkflow, requestId, { requestId }, stubs.activities);

    expect(attempts.map(({ attempt }) => attempt)).toEqual([1, 2, 3]);
    expect(new Set(attempts.map(({ deliveryId }) => deliveryId)).size).toBe(1);
    expect(stubs.names()).not.toContain('abandonWebhook');
  });

  it('retries until the retry window closes, then records the delivery as abandoned and ends normally', async () => {
    const requestId = randomUUID();
    const retryForMs = 1_500;
    const { attempts, deliverWebhook } = receiver(Number.POSITIVE_INFINITY);
    let abandonedAt = 0;
    const stubs = stubActivities({
      deliverWebhook,
      webhookRetryPolicy: async () => ({ ...QUICK_WEBHOOK_RETRIES, retryForMs }),
      abandonWebhook: async () => {
        abandonedAt = Date.now();
      },
    });

    await expect(environment.execute(webhookWorkflow, requestId, { requestId }, stubs.activities)).resolves.toBeUndefined();

    // Backing off 50, 100, 200, 200 ... ms for the whole window, however many attempts that takes.
    expect(attempts.length).toBeGreaterThan(3);
    // The window opens as the first attempt is scheduled; Temporal gives up as soon as the next
    // backoff would end past it, so no more than one interval of it is left unused. An attempt
    // scheduled inside the window may start a moment after it closes (the worker polls for it),
    // never a whole interval later.
    // The first attempt is seen when it starts, a moment after the window opened: that moment is
    // allowed for below.
    const first = attempts[0]!.at;
    const startedAfterScheduledMs = 50;
    expect(attempts.at(-1)!.at - first).toBeLessThan(retryForMs + QUICK_WEBHOOK_RETRIES.maximumIntervalMs);
    expect(abandonedAt - first).toBeGreaterThan(retryForMs - QUICK_WEBHOOK_RETRIES.maximumIntervalMs - startedAfterScheduledMs);
    expect(stubs.names().at(-1)).toBe('abandonWebhook');
    // Abandoned once, as the delivery every attempt made.
    const abandoned = stubs.calls.filter((call) => call.name === 'abandonWebhook');
    expect(abandoned).toEqual([{ name: 'abandonWebhook', input: { requestId, deliveryId: attempts[0]?.deliveryId, reason: expect.any(String) } }]);
    // The last attempt's failure, or the window's own timeout when it closed during an attempt.
    const lastFailure = `webhook attempt ${attempts.length} to https://hooks.example/render failed: the receiver answered 500`;
    expect([lastFailure, 'activity ScheduleToClose timeout']).toContain((abandoned[0]?.input as { reason: string }).reason);
    expect(new Set(attempts.map(({ deliveryId }) => deliveryId)).size).toBe(1);
  });

  it('abandons after the configured number of attempts, with the last failure as the reason', async () => {
    const requestId = randomUUID();
    const { attempts, deliverWebhook } = receiver(Number.POSITIVE_INFINITY);
    const stubs = stubActivities({ deliverWebhook, webhookRetryPolicy: async () => ({ ...QUICK_WEBHOOK_RETRIES, maximumAttempts: 3 }) });

    await environment.execute(webhookWorkflow, requestId, { requestId }, stubs.activities);

    expect(attempts.map(({ attempt }) => attempt)).toEqual([1, 2, 3]);
    expect(stubs.calls.at(-1)).toEqual({
      name: 'abandonWebhook',
      input: { requestId, deliveryId: attempts[0]?.deliveryId, reason: 'webhook attempt 3 to https://hooks.example/render failed: the receiver answered 500' },
    });
  });
});

describe('a render whose webhook is abandoned', () => {
  it('stays done: the outcome stands whatever the receiver does', async () => {
    const requestId = randomUUID();
    const { deliverWebhook } = receiver(Number.POSITIVE_INFINITY);
    const stubs = stubActivities({ deliverWebhook, webhookRetryPolicy: async () => ({ ...QUICK_WEBHOOK_RETRIES, maximumAttempts: 2 }) });

    await expect(environment.execute(renderWorkflow, requestId, { requestId, webhook: true }, stubs.activities)).resolves.toEqual({
      status: 'done',
      file: STORED_FILE,
      position: COMPLETED_AT,
    });
    expect(stubs.names()).toEqual([
      'chargeCredits',
      'produceRender',
      'recordCompletion',
      'webhookRetryPolicy',
      'deliverWebhook',
      'deliverWebhook',
      'abandonWebhook',
    ]);
  });
});
