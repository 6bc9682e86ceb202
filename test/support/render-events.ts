import type { RenderCompleted, RenderRequested, RenderSpec } from '../../domain/renders/render-events.js';

/** Render events as the render use case and workflow write them, for seeding results without rendering. */

export const renderSpec = (overrides: Partial<RenderSpec> = {}): RenderSpec => ({
  templateId: 'tpl-1',
  templateRevision: 1,
  templateName: 'Card',
  editor: 'html-editor',
  format: 'png',
  width: 1200,
  height: 630,
  crop: null,
  quality: 80,
  scaleFactor: 1,
  data: { title: 'Hello' },
  waitTime: 0,
  fileName: 'card.png',
  expires: null,
  duration: null,
  fps: null,
  ...overrides,
});

export const renderRequested = (
  data: Pick<RenderRequested['data'], 'requestId' | 'orgId' | 'requestedAt'> & Partial<Omit<RenderRequested['data'], 'spec' | 'dataFrom'>> & { dataFrom?: string | null } & { spec?: Partial<RenderSpec> },
): RenderRequested => {
  const spec = renderSpec(data.spec);
  return {
    type: 'RenderRequested',
    data: {
      request: { template: spec.templateId, data: spec.data },
      cacheKey: null,
      credits: 1,
      batchName: null,
      metadata: null,
      webhookUrl: null,
      dataFrom: null,
      ...data,
      spec,
    },
  };
};

export const renderCompleted = (
  data: Pick<RenderCompleted['data'], 'requestId' | 'completedAt'> & Partial<RenderCompleted['data']>,
): RenderCompleted => ({
  type: 'RenderCompleted',
  data: {
    storageKey: `org/${data.requestId}/card.png`,
    fileName: 'card.png',
    contentType: 'image/png',
    bytes: 1000,
    width: 1200,
    height: 630,
    cached: false,
    sourceRequestId: null,
    ...data,
  },
});
