import type { CDPSession, Page } from 'puppeteer-core';
import type { VideoDocument } from '../../application/ports/video-renderer.js';
import { validationError } from '../../domain/shared/errors.js';
import { LOAD_PROBE_MARGIN_MS, navigateToTemplateDocument } from '../rendering/template-document.js';
import { refuseUnfitText } from '../rendering/text-fit/fit-report.js';
import type { HostPolicy } from '../rendering/network-guard.js';
import { fitViewport } from '../rendering/page-viewport.js';
import type { VideoClips } from './video-clips.js';

export interface FramePageOptions {
  readonly hostPolicy: HostPolicy;
  readonly loadTimeoutMs: number;
  /** JPEG quality of captured frames: they are decoded again at once, so only the final encode's loss shows. */
  readonly frameQuality: number;
  /** One frame may take this long before the page counts as hung. */
  readonly frameTimeoutMs: number;
  /** The page is under begin-frame control (a framesOnDemand pool): each frame is drawn and captured by one beginFrame. */
  readonly framesOnDemand?: boolean;
  /** The render's decoded VIDEO sources, which the page shows frame by frame. */
  readonly clips?: VideoClips;
}

/** A loaded animated page that shows any instant on request. */
export interface FramePage {
  /** Poses the page for `timeMs` and captures it as a JPEG. */
  capture(timeMs: number): Promise<Buffer>;
}

/*
 * The virtual clock: the page is posed by its own `__seekFrame(t)` (the canvas contract), and every
 * CSS or Web animation is paused and set to t, so nothing on the page follows wall-clock time.
 * Runs as one CDP round trip per frame, which matters at 30 frames a second.
 */
const seekExpression = (timeMs: number) =>
  `(() => { const t = ${timeMs}; for (const animation of document.getAnimations()) { animation.pause(); animation.currentTime = t; }` +
  ` if (typeof window.__seekFrame !== 'function') return; const posed = window.__seekFrame(t);` +
  ` return posed instanceof Promise ? posed.then(() => undefined) : undefined; })()`;

const bounded = async <T>(work: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

const seek = async (session: CDPSession, timeMs: number) => {
  // Awaited: __seekFrame returns a promise while VIDEO frames decode. Only undefined comes back, so
  // whatever a template's own __seekFrame returns never has to be serialized.
  const { exceptionDetails } = await session.send('Runtime.evaluate', { expression: seekExpression(timeMs), returnByValue: true, awaitPromise: true });
  if (exceptionDetails) {
    const message = exceptionDetails.exception?.description ?? exceptionDetails.text;
    throw validationError(`The template's animation failed at ${timeMs.toFixed(1)} ms: ${message}`);
  }
};

const screenshot = async (session: CDPSession, quality: number): Promise<string> =>
  (await session.send('Page.captureScreenshot', { format: 'jpeg', quality, optimizeForSpeed: true, captureBeyondViewport: false })).data;

/** Frames asked for, DRAW_RETRY_MS apart, before one comes back with its screenshot. */
const DRAW_ATTEMPTS = 100;
const DRAW_RETRY_MS = 10;

/**
 * Draws one frame of a page under begin-frame control and captures it in the same call. Right after
 * a navigation the compositor may have no surface to show yet (for a few frames), and
 * answers without a screenshot: a later frame has it.
 */
const drawFrame = async (session: CDPSession, quality: number): Promise<string> => {
  for (let attempt = 1; attempt <= DRAW_ATTEMPTS; attempt++) {
    const { screenshotData } = await session.send('HeadlessExperimental.beginFrame', { screenshot: { format: 'jpeg', quality, optimizeForSpeed: true } });
    if (screenshotData) return screenshotData;
    await new Promise((resolve) => setTimeout(resolve, DRAW_RETRY_MS));
  }
  throw new Error(`Chromium drew ${DRAW_ATTEMPTS} frames without a screenshot of any`);
};

/** What opening a frame page may take at most: its load bound, the probes beside it and the wait. */
export const framePageOpeningMs = (document: VideoDocument, options: Pick<FramePageOptions, 'loadTimeoutMs'>) =>
  options.loadTimeoutMs + LOAD_PROBE_MARGIN_MS + document.waitTime;

/**
 * Loads the document on a pool page, the way image renders load theirs, and leaves it at t=0.
 * Frames go through the page's CDP session directly: puppeteer's screenshot adds round trips per
 * frame that a video cannot afford.
 */
export const openFramePage = async (page: Page, session: CDPSession, document: VideoDocument, options: FramePageOptions): Promise<FramePage> => {
  await options.hostPolicy.guardPage(page);
  await fitViewport(page, { width: document.width, height: document.height, deviceScaleFactor: document.scaleFactor });
  // Text is fitted once, as the document loads, and every frame draws it as fitted.
  const navigate = async () => refuseUnfitText(await navigateToTemplateDocument(page, session, document.html, options.loadTimeoutMs));
  await (options.clips ? options.clips.loadWith(page, navigate) : navigate());
  if (document.waitTime > 0) await new Promise((resolve) => setTimeout(resolve, document.waitTime));
  return {
    async capture(timeMs) {
      const frame = async () => {
        await seek(session, timeMs);
        return Buffer.from(await (options.framesOnDemand ? drawFrame(session, options.frameQuality) : screenshot(session, options.frameQuality)), 'base64');
      };
      return bounded(frame(), options.frameTimeoutMs, `the frame at ${timeMs.toFixed(1)} ms`);
    },
  };
};
