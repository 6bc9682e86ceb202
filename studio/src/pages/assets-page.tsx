import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api-client';
import { describeUpload, fontFamilies, fontForm, formatBytes, isCustomFont } from '../assets';
import { StatusLine } from '../status-line';
import type { CustomFont, Upload, Usage } from '../types';
import { forgetThumbnail } from '../upload-thumbnails';
import { useAssets } from '../use-assets';
import { UploadThumbnail } from './upload-thumbnail';

const PAGE_SIZE = 12;
const FONT_TYPES = '.ttf,.otf,.woff,.woff2,font/ttf,font/otf,font/woff,font/woff2';
const IMAGE_TYPES = '.png,.jpg,.jpeg,.webp,.gif,.svg,image/png,image/jpeg,image/webp,image/gif,image/svg+xml';

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const uploadedAt = (createdAt: string) => new Date(createdAt).toLocaleString();

/** What a submit or a delete did: a line for the status area, or the service's error (msg and errors). */
type Outcome = { readonly status: string | null; readonly error: string | null };
const NOTHING: Outcome = { status: null, error: null };

/** Runs one call, saying what it did or what the service answered; true when it succeeded. */
const attempt = async (setOutcome: (outcome: Outcome) => void, busy: string, call: () => Promise<string>): Promise<boolean> => {
  setOutcome({ status: busy, error: null });
  try {
    setOutcome({ status: await call(), error: null });
    return true;
  } catch (failure) {
    setOutcome({ status: null, error: describe(failure) });
    return false;
  }
};

