import { notFound } from '../../../domain/shared/errors.js';
import type { EventStore } from '../../ports/event-store.js';
import type { RequestContext } from '../../shared/request-context.js';
import { toTemplateVersionDto, type TemplateVersionDto } from '../template-dto.js';
import { readTemplateVersions, viewOfVersion } from '../template-versions.js';

/** The template as version `version` had it; a version it never had is a missing resource. */
export const getTemplateVersion = async (eventStore: EventStore, context: RequestContext, templateId: string, version: number): Promise<TemplateVersionDto> => {
  const { template, versions } = await readTemplateVersions(eventStore, context.caller.orgId, templateId);
  const found = versions[version - 1];
  if (!found) throw notFound(`Template version ${version}`);
  return toTemplateVersionDto(viewOfVersion(template, found), found);
};
