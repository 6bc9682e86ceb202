import { useEffect, useState, type FormEvent } from 'react';
import { isVideoFormat, OUTPUT_FORMATS, type OutputFormat } from '../../../domain/renders/output-formats';
import { supportsVideo } from '../../../domain/templates/template-settings';
import { api, ApiError } from '../api-client';
import { hrefOf, navigate } from '../hash-route';
import { StatusLine } from '../status-line';
import { parseTags } from '../tags';
import type { Editor, Template } from '../types';

const PAGE_SIZE = 10;
const formatsOf = (editor: Editor) => OUTPUT_FORMATS.filter((format) => supportsVideo(editor) || !isVideoFormat(format));

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);

const CreateTemplateForm = () => {
  const [name, setName] = useState('');
  const [editor, setEditor] = useState<Editor>('html-editor');
  const [width, setWidth] = useState(1200);
  const [height, setHeight] = useState(630);
  const [outputFormat, setOutputFormat] = useState<OutputFormat>('jpeg');
  const [recordDuration, setRecordDuration] = useState(3000);
  const [error, setError] = useState<string | null>(null);
  const video = isVideoFormat(outputFormat);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const created = await api.json<Template>('POST', '/api/v2/my-templates', {
        name,
        editor,
        width,
        height,
        outputFormat,
        ...(video ? { recordDuration } : {}),
      });
      navigate({ page: 'template', id: created.identifier });
    } catch (failure) {
      setError(describe(failure));
    }
  };

  return (
    <form className="create" onSubmit={submit} aria-labelledby="create-heading">
      <h2 id="create-heading">New template</h2>
      <label>
        Name <input required value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        Editor
        <select
          value={editor}
          onChange={(event) => {
            const next = event.target.value as Editor;
            setEditor(next);
            if (!formatsOf(next).includes(outputFormat)) setOutputFormat('jpeg');
          }}
        >
          <option value="html-editor">HTML and CSS</option>
          <option value="canvas-editor">Canvas (components)</option>
          <option value="canvas-html">Canvas with animation (images and video)</option>
        </select>
      </label>
      <label>
        Width <input type="number" min={1} required value={width} onChange={(event) => setWidth(Number(event.target.value))} />
      </label>
      <label>
        Height <input type="number" min={1} required value={height} onChange={(event) => setHeight(Number(event.target.value))} />
      </label>
      <label>
        Output format
        <select value={outputFormat} onChange={(event) => setOutputFormat(event.target.value as OutputFormat)}>
          {formatsOf(editor).map((format) => (
            <option key={format}>{format}</option>
          ))}
        </select>
      </label>
      {video && (
        <label>
          Duration (ms) <input type="number" min={1000} max={30000} step={100} value={recordDuration} onChange={(event) => setRecordDuration(Number(event.target.value))} />
        </label>
      )}
      <button type="submit">Create</button>
      <StatusLine error={error} />
    </form>
  );
};

/** The organization's templates with the API's own filters (name, tags) and paging. */
export const TemplatesPage = () => {
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [page, setPage] = useState(0);
  const [templates, setTemplates] = useState<readonly Template[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    const query = new URLSearchParams({ page: String(page), size: String(PAGE_SIZE) });
    if (name.trim()) query.set('name', name.trim());
    for (const tag of parseTags(tags)) query.append('tags', tag);
    api.json<Template[]>('GET', `/api/v2/my-templates?${query}`, undefined, controller.signal).then(
      (found) => {
        setTemplates(found);
        setError(null);
      },
      (failure: unknown) => controller.signal.aborted || setError(describe(failure)),
    );
    return () => controller.abort();
  }, [name, tags, page, reload]);

  const remove = async (template: Template) => {
    if (!window.confirm(`Delete the template "${template.name}"?`)) return;
    try {
      await api.json('DELETE', `/api/v2/my-templates/${encodeURIComponent(template.identifier)}`);
      setReload((count) => count + 1);
    } catch (failure) {
      setError(describe(failure));
    }
  };

  return (
    <div className="templates">
      <section aria-labelledby="list-heading">
        <h1 id="list-heading">Templates</h1>
        <div className="filters" role="search">
          <label>
            Name contains <input value={name} onChange={(event) => (setName(event.target.value), setPage(0))} />
          </label>
          <label>
            Tags (comma-separated) <input value={tags} onChange={(event) => (setTags(event.target.value), setPage(0))} />
          </label>
        </div>
        <StatusLine error={error}>{templates && templates.length === 0 ? 'No templates here.' : null}</StatusLine>
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Editor</th>
              <th scope="col">Size</th>
              <th scope="col">Format</th>
              <th scope="col">Tags</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {templates?.map((template) => (
              <tr key={template.identifier}>
                <td>
                  <a href={hrefOf({ page: 'template', id: template.identifier })}>{template.name}</a>
                </td>
                <td>{template.editor}</td>
                <td>
                  {template.width} x {template.height}
                </td>
                <td>{template.outputFormat}</td>
                <td>{template.tags.join(', ')}</td>
                <td>
                  <button type="button" onClick={() => void remove(template)} aria-label={`Delete ${template.name}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <nav className="pager" aria-label="Template pages">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>Page {page + 1}</span>
          <button type="button" disabled={(templates?.length ?? 0) < PAGE_SIZE} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      </section>
      <CreateTemplateForm />
    </div>
  );
};
