import { useEffect, useState } from 'react';
import { api } from '../api-client';
import { sampleDataFor } from '../sample-data';
import { StatusLine } from '../status-line';
import type { Template, TemplateContent } from '../types';
import { useDebouncedRender } from '../use-debounced-render';
import { useLatestVersion } from '../use-latest-version';
import { useSerialSave } from '../use-serial-save';
import { PreviewImage } from './preview-image';

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * HTML and CSS side by side with a preview that follows the typing: once the text rests, the
 * content is saved and rendered through the public render endpoint (with the render cache, so
 * going back to an earlier version costs nothing), and the merge fields the service found in the
 * saved HTML become the sample-data form.
 */
export const HtmlEditor = ({ template, refresh }: { template: Template; refresh: (signal?: AbortSignal) => Promise<Template> }) => {
  const path = `/api/v2/my-templates/${encodeURIComponent(template.identifier)}/html-editor`;
  const [content, setContent] = useState<{ html: string; css: string } | null>(null);
  const [sample, setSample] = useState<Record<string, string>>({});
  const [fields, setFields] = useState<readonly string[]>(() => template.properties.map((property) => property.key));
  const version = useLatestVersion(template);
  const saver = useSerialSave<{ html: string; css: string; sampleData: Record<string, string> }>(async (body) => {
    await api.json('PUT', path, body);
    const fresh = await refresh();
    version.saw(fresh);
    setFields(fresh.properties.map((property) => property.key));
  });

  useEffect(() => {
    const controller = new AbortController();
    void api.json<TemplateContent>('GET', path, undefined, controller.signal).then((loaded) => {
      const stored = Object.fromEntries(Object.entries(loaded.sampleData).map(([field, value]) => [field, asText(value)]));
      saver.markSaved({ html: loaded.html, css: loaded.css, sampleData: stored });
      setSample(stored);
      setContent({ html: loaded.html, css: loaded.css });
    }, () => setContent({ html: '', css: '' }));
    return () => controller.abort();
  }, [path]);

  // Fields come and go as the HTML changes; typed sample values stay with their fields.
  useEffect(() => setSample((previous) => sampleDataFor(fields, previous)), [fields]);

  const render = async (signal: AbortSignal): Promise<Blob> => {
    if (!content?.html.trim()) throw new Error('Write some HTML to see a preview.');
    await saver.save({ html: content.html, css: content.css, sampleData: sample });
    signal.throwIfAborted();
    const body = { template: template.identifier, templateVersion: version.get(), data: sample, outputFormat: 'png', cache: true };
    return api.blob('POST', '/api/v2/render?output=image', body, signal);
  };
  const preview = useDebouncedRender(content ? JSON.stringify({ content, sample }) : '', render);

  if (!content) return <StatusLine>Loading the content...</StatusLine>;
  return (
    <div className="html-editor">
      <div className="sources">
        <label className="source">
          HTML
          <textarea spellCheck={false} value={content.html} onChange={(event) => setContent({ ...content, html: event.target.value })} />
        </label>
        <label className="source">
          CSS
          <textarea spellCheck={false} value={content.css} onChange={(event) => setContent({ ...content, css: event.target.value })} />
        </label>
      </div>
      <div className="side">
        <PreviewImage state={preview} template={template} />
        <fieldset className="sample-data">
          <legend>Sample data</legend>
          {fields.length === 0 && <p className="hint">Merge fields such as {'{{title}}'} in the HTML appear here.</p>}
          {fields.map((field) => (
            <label key={field}>
              {field}
              <input value={sample[field] ?? ''} onChange={(event) => setSample({ ...sample, [field]: event.target.value })} />
            </label>
          ))}
        </fieldset>
      </div>
    </div>
  );
};
