import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStream } from '../../domain/accounts/account-events.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { templateStream, type TemplateCreated } from '../../domain/templates/template-events.js';
import { apiSpec } from '../support/api-spec.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';
import { startInMemoryApp, type InMemoryApp } from '../support/in-memory-app.js';
import { templateCreated as createdTemplate } from '../support/template-events.js';

/**
 * Use cases as Given (streams) / When (one request) / Then (answer and appended events), through the
 * service's own express app over the in-memory world (in-memory-app.ts).
 */
let app: InMemoryApp;
let orgId: string;
const now = () => new Date().toISOString();

beforeAll(async () => {
  app = await startInMemoryApp();
  orgId = (await app.call('GET', '/api/v1/usage')).body.identifier as string;
});
afterAll(async () => app?.close());

const templateCreated = (templateId: string, owner: string): TemplateCreated =>
  createdTemplate({ templateId, orgId: owner, width: 400, height: 200, createdBy: 'given', createdAt: now() });

describe('results', () => {
  it('given a finished render, DELETE answers 200 and records ResultDeleted', async () => {
    const requestId = randomUUID();
    await apiSpec(app)
      .given({ stream: renderStream(requestId), orgId, events: [renderRequested({ requestId, orgId, requestedAt: now() }), renderCompleted({ requestId, completedAt: now() })] })
      .when({ method: 'DELETE', path: `/api/v2/results/${requestId}` })
      .then({ status: 200, appended: { [renderStream(requestId)]: [{ type: 'ResultDeleted', data: { requestId } }] } });
  });

  it('given a pending render, DELETE answers 409 and records nothing', async () => {
    const requestId = randomUUID();
    await apiSpec(app)
      .given({ stream: renderStream(requestId), orgId, events: [renderRequested({ requestId, orgId, requestedAt: now() })] })
      .when({ method: 'DELETE', path: `/api/v2/results/${requestId}` })
      .then({ status: 409, body: { status: 409 } });
  });

  it("given another organization's render, DELETE answers 404 and records nothing", async () => {
    const requestId = randomUUID();
    const other = `org-${randomUUID()}`;
    await apiSpec(app)
      .given({ stream: renderStream(requestId), orgId: other, events: [renderRequested({ requestId, orgId: other, requestedAt: now() }), renderCompleted({ requestId, completedAt: now() })] })
      .when({ method: 'DELETE', path: `/api/v2/results/${requestId}` })
      .then({ status: 404, body: { status: 404 } });
  });
});

describe('templates', () => {
  it('given a template, PATCH answers the new name and records only what changed', async () => {
    const templateId = randomUUID();
    await apiSpec(app)
      .given({ stream: templateStream(templateId), orgId, events: [templateCreated(templateId, orgId)] })
      .when({ method: 'PATCH', path: `/api/v2/my-templates/${templateId}`, body: { name: 'Renamed', width: 400 } })
      .then({
        status: 200,
        body: { identifier: templateId, name: 'Renamed', width: 400 },
        appended: { [templateStream(templateId)]: [{ type: 'TemplateUpdated', data: { templateId, changes: { name: 'Renamed' } } }] },
      });
  });

  it('given a template, a PATCH over the pixel budget answers 400 and records nothing', async () => {
    const templateId = randomUUID();
    await apiSpec(app)
      .given({ stream: templateStream(templateId), orgId, events: [templateCreated(templateId, orgId)] })
      .when({ method: 'PATCH', path: `/api/v2/my-templates/${templateId}`, body: { width: 5000, height: 5000, scaleFactor: 4 } })
      .then({ status: 400, body: { status: 400, errors: expect.arrayContaining([expect.stringMatching(/at most 50000000/)]) } });
  });
});

