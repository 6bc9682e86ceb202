import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { VideoFormat } from '../../../domain/templates/template-settings.js';
import type { ServiceApi } from '../service-api.js';
import { cpuMeter } from './cpu-meter.js';

const RENDER_TIMEOUT_MS = 300_000;
/** How often the bench polls a pending result, as a client would: the wall times are this exact. */
export const POLL_MS = 100;

const run = promisify(execFile);

/** Saves the file a result's href points at to `file`, from the service `api` calls. */
const download = async (api: ServiceApi, href: string, file: string) => {
  const url = new URL(href);
  await writeFile(file, Buffer.from(await (await fetch(`${api.baseUrl}${url.pathname}${url.search}`)).arrayBuffer()));
};

/** What ffprobe reads of a video file: its codec, the frames it decodes and its duration in seconds. */
const probe = async (file: string) => {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,nb_read_frames:format=duration', '-of', 'json', file]);
  const parsed = JSON.parse(stdout) as { streams: { codec_name: string; nb_read_frames: string }[]; format: { duration: string } };
  return { codec: parsed.streams[0]?.codec_name ?? '?', frames: Number(parsed.streams[0]?.nb_read_frames), duration: Number(parsed.format.duration) };
};

/** A video as ffprobe saw it, for a table's ffprobe column. */
export const probedCell = ({ codec, frames, duration }: Awaited<ReturnType<typeof probe>>) => `${codec} ${frames}f ${duration.toFixed(2)}s`;

/**
 * One video through REST as a client renders it: 202, then polling the result until it is done;
 * the wall time and CPU of that, then the video downloaded into `dataDir` and probed.
 */
export const renderThroughRest = async (api: ServiceApi, dataDir: string, template: string, format: VideoFormat) => {
  const stopMeter = cpuMeter();
  const started = performance.now();
  const accepted = await api.send('POST', '/api/v2/render', { template, outputFormat: format, cache: false });
  if (accepted.status !== 202) throw new Error(`expected 202, got ${accepted.status}: ${accepted.text.slice(0, 300)}`);
  const requestId = String((JSON.parse(accepted.text) as { requestId: string }).requestId);
  let detail: Record<string, unknown>;
  for (;;) {
    detail = await api.call('GET', `/api/v2/results/${requestId}`);
    if (detail.status !== 'pending') break;
    if (performance.now() - started > RENDER_TIMEOUT_MS) throw new Error(`${requestId} still pending after ${RENDER_TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
  }
  const wallMs = performance.now() - started;
  const cpu = stopMeter();
  if (detail.status !== 'done') throw new Error(`render ${requestId} ${String(detail.status)}: ${String(detail.failureReason)}`);
  const file = path.join(dataDir, `${requestId}.${format}`);
  await download(api, String(detail.href), file);
  return { requestId, wallMs, cpu, probed: await probe(file) };
};
