import type { Logger } from 'pino';
import type { VideoFormat } from '../../../domain/templates/template-settings.js';
import { videoFrameCount } from '../../../domain/renders/video-timing.js';
import type { startBenchService } from '../../bench-service.js';
import type { ServiceApi } from '../service-api.js';

/*
 * What every section of bench:video is handed: the service under test, its REST API and the bench's
 * data folder and stops, and the videos it renders. Sections share nothing else.
 */

export const DURATION_MS = 5_000;
export const FPS = 30;
export const FRAMES = videoFrameCount(DURATION_MS, FPS);
export const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
] as const;
export type VideoSize = (typeof SIZES)[number];
export const FORMATS: readonly VideoFormat[] = ['mp4', 'webm'];

/** The frames of a 5 s video per second of `wallMs`, for a table's frames/s column. */
export const framesPerSecond = (wallMs: number) => ((FRAMES / wallMs) * 1000).toFixed(1);
/** CPU seconds spent on a 5 s video as CPU ms per frame. */
export const cpuMsPerFrame = (cpuSeconds: number) => (cpuSeconds * 1000) / FRAMES;

type BenchService = Awaited<ReturnType<typeof startBenchService>>;

export interface VideoBench {
  readonly config: BenchService['config'];
  readonly temporal: BenchService['temporal'];
  readonly apiKey: string;
  /** The service's REST API, behind an HTTP server of the bench's. */
  readonly api: ServiceApi;
  /** The service's DATA_DIR, where the bench also writes the videos it downloads. */
  readonly dataDir: string;
  readonly logger: Logger;
  /** Each start pushes its stop here; the entry stops them all in reverse, however the bench ends. */
  readonly stops: (() => Promise<unknown>)[];
}