describe('templates, more', () => {
  it('given a template, DELETE answers 200 and records TemplateDeleted', async () => {
    const templateId = randomUUID();
    await apiSpec(app)
      .given({ stream: templateStream(templateId), orgId, events: [templateCreated(templateId, orgId)] })
      .when({ method: 'DELETE', path: `/api/v2/my-templates/${templateId}` })
      .then({ status: 200, appended: { [templateStream(templateId)]: [{ type: 'TemplateDeleted', data: { templateId } }] } });
  });

  it("given another organization's template, GET and DELETE answer 404 and record nothing", async () => {
    const templateId = randomUUID();
    const other = `org-${randomUUID()}`;
    const given = { stream: templateStream(templateId), orgId: other, events: [templateCreated(templateId, other)] };
    await apiSpec(app).given(given).when({ method: 'GET', path: `/api/v2/my-templates/${templateId}` }).then({ status: 404, body: { status: 404 } });
    await apiSpec(app).given().when({ method: 'DELETE', path: `/api/v2/my-templates/${templateId}` }).then({ status: 404, body: { status: 404 } });
  });

  it('given a template, publishing its version 1 records TemplatePublished, and a version it does not have is a 400', async () => {
    const templateId = randomUUID();
    await apiSpec(app)
      .given({ stream: templateStream(templateId), orgId, events: [templateCreated(templateId, orgId)] })
      .when({ method: 'POST', path: `/api/v2/my-templates/${templateId}/publish`, body: { version: 1 } })
      .then({ status: 200, appended: { [templateStream(templateId)]: [{ type: 'TemplatePublished', data: { templateId, version: 1 } }] } });
    await apiSpec(app)
      .given()
      .when({ method: 'POST', path: `/api/v2/my-templates/${templateId}/publish`, body: { version: 7 } })
      .then({ status: 400, body: { status: 400, errors: [expect.stringMatching(/has no version 7/)] } });
  });
});

describe('account settings', () => {
  it('PATCH apiKeyInQuery records AccountSettingsChanged, and the same value again records nothing', async () => {
    await apiSpec(app)
      .given()
      .when({ method: 'PATCH', path: '/api/v2/account/settings', body: { apiKeyInQuery: false } })
      .then({ status: 200, body: { apiKeyInQuery: false }, appended: { [accountStream(orgId)]: [{ type: 'AccountSettingsChanged', data: { apiKeyInQuery: false } }] } });
    await apiSpec(app).given().when({ method: 'PATCH', path: '/api/v2/account/settings', body: { apiKeyInQuery: false } }).then({ status: 200, body: { apiKeyInQuery: false } });
  });

  it('a PATCH with an unknown field answers 400 and records nothing', async () => {
    await apiSpec(app)
      .given()
      .when({ method: 'PATCH', path: '/api/v2/account/settings', body: { apiKeyInQuery: true, colour: 'red' } })
      .then({ status: 400, body: { status: 400 } });
  });
});

describe('renders', () => {
  it('given an organization whose credits are used up, a render answers 402 and records nothing', async () => {
    const templateId = randomUUID();
    const key = await app.newOrganizationKey();
    const poor = (await app.call('GET', '/api/v1/usage', { key })).body.identifier as string;
    await apiSpec(app)
      .given(
        { stream: templateStream(templateId), orgId: poor, events: [templateCreated(templateId, poor)] },
        { stream: accountStream(poor), orgId: poor, events: [{ type: 'CreditsCharged', data: { requestId: randomUUID(), amount: 1000, chargedAt: now() } }] },
      )
      .when({ method: 'POST', path: '/api/v2/render', key, body: { template: templateId } })
      .then({ status: 402, body: { status: 402, errors: [expect.stringMatching(/0 left/)] } });
  });

  it('given an html template, a render asking for a video answers 400 and records nothing', async () => {
    const templateId = randomUUID();
    await apiSpec(app)
      .given({ stream: templateStream(templateId), orgId, events: [templateCreated(templateId, orgId)] })
      .when({ method: 'POST', path: '/api/v2/render', body: { template: templateId, outputFormat: 'mp4' } })
      .then({ status: 400, body: { errors: [expect.stringMatching(/canvas-html/)] } });
  });
});
