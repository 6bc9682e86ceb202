import { useEffect, useState } from 'react';
import { OUTPUT_FORMAT_TABLE } from '../../../domain/renders/output-formats';
import { api, ApiError } from '../api-client';
import { sameOriginLink } from '../file-links';
import { StatusLine } from '../status-line';
import type { ResultDetail, ResultPage } from '../types';

const PAGE_SIZE = 10;

/** A small picture of a finished image; a glyph naming what a document or a video is; nothing while a render is pending or failed. */
const ResultThumbnail = ({ result }: { result: ResultDetail }) => {
  if (result.status !== 'done') return null;
  const kind = OUTPUT_FORMAT_TABLE[result.format as keyof typeof OUTPUT_FORMAT_TABLE]?.kind;
  if (kind === 'image') {
    return (
      <span className="result-thumb">
        <img src={sameOriginLink(result.href, window.location.origin)} alt={`Render of ${result.templateName}`} loading="lazy" decoding="async" width={64} height={48} data-thumbnail={result.identifier} />
      </span>
    );
  }
  const [glyph, what] = kind === 'document' ? ['PDF', 'PDF document'] : kind === 'video' ? ['\u25B6', `${result.format} video`] : ['?', `${result.format} file`];
  return (
    <span className="result-thumb glyph" role="img" aria-label={`${what} of ${result.templateName}`}>
      {glyph}
    </span>
  );
};

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);

/**
 * The organization's renders, newest first. The list answer carries what the spec lists (no status,
 * format or credits), so each row's detail is read too: ten small reads a page.
 */
export const ResultsPage = () => {
  const [page, setPage] = useState(0);
  const [results, setResults] = useState<{ page: ResultPage; details: readonly ResultDetail[] } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    (async () => {
      const listed = await api.json<ResultPage>('GET', `/api/v2/results?page=${page}&size=${PAGE_SIZE}`, undefined, controller.signal);
      const details = await Promise.all(
        listed.content.map((item) => api.json<ResultDetail>('GET', `/api/v2/results/${encodeURIComponent(item.identifier)}`, undefined, controller.signal)),
      );
      setResults({ page: listed, details });
      setError(null);
    })().catch((failure: unknown) => controller.signal.aborted || setError(describe(failure)));
    return () => controller.abort();
  }, [page]);

  return (
    <section aria-labelledby="results-heading">
      <h1 id="results-heading">Results</h1>
      <StatusLine error={error}>{results ? `${results.page.totalElements} renders.` : 'Loading...'}</StatusLine>
      <table>
        <thead>
          <tr>
            <th scope="col">Template</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            <th scope="col">Format</th>
            <th scope="col">Credits</th>
            <th scope="col">File</th>
            <th scope="col">Preview</th>
          </tr>
        </thead>
        <tbody>
          {results?.details.map((result) => (
            <tr key={result.identifier} data-result={result.identifier}>
              <td>{result.templateName}</td>
              <td>
                <time dateTime={result.createdAt}>{new Date(result.createdAt).toLocaleString()}</time>
              </td>
              <td>{result.status}</td>
              <td>{result.format}</td>
              <td>{result.credits}</td>
              <td>{result.status === 'done' ? <a href={sameOriginLink(result.href, window.location.origin)}>Open</a> : (result.failureReason ?? '')}</td>
              <td>
                <ResultThumbnail result={result} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav className="pager" aria-label="Result pages">
        <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Previous
        </button>
        <span>
          Page {page + 1} of {Math.max(1, results?.page.totalPages ?? 1)}
        </span>
        <button type="button" disabled={!results || page + 1 >= results.page.totalPages} onClick={() => setPage(page + 1)}>
          Next
        </button>
      </nav>
    </section>
  );
};