const FontsSection = ({ fonts, onChange }: { fonts: readonly CustomFont[] | null; onChange: () => void }) => {
  const [outcome, setOutcome] = useState<Outcome>(NOTHING);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    const done = await attempt(setOutcome, 'Uploading the font...', async () => {
      const font = await api.json<CustomFont>('POST', '/api/v1/fonts', fontForm(new FormData(form)));
      return `Uploaded ${font.family} (${font.variants.join(', ')}): templates use it by that family.`;
    });
    setBusy(false);
    if (done) {
      form.reset();
      onChange();
    }
  };

  const remove = async (font: CustomFont) => {
    if (!window.confirm(`Delete the font ${font.family} (${font.variants.join(', ')})? Templates that name it fall back to another font.`)) return;
    if (await attempt(setOutcome, 'Deleting...', async () => (await api.json('DELETE', `/api/v1/fonts/${encodeURIComponent(font.identifier)}`), `Deleted ${font.family}.`))) onChange();
  };

  return (
    <section className="asset-section" aria-labelledby="fonts-heading">
      <h2 id="fonts-heading">Fonts</h2>
      <form className="upload-form" onSubmit={(event) => void submit(event)} aria-label="Upload a font">
        <label>
          Font file (TTF, OTF, WOFF or WOFF2, at most 10 MB)
          <input type="file" name="file" accept={FONT_TYPES} required />
        </label>
        <label>
          Family (optional)
          <input name="family" maxLength={100} placeholder="the font's own family name" />
        </label>
        <button type="submit" disabled={busy}>
          Upload font
        </button>
      </form>
      <StatusLine error={outcome.error}>{outcome.status}</StatusLine>
      {fonts && fonts.length === 0 ? (
        <p className="hint">No fonts uploaded yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Family</th>
              <th scope="col">Variant</th>
              <th scope="col">Its own name</th>
              <th scope="col">Size</th>
              <th scope="col">Uploaded</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {fonts?.map((font) => (
              <tr key={font.identifier} data-font={font.identifier}>
                <td>{font.family}</td>
                <td>{font.variants.join(', ')}</td>
                <td>{font.originalName}</td>
                <td>{formatBytes(font.size)}</td>
                <td>
                  <time dateTime={font.createdAt}>{uploadedAt(font.createdAt)}</time>
                </td>
                <td>
                  <button type="button" className="danger" onClick={() => void remove(font)} aria-label={`Delete the font ${font.family} (${font.variants.join(', ')})`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
};

const UploadCard = ({ upload, onDelete }: { upload: Upload; onDelete: (upload: Upload) => void }) => {
  const label = describeUpload(upload);
  const addressId = `address-${upload.identifier}`;
  return (
    <li className="upload-card" data-upload={upload.identifier}>
      <UploadThumbnail upload={upload} alt={label} />
      <span>{label}</span>
      <time dateTime={upload.createdAt} className="hint">
        {uploadedAt(upload.createdAt)}
      </time>
      <label htmlFor={addressId} className="visually-hidden">
        Address of {label}
      </label>
      <input id={addressId} readOnly value={upload.href} onFocus={(event) => event.target.select()} title="An image source for templates: img src, CSS url(), an IMAGE component's src" />
      <button type="button" className="danger" onClick={() => onDelete(upload)} aria-label={`Delete the image ${label}, uploaded ${uploadedAt(upload.createdAt)}`}>
        Delete
      </button>
    </li>
  );
};

const ImagesSection = ({ uploads, page, setPage, onChange }: { uploads: ReturnType<typeof useAssets>['uploads']; page: number; setPage: (page: number) => void; onChange: () => void }) => {
  const [outcome, setOutcome] = useState<Outcome>(NOTHING);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    const done = await attempt(setOutcome, 'Uploading the image...', async () => {
      const upload = await api.json<Upload>('POST', '/api/v2/uploads', new FormData(form));
      return `Uploaded ${describeUpload(upload)}.`;
    });
    setBusy(false);
    if (done) {
      form.reset();
      if (page === 0) onChange();
      else setPage(0);
    }
  };

  const remove = async (upload: Upload) => {
    const label = describeUpload(upload);
    if (!window.confirm(`Delete the image ${label}? Templates that show it render without it.`)) return;
    const done = await attempt(setOutcome, 'Deleting...', async () => {
      await api.json('DELETE', `/api/v2/uploads/${encodeURIComponent(upload.identifier)}`);
      forgetThumbnail(upload.href);
      return `Deleted the image ${label}.`;
    });
    if (done) onChange();
  };

  return (
    <section className="asset-section" aria-labelledby="images-heading">
      <h2 id="images-heading">Images</h2>
      <form className="upload-form" onSubmit={(event) => void submit(event)} aria-label="Upload an image">
        <label>
          Image file (PNG, JPEG, WebP, GIF or SVG, at most 20 MB)
          <input type="file" name="file" accept={IMAGE_TYPES} required />
        </label>
        <button type="submit" disabled={busy}>
          Upload image
        </button>
      </form>
      <StatusLine error={outcome.error}>{outcome.status}</StatusLine>
      <p className="hint">An image's address is its source in templates: an HTML img src or CSS url(), or an IMAGE component's src (pick it in the component's form).</p>
      {uploads && uploads.content.length === 0 && <p className="hint">No images uploaded yet.</p>}
      <ul className="upload-grid">
        {uploads?.content.map((upload) => <UploadCard key={upload.identifier} upload={upload} onDelete={(chosen) => void remove(chosen)} />)}
      </ul>
      {uploads && uploads.totalPages > 1 && (
        <nav className="pager" aria-label="Image pages">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page + 1} of {uploads.totalPages}
          </span>
          <button type="button" disabled={page + 1 >= uploads.totalPages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
};

/** The organization's uploaded fonts and images: upload, list, delete; the storage they take against the plan's. */
export const AssetsPage = () => {
  const [page, setPage] = useState(0);
  const [reload, setReload] = useState(0);
  const { fonts, uploads, error } = useAssets(page, PAGE_SIZE, reload);
  const [usage, setUsage] = useState<Usage | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    api.json<Usage>('GET', '/api/v1/usage', undefined, controller.signal).then(setUsage, () => undefined);
    return () => controller.abort();
  }, [reload]);
  const changed = () => setReload((count) => count + 1);
  const builtIn = fonts ? fontFamilies(fonts).builtIn.length : 0;

  return (
    <div className="assets">
      <h1 id="assets-heading">Assets</h1>
      <StatusLine error={error}>
        {fonts && uploads
          ? `${count(uploads.totalElements, 'image')}, ${count(fonts.filter(isCustomFont).length, 'uploaded font')} beside ${count(builtIn, 'built-in family', 'built-in families')}${usage ? `; storage (with render results) ${formatBytes(usage.uploads.used)} of ${formatBytes(usage.uploads.total)}` : ''}.`
          : 'Loading...'}
      </StatusLine>
      <FontsSection fonts={fonts ? fonts.filter(isCustomFont) : null} onChange={changed} />
      <ImagesSection uploads={uploads} page={page} setPage={setPage} onChange={changed} />
    </div>
  );
};
