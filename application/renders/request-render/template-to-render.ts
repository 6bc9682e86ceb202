import { validationError } from '../../../domain/shared/errors.js';
import type { EventStore } from '../../ports/event-store.js';
import type { TemplateView } from '../../ports/read-models.js';
import { readTemplateVersions, viewOfVersion } from '../../templates/template-versions.js';

/**
 * The template as this render draws it: the version the request names, else the published one, else
 * the latest. The read model holds the latest, so only another version costs a read of the template's
 * stream. A version the template does not have is the request's fault, as a missing template is.
 */
export const templateToRender = async (eventStore: EventStore, latest: TemplateView, requested: number | undefined): Promise<TemplateView> => {
  const wanted = requested ?? latest.publishedVersion ?? latest.version;
  if (wanted === latest.version) return latest;
  const { template, versions } = await readTemplateVersions(eventStore, latest.orgId, latest.id);
  const version = versions[wanted - 1];
  if (!version) {
    throw validationError(`Template ${latest.id} has no version ${wanted}`, [`templateVersion: template ${latest.id} has no version ${wanted}; it has versions 1 to ${versions.length}`]);
  }
  return viewOfVersion(template, version);
};
