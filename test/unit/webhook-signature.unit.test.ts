import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook, webhookHeaders } from '../../application/webhooks/deliver-webhook/webhook-signature.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const previous = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ requestId: 'r1', href: 'https://example.com/r1.png', request: { template: 't1' } });
const timestamp = Math.floor(Date.now() / 1000);

describe('webhookHeaders (Standard Webhooks)', () => {
  it('carries the delivery id, the timestamp and one v1 signature per secret, current first, space-separated', () => {
    const headers = webhookHeaders({ deliveryId: 'msg_1', timestamp, body, secrets: [secret, previous] });
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe(String(timestamp));
    expect(headers['webhook-signature']).toBe(`${signWebhook(secret, 'msg_1', timestamp, body)} ${signWebhook(previous, 'msg_1', timestamp, body)}`);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('is what the standardwebhooks library signs and verifies', () => {
    const headers = webhookHeaders({ deliveryId: 'msg_1', timestamp, body, secrets: [secret] });
    const library = new Webhook(secret);
    expect(headers['webhook-signature']).toBe(library.sign('msg_1', new Date(timestamp * 1000), body));
    expect(library.verify(body, headers)).toEqual(JSON.parse(body));
    // During a rotation either secret verifies.
    const both = webhookHeaders({ deliveryId: 'msg_1', timestamp, body, secrets: [secret, previous] });
    expect(new Webhook(previous).verify(body, both)).toEqual(JSON.parse(body));
  });

  it.each([
    ['another secret', () => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, webhookHeaders({ deliveryId: 'msg_1', timestamp, body, secrets: [secret] }))],
    ['a changed body', () => new Webhook(secret).verify(body.replace('r1', 'r2'), webhookHeaders({ deliveryId: 'msg_1', timestamp, body, secrets: [secret] }))],
    ['another delivery id', () => new Webhook(secret).verify(body, { ...webhookHeaders({ deliveryId: 'msg_1', timestamp, body, secrets: [secret] }), 'webhook-id': 'msg_2' })],
    ['a stale timestamp', () => new Webhook(secret).verify(body, webhookHeaders({ deliveryId: 'msg_1', timestamp: timestamp - 600, body, secrets: [secret] }))],
  ])('does not verify with %s', (_case, verify) => expect(verify).toThrow());
});
