import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import ffmpeg from 'fluent-ffmpeg';
import type { VideoFormat } from '../../domain/renders/output-formats.js';

export type FrameCodec = 'mjpeg' | 'png';

export interface EncoderOptions {
  readonly format: VideoFormat;
  readonly fps: number;
  /** How the frames written are compressed: JPEG from the browser is cheap to make and to decode. */
  readonly frameCodec: FrameCodec;
  /** Template quality, 10-100, mapped to the codec's constant-quality scale. */
  readonly quality: number;
  /** Cut from the top-left corner of every frame, in frame pixels. */
  readonly crop: { readonly width: number; readonly height: number } | null;
  /** A seekable file: MP4's faststart rewrites it once the frames are in. */
  readonly outputPath: string;
  /** x264 speed/size trade-off; faster presets leave more CPU to the capture on small machines. */
  readonly x264Preset?: string;
}

export interface StreamingEncoder {
  /** Resolves once ffmpeg can take another frame; rejects when ffmpeg has failed. */
  write(frame: Buffer): Promise<void>;
  /** Ends the input; resolves when ffmpeg has written the whole file. */
  finish(): Promise<void>;
  /** Kills ffmpeg; `finish` and pending writes reject. */
  abort(): void;
}

const lerp = (quality: number, best: number, worst: number) => Math.round(worst + ((best - worst) * (quality - 10)) / 90);

/*
 * Frames arrive as full-range BT.601 JPEG (or RGB PNG); players assume limited range, so the range
 * is converted. The BT.601 matrix is kept and tagged rather than converted to BT.709: players honour
 * the tag, and a matrix conversion is a large share of ffmpeg's time per 1080p frame. Both codecs
 * need even sizes in yuv420p: an odd edge gains one pixel of padding rather than losing content.
 */
const filtersFor = (crop: EncoderOptions['crop']) => [
  ...(crop ? [`crop=w='min(${crop.width},iw)':h='min(${crop.height},ih)':x=0:y=0`] : []),
  'pad=ceil(iw/2)*2:ceil(ih/2)*2',
  'scale=out_range=tv',
  'format=yuv420p',
];

const COLOUR_TAGS = ['-colorspace', 'smpte170m', '-color_primaries', 'bt709', '-color_trc', 'iec61966-2-1', '-color_range', 'tv'];

/*
 * x264's veryfast with the cheapest motion search (diamond, one refinement): motion graphics move
 * in straight lines that it finds as well, for less encoding CPU and slightly larger files at the
 * same quality, which is what lets 1080p encode beside its capture in real time on two cores.
 */
const codecOptions = ({ format, quality, x264Preset = 'veryfast' }: EncoderOptions): string[] =>
  format === 'mp4'
    ? ['-c:v', 'libx264', '-preset', x264Preset, '-x264-params', 'me=dia:subme=1', '-crf', String(lerp(quality, 18, 40)), '-movflags', '+faststart']
    : // Realtime VP9 with row threading: the slower modes encode 1080p far slower than real time.
      ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1', '-crf', String(lerp(quality, 24, 50)), '-b:v', '0'];

/**
 * ffmpeg through fluent-ffmpeg, fed frame by frame on stdin: frames never touch the disk. Not for
 * a GIF, which needs every frame before its palette: gif-encoder.ts.
 */
export const startEncoder = (options: EncoderOptions): StreamingEncoder => {
  const input = new PassThrough({ highWaterMark: 8 * 1024 * 1024 });
  // A broken pipe surfaces as ffmpeg's own failure below; unhandled here it would end the process.
  input.on('error', () => {});
  let aborted = false;
  const command = ffmpeg(input)
    .inputFormat('image2pipe')
    .inputOptions(['-framerate', String(options.fps), '-c:v', options.frameCodec])
    .videoFilters(filtersFor(options.crop))
    .outputOptions(['-hide_banner', '-loglevel', 'error', ...codecOptions(options), ...COLOUR_TAGS, '-an'])
    .format(options.format)
    .output(options.outputPath);
  const done = new Promise<void>((resolve, reject) => {
    command.on('end', () => resolve());
    command.on('error', (error: Error) => reject(new Error(`ffmpeg failed: ${error.message}`, { cause: error })));
  });
  done.catch(() => {});
  // fluent-ffmpeg spawns ffmpeg only after probing its capabilities: an abort may come first.
  command.on('start', () => {
    if (aborted) command.kill('SIGKILL');
  });
  command.run();

  return {
    async write(frame) {
      if (input.write(frame)) return;
      await Promise.race([once(input, 'drain'), done.then(() => Promise.reject(new Error('ffmpeg ended before its input did')))]);
    },
    async finish() {
      input.end();
      await done;
    },
    abort() {
      if (aborted) return;
      aborted = true;
      command.kill('SIGKILL');
      input.destroy();
    },
  };
};

export interface ProbedVideo {
  readonly width: number;
  readonly height: number;
  readonly durationSeconds: number;
}

/** Size and duration of an encoded file, as ffprobe reads them. */
export const probeVideo = (file: string): Promise<ProbedVideo> =>
  new Promise((resolve, reject) => {
    ffmpeg.ffprobe(file, (error: Error | null, data) => {
      if (error) return reject(error);
      const video = data.streams.find((stream) => stream.codec_type === 'video');
      if (!video?.width || !video.height) return reject(new Error(`no video stream in ${file}`));
      resolve({ width: video.width, height: video.height, durationSeconds: Number(data.format.duration) });
    });
  });
