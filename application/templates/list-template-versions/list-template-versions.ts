import type { EventStore } from '../../ports/event-store.js';
import { toPage, type PageDto } from '../../results/result-dto.js';
import type { RequestContext } from '../../shared/request-context.js';
import { toTemplateVersionSummary, type TemplateVersionSummaryDto } from '../template-dto.js';
import { readTemplateVersions } from '../template-versions.js';

/** One page of a template's versions, newest first, in the page wrapper results use. */
export const listTemplateVersions = async (
  eventStore: EventStore,
  context: RequestContext,
  templateId: string,
  { page, size }: { readonly page: number; readonly size: number },
): Promise<PageDto<TemplateVersionSummaryDto>> => {
  const { template, versions } = await readTemplateVersions(eventStore, context.caller.orgId, templateId);
  const newestFirst = [...versions].reverse();
  const content = newestFirst.slice(page * size, (page + 1) * size).map((version) => toTemplateVersionSummary(version, template.publishedVersion));
  return toPage(content, page, size, versions.length);
};
