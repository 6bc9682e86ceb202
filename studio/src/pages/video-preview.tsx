import { useEffect, useRef, useState } from 'react';
import { OUTPUT_FORMAT_TABLE, OUTPUT_FORMATS } from '../../../domain/renders/output-formats';
import { api, ApiError } from '../api-client';
import { sameOriginLink } from '../file-links';
import { StatusLine } from '../status-line';
import type { RenderAccepted, ResultDetail, Template } from '../types';

const POLL_MS = 700;
/** A <video> element plays video/* files; an animated GIF template is previewed as mp4. */
const playable = (format: string) => OUTPUT_FORMATS.some((known) => known === format && OUTPUT_FORMAT_TABLE[known].contentType.startsWith('video/'));

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);

/**
 * Renders the saved template as a video the way a client would (202, then the result polled until
 * it is done), showing the frames captured so far, and plays it when it is there. It names the
 * version just saved, since a render without one draws the published version.
 */
export const VideoPreview = ({ template, beforeRender, latestVersion }: { template: Template; beforeRender: () => Promise<void>; latestVersion: () => number }) => {
  const format = playable(template.outputFormat) ? template.outputFormat : 'mp4';
  const [result, setResult] = useState<ResultDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const stopped = useRef<AbortController | null>(null);

  useEffect(() => () => stopped.current?.abort(), []);

  const start = async () => {
    stopped.current?.abort();
    const controller = new AbortController();
    stopped.current = controller;
    setRunning(true);
    setError(null);
    setResult(null);
    try {
      await beforeRender();
      const accepted = await api.json<RenderAccepted>('POST', '/api/v2/render', { template: template.identifier, templateVersion: latestVersion(), outputFormat: format }, controller.signal);
      for (;;) {
        const detail = await api.json<ResultDetail>('GET', `/api/v2/results/${encodeURIComponent(accepted.requestId)}`, undefined, controller.signal);
        setResult(detail);
        if (detail.status !== 'pending') break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        if (controller.signal.aborted) return;
      }
    } catch (failure) {
      if (!controller.signal.aborted) setError(describe(failure));
    } finally {
      if (!controller.signal.aborted) setRunning(false);
    }
  };

  const progress = result?.progress;
  return (
    <section className="video-preview" aria-labelledby="video-heading">
      <h2 id="video-heading">Video</h2>
      <button type="button" onClick={() => void start()} disabled={running}>
        Render {format} ({template.recordDuration ?? 5000} ms)
      </button>
      {running && (
        <p>
          <label htmlFor="video-progress">Rendering: </label>
          <progress id="video-progress" max={progress?.framesTotal ?? 1} value={progress?.framesDone ?? 0} />{' '}
          {progress ? `${progress.framesDone} of ${progress.framesTotal} frames` : 'waiting for a worker'}
        </p>
      )}
      <StatusLine error={error ?? (result?.status === 'failed' ? `The render failed: ${result.failureReason ?? 'no reason given'}` : null)}>
        {result?.status === 'done' ? `Done: ${result.credits} credits.` : null}
      </StatusLine>
      {result?.status === 'done' && <video src={sameOriginLink(result.href, window.location.origin)} controls autoPlay muted loop playsInline data-testid="video" width={Math.min(640, template.width)} />}
    </section>
  );
};
