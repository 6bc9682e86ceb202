import { useEffect, useState } from 'react';
import { api, ApiError } from '../api-client';
import { StatusLine } from '../status-line';
import type { Template, TemplateVersionPage, TemplateVersionSummary } from '../types';

const PAGE_SIZE = 10;

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);

const whatChanged = (version: TemplateVersionSummary) =>
  version.restoredFrom !== undefined ? `restored from ${version.restoredFrom}` : version.changed.length > 0 ? version.changed.join(', ') : 'created';

/**
 * The template's versions, newest first, the published one marked: publish one (renders without a
 * version then use it), restore one (a new version equal to it; the editor reloads it), or preview
 * any of them, rendered by the service like every preview here.
 */
export const TemplateVersions = ({ template, changed }: { template: Template; changed: (how: 'published' | 'restored') => Promise<void> }) => {
  const path = `/api/v2/my-templates/${encodeURIComponent(template.identifier)}`;
  const [page, setPage] = useState(0);
  const [versions, setVersions] = useState<TemplateVersionPage | null>(null);
  const [preview, setPreview] = useState<{ version: number; url: string } | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Read again whenever the template gains a version or publishes another.
  useEffect(() => {
    const controller = new AbortController();
    api.json<TemplateVersionPage>('GET', `${path}/versions?page=${page}&size=${PAGE_SIZE}`, undefined, controller.signal).then(
      (listed) => setVersions(listed),
      (failure: unknown) => controller.signal.aborted || setError(describe(failure)),
    );
    return () => controller.abort();
  }, [path, page, template.version, template.publishedVersion]);

  useEffect(() => () => (preview ? URL.revokeObjectURL(preview.url) : undefined), [preview]);

  const act = async (what: () => Promise<void>, done: string) => {
    try {
      await what();
      setError(null);
      setStatus(done);
    } catch (failure) {
      setError(describe(failure));
    }
  };

  const publish = (version: number) =>
    act(async () => {
      await api.json('POST', `${path}/publish`, { version });
      await changed('published');
    }, `Version ${version} is published: renders that name no version use it.`);

  const restore = (version: number) =>
    act(async () => {
      await api.json('POST', `${path}/versions/${version}/restore`);
      await changed('restored');
    }, `Version ${version} restored as a new version.`);

  const show = (version: number) =>
    act(async () => {
      const blob = await api.blob('POST', '/api/v2/render?output=image', { template: template.identifier, templateVersion: version, outputFormat: 'png', cache: true });
      setPreview({ version, url: URL.createObjectURL(blob) });
    }, `Showing version ${version}.`);

  return (
    <section className="versions" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <StatusLine error={error}>{status ?? (template.publishedVersion === undefined ? 'Renders use the latest version.' : `Renders use version ${template.publishedVersion}.`)}</StatusLine>
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Made</th>
            <th scope="col">Change</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {versions?.content.map((version) => (
            <tr key={version.version} data-version={version.version} aria-current={version.published ? 'true' : undefined}>
              <td>
                {version.version}
                {version.published && <strong className="published"> published</strong>}
              </td>
              <td>
                <time dateTime={version.createdAt}>{new Date(version.createdAt).toLocaleString()}</time>
              </td>
              <td>{whatChanged(version)}</td>
              <td className="actions">
                <button type="button" onClick={() => void show(version.version)} aria-label={`Preview version ${version.version}`}>
                  Preview
                </button>
                <button type="button" disabled={version.published} onClick={() => void publish(version.version)} aria-label={`Publish version ${version.version}`}>
                  Publish
                </button>
                <button type="button" disabled={version.version === template.version} onClick={() => void restore(version.version)} aria-label={`Restore version ${version.version}`}>
                  Restore
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav className="pager" aria-label="Version pages">
        <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Newer
        </button>
        <span>
          Page {page + 1} of {Math.max(1, versions?.totalPages ?? 1)}
        </span>
        <button type="button" disabled={!versions || page + 1 >= versions.totalPages} onClick={() => setPage(page + 1)}>
          Older
        </button>
      </nav>
      {preview && (
        <figure className="version-preview">
          <img src={preview.url} alt={`Version ${preview.version} of ${template.name}`} data-testid="version-preview" />
          <figcaption>Version {preview.version}</figcaption>
        </figure>
      )}
    </section>
  );
};
