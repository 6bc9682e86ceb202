import os from 'node:os';
import type { Client } from '@temporalio/client';
import type { VideoFormat } from '../../../domain/templates/template-settings.js';
import { print, ratio, seconds, table } from '../measure.js';
import { historyMs, workflowEvents } from '../workflow-history.js';
import { cpuTotal } from './cpu-meter.js';
import { motionGraphics } from './motion-graphics.js';
import { POLL_MS, probedCell, renderThroughRest } from './rest-render.js';
import { DURATION_MS, FORMATS, FPS, FRAMES, framesPerSecond, SIZES, type VideoBench, type VideoSize } from './video-context.js';

/*
 * The 5 s canvas-html videos end to end through REST, at each size and format, as a client renders
 * them: the wall time, the produceVideo activity's share of it, and the CPU of each program.
 */

export interface VideoRun extends Awaited<ReturnType<typeof renderThroughRest>> {
  readonly size: VideoSize;
  readonly format: VideoFormat;
  /** How long the produceVideo activity ran (capture + encode + store). */
  readonly produceMs: number;
}

/** The videos by `${height}/${format}` (videoKey), in the order they were rendered. */
export type VideoRuns = ReadonlyMap<string, VideoRun>;
export const videoKey = (height: number, format: VideoFormat) => `${height}/${format}`;

/** How long the produceVideo activity ran, from the workflow's history. */
const produceMs = async (client: Client, requestId: string) => {
  const events = await workflowEvents(client, requestId);
  const started = events.find((event) => event.activityTaskStartedEventAttributes);
  const completed = events.find((event) => event.activityTaskCompletedEventAttributes);
  return historyMs(completed?.eventTime) - historyMs(started?.eventTime);
};

/** A template of the motion graphics at each size, then a warm-up video of each format and every size and format measured. */
export const measureEndToEnd = async ({ api, dataDir, temporal }: VideoBench): Promise<VideoRuns> => {
  const templates = new Map<number, string>();
  for (const size of SIZES) {
    const created = await api.call('POST', '/api/v2/my-templates', { name: `Bench ${size.height}p`, ...size, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: DURATION_MS, fps: FPS });
    await api.call('PUT', `/api/v2/my-templates/${String(created.identifier)}/components`, motionGraphics(size));
    templates.set(size.height, String(created.identifier));
  }

  const renderVideo = async (size: VideoSize, format: VideoFormat): Promise<VideoRun> => {
    const rendered = await renderThroughRest(api, dataDir, templates.get(size.height) ?? '', format);
    return { ...rendered, size, format, produceMs: await produceMs(temporal.client, rendered.requestId) };
  };

  print('warming up (one small video of each format)');
  for (const format of FORMATS) await renderVideo(SIZES[0], format);

  const runs = new Map<string, VideoRun>();
  for (const size of SIZES) {
    for (const format of FORMATS) {
      runs.set(videoKey(size.height, format), await renderVideo(size, format));
      print(`  ${size.height}p ${format} done`);
    }
  }
  return runs;
};

export const printEndToEnd = (runs: VideoRuns) => {
  print();
  print(`== end-to-end through REST: ${DURATION_MS / 1000} s at ${FPS} fps (${FRAMES} frames), POST -> result done (polled every ${POLL_MS} ms)`);
  print(
    table(
      ['video', 'wall s', 'x real time', 'produce s', 'frames/s', 'cpu chromium', 'cpu ffmpeg', 'cpu node', 'cpu s / cores', 'ffprobe'],
      [...runs.values()].map(({ size, format, wallMs, produceMs, cpu, probed }) => [
        `${size.width}x${size.height} ${format}`,
        seconds(wallMs),
        ratio(wallMs / DURATION_MS),
        seconds(produceMs),
        framesPerSecond(wallMs),
        cpu.chromium.toFixed(1),
        cpu.ffmpeg.toFixed(1),
        cpu.node.toFixed(1),
        (cpuTotal(cpu) / os.cpus().length).toFixed(2),
        probedCell(probed),
      ]),
    ),
  );
  print('  produce = the produceVideo activity (capture + encode + store); cpu s / cores = the wall time of the same work on an idle machine');
};
