import { useEffect, useMemo, useState } from 'react';
import { COMPONENT_TYPES } from '../../../domain/templates/components/component-document';
import { api } from '../api-client';
import { fontFamilies } from '../assets';
import { freshId } from '../component-values';
import type { Box } from '../geometry';
import { StatusLine } from '../status-line';
import type { Component, ComponentDocument, Template } from '../types';
import { useAssets } from '../use-assets';
import { useDebouncedRender } from '../use-debounced-render';
import type { TextFits } from '../../../domain/renders/text-fit';
import { useLatestVersion } from '../use-latest-version';
import { useSerialSave } from '../use-serial-save';
import { ComponentForm, type AssetChoices } from './component-form';
import { ColorInput } from './color-input';
import { ComponentOverlay } from './component-overlay';
import { PreviewImage } from './preview-image';
import { VideoPreview } from './video-preview';

/** A new component's place and the values that make it visible at once. */
const starter = (type: Component['type'], id: string, page: Box): Component => {
  const box = { id, x: Math.round(page.width / 10), y: Math.round(page.height / 10), width: Math.round(page.width / 3), height: Math.round(page.height / 4) };
  switch (type) {
    case 'TEXT':
      return { ...box, type, text: 'Text', fontSize: Math.max(12, Math.round(box.height / 3)) };
    case 'QR_CODE':
      return { ...box, type, width: box.height, value: 'https://example.com' };
    case 'BARCODE':
      return { ...box, type, format: 'code128', value: '0123456789' };
    case 'CIRCLE':
      return { ...box, type, width: box.height, fill: '#4a90d9' };
    case 'RECTANGLE':
      return { ...box, type, fill: '#4a90d9' };
    case 'RATING':
      return { ...box, type, value: 4 };
    case 'HTML':
      return { ...box, type, html: '<b>HTML</b>' };
    default:
      return { ...box, type };
  }
};

/** What fitting made of each fitted TEXT in the preview: the size it drew, its lines, and whether it had to cut. */
const FittedText = ({ fits }: { fits: TextFits }) => (
  <ul className="fitted" aria-label="Fitted text">
    {Object.entries(fits).map(([id, fit]) => (
      <li key={id}>
        {id}: {fit.fontSize} px, {fit.lines} {fit.lines === 1 ? 'line' : 'lines'}
        {fit.truncated ? ', cut to fit' : ''}
      </li>
    ))}
  </ul>
);

/**
 * canvas-editor and canvas-html templates: the component list, a form for the selected component,
 * and the rendered page with boxes to drag. Every change is saved once editing rests, then the
 * page is rendered again through the public API; canvas-html templates also render as video.
 */
export const CanvasEditor = ({ template, refresh }: { template: Template; refresh: (signal?: AbortSignal) => Promise<Template> }) => {
  const path = `/api/v2/my-templates/${encodeURIComponent(template.identifier)}/components`;
  const [document, setDocument] = useState<ComponentDocument | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [adding, setAdding] = useState<Component['type']>('TEXT');
  // The organization's font families and newest uploads, offered by the TEXT and IMAGE forms.
  const { fonts, uploads } = useAssets();
  const choices = useMemo<AssetChoices>(() => ({ families: fonts ? fontFamilies(fonts) : null, uploads: uploads?.content ?? null }), [fonts, uploads]);
  const version = useLatestVersion(template);
  const saver = useSerialSave<ComponentDocument>(async (saved) => {
    await api.json('PUT', path, saved);
    version.saw(await refresh());
  });

  useEffect(() => {
    const controller = new AbortController();
    void api.json<ComponentDocument>('GET', path, undefined, controller.signal).then((loaded) => {
      saver.markSaved(loaded);
      setDocument(loaded);
      setSelected(loaded.components[0]?.id ?? null);
    });
    return () => controller.abort();
  }, [path]);

  /** Saves the document as it stands (the service answers a bad one with a 400 that says what is wrong). */
  const save = async () => {
    if (document) await saver.save(document);
  };

  const [fitted, setFitted] = useState<TextFits | null>(null);
  const preview = useDebouncedRender(document ? JSON.stringify(document) : '', async (signal) => {
    await save();
    signal.throwIfAborted();
    if (document?.components.length === 0) throw new Error('Add a component to see a preview.');
    const { blob, requestId } = await api.rendered('/api/v2/render?output=image', { template: template.identifier, templateVersion: version.get(), outputFormat: 'png', cache: true }, signal);
    // What fitting made of each fitted TEXT, as the preview shows it.
    const result = requestId ? await api.json<{ fit?: TextFits }>('GET', `/api/v2/results/${encodeURIComponent(requestId)}`, undefined, signal) : undefined;
    setFitted(result?.fit ?? null);
    return blob;
  });

  if (!document) return <StatusLine>Loading the components...</StatusLine>;

  const update = (id: string, change: Record<string, unknown>) =>
    setDocument({ ...document, components: document.components.map((component) => (component.id === id ? ({ ...component, ...change } as Component) : component)) });
  const add = () => {
    const id = freshId(adding, document.components.map((component) => component.id));
    setDocument({ ...document, components: [...document.components, starter(adding, id, { x: 0, y: 0, width: template.width, height: template.height })] });
    setSelected(id);
  };
  const remove = (id: string) => {
    setDocument({ ...document, components: document.components.filter((component) => component.id !== id) });
    if (selected === id) setSelected(null);
  };
  const current = document.components.find((component) => component.id === selected) ?? null;

  return (
    <div className="canvas-editor">
      <section className="components" aria-labelledby="components-heading">
        <h2 id="components-heading">Components</h2>
        <ul>
          {document.components.map((component) => (
            <li key={component.id}>
              <button type="button" className="pick" aria-pressed={component.id === selected} onClick={() => setSelected(component.id)}>
                {component.id} <span className="type">{component.type}</span>
                {component.hidden === true && <span className="type"> (hidden)</span>}
              </button>
              <button type="button" aria-label={`Remove ${component.id}`} onClick={() => remove(component.id)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        <div className="add">
          <label>
            New component
            <select value={adding} onChange={(event) => setAdding(event.target.value as Component['type'])}>
              {COMPONENT_TYPES.map((type) => (
                <option key={type}>{type}</option>
              ))}
            </select>
          </label>
          <button type="button" onClick={add}>
            Add
          </button>
        </div>
        <label htmlFor="document-background">
          Background
          <ColorInput
            id="document-background"
            label="background"
            value={typeof document.background === 'string' ? document.background : ''}
            placeholder="#ffffff"
            onChange={(background) => setDocument({ ...document, background: background || undefined })}
          />
        </label>
      </section>
      <div className="canvas-column">
        <PreviewImage state={preview} template={template}>
          <ComponentOverlay components={document.components} page={template} selected={selected} onSelect={setSelected} onChange={(id, box) => update(id, { ...box })} />
        </PreviewImage>
        {fitted && <FittedText fits={fitted} />}
        {template.editor === 'canvas-html' && <VideoPreview template={template} beforeRender={() => save()} latestVersion={version.get} />}
      </div>
      {current && (
        <ComponentForm
          component={current}
          properties={template.properties.filter((property) => property.componentId === current.id)}
          animated={template.editor === 'canvas-html'}
          choices={choices}
          onChange={(change) => update(current.id, change)}
        />
      )}
    </div>
  );
};
