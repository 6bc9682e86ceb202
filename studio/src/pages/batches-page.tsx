import { useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { isVideoFormat, OUTPUT_FORMATS, type OutputFormat } from '../../../domain/renders/output-formats';
import { supportsVideo } from '../../../domain/templates/template-settings';
import { api, ApiError } from '../api-client';
import { CsvError, tableOf } from '../csv';
import { sameOriginLink } from '../file-links';
import { navigate } from '../hash-route';
import { StatusLine } from '../status-line';
import type { Batch, BatchPage, Editor, SubmittedBatch, Template } from '../types';

/** Rows of the CSV shown before the batch starts, and how many of them are rendered as thumbnails. */
const PREVIEW_ROWS = 5;
const THUMBNAIL_ROWS = 3;
const LIST_SIZE = 10;
const POLL_MS = 1000;
/** The column that names each row's file rather than a value of the template (as the service reads it). */
const FILE_NAME_COLUMN = 'fileName';

/** What the service said was wrong: its message and each of its `errors` lines. */
interface Problem {
  readonly message: string;
  readonly errors: readonly string[];
}

const problemOf = (error: unknown): Problem =>
  error instanceof ApiError ? { message: error.message, errors: error.errors } : { message: (error as Error).message, errors: [] };

const ProblemLines = ({ problem }: { problem: Problem | null }) =>
  problem ? (
    <div className="problem-lines" role="alert">
      <p>{problem.message}</p>
      {problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((line, index) => (
            <li key={index}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  ) : null;

/** A row's values as its render takes them: what the service's CSV reader makes of it (empty cells left out, fileName apart). */
const dataOf = (row: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(row).filter(([column, value]) => column !== '' && column !== FILE_NAME_COLUMN && value !== ''));

const formatsOf = (editor: Editor) => OUTPUT_FORMATS.filter((format) => supportsVideo(editor) || !isVideoFormat(format));

/** Every template of the organization, for the picker: the list pages through 50 at a time. */
const useAllTemplates = (): { templates: readonly Template[] | null; problem: Problem | null } => {
  const [templates, setTemplates] = useState<readonly Template[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    (async () => {
      const all: Template[] = [];
      for (let page = 0; page < 40; page += 1) {
        const found = await api.json<Template[]>('GET', `/api/v2/my-templates?page=${page}&size=50`, undefined, controller.signal);
        all.push(...found);
        if (found.length < 50) break;
      }
      setTemplates(all);
    })().catch((error: unknown) => controller.signal.aborted || setProblem(problemOf(error)));
    return () => controller.abort();
  }, []);
  return { templates, problem };
};

interface Thumbnail {
  readonly url: string | null;
  readonly error: string | null;
}

/** The first rows rendered as PNGs through the public render endpoint (cached, so choosing the same file again is free), as blob: URLs. */
const useRowThumbnails = (template: Template | null, rows: readonly Readonly<Record<string, string>>[] | null): readonly Thumbnail[] => {
  const [thumbnails, setThumbnails] = useState<readonly Thumbnail[]>([]);
  useEffect(() => {
    const picked = template && rows ? rows.slice(0, THUMBNAIL_ROWS) : [];
    setThumbnails(picked.map(() => ({ url: null, error: null })));
    if (!template || picked.length === 0) return;
    const controller = new AbortController();
    const urls: string[] = [];
    const settle = (index: number, thumbnail: Thumbnail) => setThumbnails((previous) => previous.map((item, at) => (at === index ? thumbnail : item)));
    picked.forEach((row, index) => {
      const body = { template: template.identifier, data: dataOf(row), outputFormat: 'png', cache: true };
      api.blob('POST', '/api/v2/render?output=image', body, controller.signal).then(
        (blob) => {
          if (controller.signal.aborted) return;
          const url = URL.createObjectURL(blob);
          urls.push(url);
          settle(index, { url, error: null });
        },
        (error: unknown) => controller.signal.aborted || settle(index, { url: null, error: error instanceof ApiError ? error.describe() : (error as Error).message }),
      );
    });
    return () => {
      controller.abort();
      for (const url of urls) URL.revokeObjectURL(url);
    };
  }, [template, rows]);
  return thumbnails;
};

/** Reads a file of the service with the key and hands it to the browser as a download (a blob: URL on an <a download>). */
const saveFile = async (href: string, fileName: string) => {
  // The href names the service's public address, which may not be this page's origin: its path is the same service here.
  const blob = await api.blob('GET', sameOriginLink(href, window.location.origin));
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken the bytes once the click is handled; a minute is ample.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
};

/** The CSV chosen or dropped: its file, and its header and rows as read here, or why it could not be read. */
interface ChosenCsv {
  readonly file: File;
  readonly columns: readonly string[];
  readonly rows: readonly Readonly<Record<string, string>>[] | null;
  readonly error: string | null;
}

const NewBatchForm = ({ templates, onStarted }: { templates: readonly Template[] | null; onStarted: (id: string) => void }) => {
  const [templateId, setTemplateId] = useState('');
  const [template, setTemplate] = useState<Template | null>(null);
  const [csv, setCsv] = useState<ChosenCsv | null>(null);
  const [name, setName] = useState('');
  const [outputFormat, setOutputFormat] = useState<OutputFormat | ''>('');
  const [merge, setMerge] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [starting, setStarting] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const reading = useRef(0);

  // The template itself, read afresh: its properties (canvas) or merge fields (html-editor) are the CSV's columns.
  useEffect(() => {
    setTemplate(null);
    if (!templateId) return;
    const controller = new AbortController();
    api.json<Template>('GET', `/api/v2/my-templates/${encodeURIComponent(templateId)}`, undefined, controller.signal).then(
      (found) => {
        setTemplate(found);
        setProblem(null);
        if (outputFormat && !formatsOf(found.editor).includes(outputFormat)) setOutputFormat('');
      },
      (error: unknown) => controller.signal.aborted || setProblem(problemOf(error)),
    );
    return () => controller.abort();
  }, [templateId]);

  const rows = csv?.rows ?? null;
  const thumbnails = useRowThumbnails(template, rows);

  const choose = (file: File | undefined) => {
    const attempt = (reading.current += 1);
    setProblem(null);
    if (!file) {
      setCsv(null);
      return;
    }
    file.text().then(
      (text) => {
        if (attempt !== reading.current) return;
        try {
          const table = tableOf(text);
          setCsv({ file, columns: table.columns, rows: table.rows, error: table.rows.length === 0 ? 'The file has a header row but no rows to render.' : null });
        } catch (error) {
          setCsv({ file, columns: [], rows: null, error: error instanceof CsvError ? `The file is not CSV as the service reads it: ${error.message}` : (error as Error).message });
        }
      },
      (error: unknown) => attempt === reading.current && setCsv({ file, columns: [], rows: null, error: `The file cannot be read: ${(error as Error).message}` }),
    );
  };

  const drop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (!file) return;
    // The file input shows the dropped file too, so the form says what it will send.
    if (input.current) {
      try {
        input.current.files = event.dataTransfer.files;
      } catch {
        // Older browsers keep the input as it was; the drop still counts.
      }
    }
    choose(file);
  };

  const effectiveFormat = outputFormat || template?.outputFormat;
  const expected = template?.properties.map((property) => property.key) ?? [];
  const unknown = csv && template ? csv.columns.filter((column) => column !== '' && column !== FILE_NAME_COLUMN && !expected.includes(column)) : [];
  const missing = csv && template ? expected.filter((key) => !csv.columns.includes(key)) : [];
  const ready = Boolean(template && csv?.rows && csv.rows.length > 0 && !csv.error);

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (!template || !csv || !ready) return;
    const form = new FormData();
    form.set('file', csv.file, csv.file.name || 'rows.csv');
    form.set('template', template.identifier);
    if (name.trim()) form.set('name', name.trim());
    if (outputFormat) form.set('outputFormat', outputFormat);
    if (effectiveFormat === 'pdf' && merge) form.set('merge', 'true');
    setStarting(true);
    setProblem(null);
    try {
      const submitted = await api.json<SubmittedBatch>('POST', '/api/v2/batches', form);
      setName('');
      onStarted(submitted.identifier);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setStarting(false);
    }
  };

  return (
    <form className="batch-form" onSubmit={start} aria-labelledby="new-batch-heading">
      <h2 id="new-batch-heading">New batch</h2>
      <div className="batch-options">
        <label>
          Template
          <select value={templateId} onChange={(event) => setTemplateId(event.target.value)} disabled={!templates}>
            <option value="">{templates ? 'Choose a template' : 'Loading templates...'}</option>
            {templates?.map((item) => (
              <option key={item.identifier} value={item.identifier}>
                {item.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Batch name (optional)
          <input value={name} onChange={(event) => setName(event.target.value)} maxLength={200} />
        </label>
        <label>
          Output format
          <select value={outputFormat} onChange={(event) => setOutputFormat(event.target.value as OutputFormat | '')}>
            <option value="">{template ? `The template's (${template.outputFormat})` : "The template's"}</option>
            {formatsOf(template?.editor ?? 'html-editor').map((format) => (
              <option key={format}>{format}</option>
            ))}
          </select>
        </label>
        {effectiveFormat === 'pdf' && (
          <label className="check">
            <input type="checkbox" checked={merge} onChange={(event) => setMerge(event.target.checked)} /> Also merge every row into one PDF
          </label>
        )}
      </div>
      {template && (
        <p className="hint" data-testid="batch-columns">
          {expected.length > 0 ? `Columns of ${template.name}: ${expected.join(', ')}` : `${template.name} has no fields to fill: every row renders it as it is`}; an optional {FILE_NAME_COLUMN} column names each row's
          file.
        </p>
      )}
      <div
        className={dragging ? 'drop-zone dragging' : 'drop-zone'}
        data-testid="drop-zone"
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={drop}
      >
        <label>
          CSV file
          <input ref={input} type="file" accept=".csv,text/csv" onChange={(event) => choose(event.target.files?.[0])} />
        </label>
        <p className="hint">Choose a file, or drop one here. Its first row names the columns.</p>
      </div>
      {csv?.error && (
        <p className="status error" role="alert">
          {csv.error}
        </p>
      )}
      {unknown.length > 0 && (
        <p className="problem" role="alert">
          {template?.name} has no field {unknown.join(', ')}: the service refuses rows that fill {unknown.length > 1 ? 'them' : 'it'}.
        </p>
      )}
      {missing.length > 0 && <p className="hint">No column for {missing.join(', ')}: those keep the template's own value.</p>}
      {csv?.rows && csv.rows.length > 0 && (
        <div className="csv-preview">
          <table data-testid="csv-preview">
            <caption>
              {csv.file.name}: {csv.rows.length} {csv.rows.length === 1 ? 'row' : 'rows'}
              {csv.rows.length > PREVIEW_ROWS ? `, the first ${PREVIEW_ROWS} shown` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Row</th>
                {csv.columns.map((column, index) => (
                  <th scope="col" key={index}>
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {csv.rows.slice(0, PREVIEW_ROWS).map((row, index) => (
                <tr key={index}>
                  <th scope="row">{index + 1}</th>
                  {csv.columns.map((column, at) => (
                    <td key={at}>{row[column]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {template && thumbnails.length > 0 && (
        <section className="batch-thumbnails" aria-labelledby="thumbnails-heading">
          <h3 id="thumbnails-heading">The first rows rendered</h3>
          <ul>
            {thumbnails.map((thumbnail, index) => (
              <li key={index}>
                <figure aria-busy={!thumbnail.url && !thumbnail.error}>
                  <span className="thumbnail">
                    {thumbnail.url && (
                      <img src={thumbnail.url} alt={`Row ${index + 1} rendered with ${template.name}`} width={template.width} height={template.height} data-testid="batch-thumbnail" />
                    )}
                  </span>
                  <figcaption>{thumbnail.error ? <span className="problem">{thumbnail.error}</span> : thumbnail.url ? `Row ${index + 1}` : `Rendering row ${index + 1}...`}</figcaption>
                </figure>
              </li>
            ))}
          </ul>
        </section>
      )}
      <div className="batch-actions">
        <button type="submit" disabled={!ready || starting}>
          {starting ? 'Starting...' : 'Start'}
        </button>
      </div>
      <ProblemLines problem={problem} />
    </form>
  );
};

const STATUS_SENTENCES: Record<Batch['status'], string> = {
  pending: 'Waiting to start.',
  running: 'Rendering...',
  done: 'Finished.',
  cancelled: 'Cancelled: rows not rendered yet were not charged.',
};

/** One batch as it goes: read every second until it has finished. */
const BatchProgress = ({ id, templateName, onFinished }: { id: string; templateName: (id: string) => string; onFinished: () => void }) => {
  const [batch, setBatch] = useState<Batch | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const finished = useRef(onFinished);
  finished.current = onFinished;
  const path = `/api/v2/batches/${encodeURIComponent(id)}`;

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const found = await api.json<Batch>('GET', path, undefined, controller.signal);
        if (controller.signal.aborted) return;
        setBatch(found);
        setProblem(null);
        if (found.finishedAt) {
          finished.current();
          return;
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        setProblem(problemOf(error));
        // An unknown batch or a refused key stays so; a busy or unreachable service is asked again.
        if (error instanceof ApiError && error.status < 500 && error.status !== 429) return;
      }
      timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [path]);

  const act = async (what: string, action: () => Promise<void>) => {
    setBusy(what);
    setProblem(null);
    try {
      await action();
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(null);
    }
  };

  const cancel = () =>
    act('cancel', async () => {
      if (!batch || !window.confirm(`Cancel the batch "${batch.name}"? Rows not rendered yet are not charged.`)) return;
      setBatch(await api.json<Batch>('DELETE', path));
    });

  const finishedRows = batch ? batch.done + batch.failed : 0;
  return (
    <section className="batch-progress" aria-labelledby="progress-heading" data-batch={id}>
      <h2 id="progress-heading">{batch ? `Batch ${batch.name}` : 'Batch'}</h2>
      {batch ? (
        <>
          <p className="meta">
            {templateName(batch.template)}, {batch.outputFormat}
            {batch.templateVersion ? `, version ${batch.templateVersion}` : ''}. Status: <strong data-testid="batch-status">{batch.status}</strong>
          </p>
          <div className="progress-line">
            <progress aria-label={`Progress of batch ${batch.name}`} max={batch.total} value={finishedRows} />
            <span data-testid="batch-count">
              {finishedRows}/{batch.total}
            </span>
          </div>
          <dl className="batch-counts">
            <dt>Done</dt>
            <dd data-testid="batch-done">{batch.done}</dd>
            <dt>Failed</dt>
            <dd data-testid="batch-failed">{batch.failed}</dd>
            <dt>From the cache</dt>
            <dd data-testid="batch-cached">{batch.cached}</dd>
            <dt>Credits charged</dt>
            <dd>{batch.creditsCharged}</dd>
          </dl>
          <StatusLine>{STATUS_SENTENCES[batch.status]}</StatusLine>
          {batch.failures.length > 0 && (
            <table className="batch-failures" data-testid="batch-failures">
              <caption>Rows that failed{batch.failed > batch.failures.length ? ` (the first ${batch.failures.length} of ${batch.failed})` : ''}</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {batch.failures.map((failure) => (
                  <tr key={failure.row}>
                    <td>{failure.row}</td>
                    <td>{failure.msg}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="batch-actions">
            {!batch.finishedAt && (
              <button type="button" className="danger" disabled={busy !== null} onClick={() => void cancel()}>
                Cancel
              </button>
            )}
            <button type="button" disabled={busy !== null || batch.done === 0} onClick={() => void act('zip', () => saveFile(batch.zipHref, `${batch.name}.zip`))}>
              {busy === 'zip' ? 'Downloading...' : 'Download ZIP'}
            </button>
            {batch.mergedHref && batch.finishedAt && (
              <button type="button" disabled={busy !== null} onClick={() => void act('merged', () => saveFile(batch.mergedHref ?? '', `${batch.name}.pdf`))}>
                {busy === 'merged' ? 'Downloading...' : 'Download merged PDF'}
              </button>
            )}
          </div>
          {!batch.finishedAt && batch.done > 0 && <p className="hint">The ZIP holds the files made so far.</p>}
        </>
      ) : (
        !problem && <StatusLine>Loading the batch...</StatusLine>
      )}
      <ProblemLines problem={problem} />
    </section>
  );
};

/** The organization's batches, newest first, each openable to show its progress. */
const RecentBatches = ({ reload, open, templateName }: { reload: number; open: string | null; templateName: (id: string) => string }) => {
  const [page, setPage] = useState(0);
  const [batches, setBatches] = useState<BatchPage | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    api.json<BatchPage>('GET', `/api/v2/batches?page=${page}&size=${LIST_SIZE}`, undefined, controller.signal).then(
      (found) => {
        setBatches(found);
        setProblem(null);
      },
      (error: unknown) => controller.signal.aborted || setProblem(problemOf(error)),
    );
    return () => controller.abort();
  }, [page, reload, tick]);

  // Batches still going are read again now and then, so their status moves on here too.
  const going = batches?.content.some((batch) => !batch.finishedAt) ?? false;
  useEffect(() => {
    if (!going) return;
    const timer = setTimeout(() => setTick((count) => count + 1), 5000);
    return () => clearTimeout(timer);
  }, [going, batches]);

  return (
    <section className="recent-batches" aria-labelledby="recent-heading">
      <h2 id="recent-heading">Recent batches</h2>
      {problem ? <ProblemLines problem={problem} /> : <StatusLine>{batches ? (batches.totalElements === 0 ? 'No batches yet.' : `${batches.totalElements} ${batches.totalElements === 1 ? 'batch' : 'batches'}.`) : 'Loading...'}</StatusLine>}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Template</th>
            <th scope="col">Status</th>
            <th scope="col">Rows</th>
            <th scope="col">Created</th>
            <th scope="col">Progress</th>
          </tr>
        </thead>
        <tbody>
          {batches?.content.map((batch) => (
            <tr key={batch.identifier} data-batch-row={batch.identifier} aria-current={batch.identifier === open ? 'true' : undefined}>
              <td>{batch.name}</td>
              <td>{templateName(batch.template)}</td>
              <td>{batch.status}</td>
              <td>{batch.total}</td>
              <td>
                <time dateTime={batch.createdAt}>{new Date(batch.createdAt).toLocaleString()}</time>
              </td>
              <td>
                <button type="button" aria-label={`Show the progress of ${batch.name}`} onClick={() => navigate({ page: 'batches', batch: batch.identifier })}>
                  Show
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav className="pager" aria-label="Batch pages">
        <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Previous
        </button>
        <span>
          Page {page + 1} of {Math.max(1, batches?.totalPages ?? 1)}
        </span>
        <button type="button" disabled={!batches || page + 1 >= batches.totalPages} onClick={() => setPage(page + 1)}>
          Next
        </button>
      </nav>
    </section>
  );
};

/**
 * Batches of renders from a CSV: a template and a file chosen (or dropped), the file's first rows
 * shown as read here and its first three rendered before anything is charged for the batch, then
 * the batch started and its progress followed; below, the organization's recent batches.
 */
export const BatchesPage = ({ open }: { open: string | null }) => {
  const { templates, problem } = useAllTemplates();
  const [reload, setReload] = useState(0);
  const names = new Map(templates?.map((template) => [template.identifier, template.name]));
  const templateName = (id: string) => names.get(id) ?? id;

  return (
    <div className="batches">
      <h1>Batches</h1>
      <ProblemLines problem={problem} />
      <NewBatchForm
        templates={templates}
        onStarted={(id) => {
          setReload((count) => count + 1);
          navigate({ page: 'batches', batch: id });
        }}
      />
      <div className="batch-column">
        {open && <BatchProgress key={open} id={open} templateName={templateName} onFinished={() => setReload((count) => count + 1)} />}
        <RecentBatches reload={reload} open={open} templateName={templateName} />
      </div>
    </div>
  );
};
