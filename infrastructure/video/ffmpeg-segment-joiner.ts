import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import type { RenderedFile } from '../../application/ports/render-engine.js';
import type { VideoJoiner } from '../../application/ports/video-renderer.js';
import { outputContentType, type VideoFormat } from '../../domain/renders/output-formats.js';
import { probeVideo } from './ffmpeg-encoder.js';

export interface SegmentJoinerOptions {
  /** Where the segments and the joined file are written while ffmpeg works. */
  readonly workDir?: string;
}

/** Runs ffmpeg's concat demuxer over the listed files, copying the streams into `output`. */
const concatenate = (listFile: string, output: string, format: VideoFormat) =>
  new Promise<void>((resolve, reject) => {
    ffmpeg(listFile)
      .inputOptions(['-f', 'concat', '-safe', '0'])
      .outputOptions(['-hide_banner', '-loglevel', 'error', '-c', 'copy', ...(format === 'mp4' ? ['-movflags', '+faststart'] : [])])
      .format(format)
      .output(output)
      .on('end', () => resolve())
      .on('error', (error: Error) => reject(new Error(`ffmpeg could not join the video's segments: ${error.message}`, { cause: error })))
      .run();
  });

/**
 * Joins segments with ffmpeg's concat demuxer and a stream copy: every segment was encoded on its
 * own and starts on a key frame, so the joined file decodes to exactly the segments' frames, and
 * joining costs a remux, not an encode.
 */
export const createFfmpegSegmentJoiner = (options: SegmentJoinerOptions = {}): VideoJoiner => ({
  async join(segments: readonly Buffer[], format: VideoFormat): Promise<RenderedFile> {
    if (segments.length === 0) throw new Error('a video needs at least one segment');
    const folder = path.join(options.workDir ?? os.tmpdir(), `video-join-${randomUUID()}`);
    await mkdir(folder, { recursive: true });
    try {
      const files = segments.map((_, index) => path.join(folder, `segment-${index}.${format}`));
      await Promise.all(segments.map((segment, index) => writeFile(files[index] as string, segment)));
      // Paths are ours (a fresh folder and fixed names), so quoting them for the list is safe.
      const listFile = path.join(folder, 'segments.txt');
      await writeFile(listFile, files.map((file) => `file '${file}'\n`).join(''));
      const output = path.join(folder, `joined.${format}`);
      await concatenate(listFile, output, format);
      const probed = await probeVideo(output);
      return { content: await readFile(output), contentType: outputContentType(format), width: probed.width, height: probed.height };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  },
});
