import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api-client';
import { navigate } from '../hash-route';
import { StatusLine } from '../status-line';
import { parseTags } from '../tags';
import type { Template } from '../types';
import { CanvasEditor } from './canvas-editor';
import { HtmlEditor } from './html-editor';
import { TemplateVersions } from './template-versions';

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);

/** One template: its name and tags, the editor its kind of content needs, and its versions. */
export const TemplatePage = ({ id }: { id: string }) => {
  const path = `/api/v2/my-templates/${encodeURIComponent(id)}`;
  const [template, setTemplate] = useState<Template | null>(null);
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A restore changes the content under the editor: a new key mounts it afresh with what was restored.
  const [editorKey, setEditorKey] = useState(0);

  /** The editors save content, after which the service derives new properties: they ask for the template again. */
  const refresh = useCallback(async (signal?: AbortSignal) => {
    const found = await api.json<Template>('GET', path, undefined, signal);
    setTemplate(found);
    return found;
  }, [path]);

  useEffect(() => {
    const controller = new AbortController();
    refresh(controller.signal).then(
      (found) => {
        setName(found.name);
        setTags(found.tags.join(', '));
      },
      (failure: unknown) => controller.signal.aborted || setError(describe(failure)),
    );
    return () => controller.abort();
  }, [refresh]);

  const versionChanged = async (how: 'published' | 'restored') => {
    const fresh = await refresh();
    if (how !== 'restored') return;
    setName(fresh.name);
    setTags(fresh.tags.join(', '));
    setEditorKey((key) => key + 1);
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const saved = await api.json<Template>('PATCH', path, { name, tags: parseTags(tags) });
      setTemplate(saved);
      setTags(saved.tags.join(', '));
      setError(null);
      setStatus('Saved.');
    } catch (failure) {
      setError(describe(failure));
    }
  };

  const remove = async () => {
    if (!template || !window.confirm(`Delete the template "${template.name}"?`)) return;
    try {
      await api.json('DELETE', path);
      navigate({ page: 'templates' });
    } catch (failure) {
      setError(describe(failure));
    }
  };

  if (!template) return <StatusLine error={error}>Loading the template...</StatusLine>;
  return (
    <div className="template">
      <form className="template-header" onSubmit={save} aria-label="Template details">
        <label>
          Name <input required value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Tags <input value={tags} onChange={(event) => setTags(event.target.value)} placeholder="social, launch" />
        </label>
        <button type="submit">Save name and tags</button>
        <button type="button" className="danger" onClick={() => void remove()}>
          Delete template
        </button>
        <span className="meta">
          {template.editor}, {template.width} x {template.height}, {template.outputFormat}, version {template.version}
        </span>
        <StatusLine error={error}>{status}</StatusLine>
      </form>
      {template.editor === 'html-editor' ? (
        <HtmlEditor key={editorKey} template={template} refresh={refresh} />
      ) : (
        <CanvasEditor key={editorKey} template={template} refresh={refresh} />
      )}
      <TemplateVersions template={template} changed={versionChanged} />
    </div>
  );
};
