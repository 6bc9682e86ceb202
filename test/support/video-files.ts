import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ProbedVideoFile {
  readonly codec: string;
  readonly pixelFormat: string;
  readonly width: number;
  readonly height: number;
  /** Frames counted by decoding the whole stream, not what the container claims. */
  readonly frames: number;
  readonly duration: number;
}

/** What ffprobe finds in a video file, frames counted by decoding. */
export const probeVideoFile = async (file: string): Promise<ProbedVideoFile> => {
  const { stdout } = await run('ffprobe', [
    '-v', 'error', '-count_frames', '-select_streams', 'v:0',
    '-show_entries', 'stream=codec_name,pix_fmt,width,height,nb_read_frames:format=duration', '-of', 'json', file,
  ]);
  const parsed = JSON.parse(stdout) as { streams: Record<string, string | number>[]; format: { duration: string } };
  const stream = parsed.streams[0] ?? {};
  return {
    codec: String(stream.codec_name),
    pixelFormat: String(stream.pix_fmt),
    width: Number(stream.width),
    height: Number(stream.height),
    frames: Number(stream.nb_read_frames),
    duration: Number(parsed.format.duration),
  };
};

/** Every frame decoded to packed RGB, as a player would show it. */
export const decodeVideoFrames = async (file: string, width: number, height: number): Promise<Buffer[]> => {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    encoding: 'buffer',
    maxBuffer: 512 * 1024 * 1024,
  });
  const size = width * height * 3;
  return Array.from({ length: stdout.length / size }, (_, index) => stdout.subarray(index * size, (index + 1) * size));
};

/** The RGB of one pixel of a decoded frame. */
export const pixelAt = (frame: Buffer, width: number, x: number, y: number): [number, number, number] => {
  const offset = (y * width + x) * 3;
  return [frame[offset] ?? 0, frame[offset + 1] ?? 0, frame[offset + 2] ?? 0];
};

/**
 * Peak signal-to-noise ratio of `file` against `reference`, frame by frame, as ffmpeg's psnr filter
 * measures it: the mean over frames, and the worst frame (Infinity for identical frames).
 */
export const psnrBetween = async (file: string, reference: string): Promise<{ average: number; min: number }> => {
  const { stderr } = await run('ffmpeg', ['-hide_banner', '-i', file, '-i', reference, '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-'], { maxBuffer: 64 * 1024 * 1024 });
  const summary = /PSNR .*average:(\S+) min:(\S+)/.exec(stderr);
  if (!summary) throw new Error(`ffmpeg printed no PSNR summary:\n${stderr}`);
  const value = (text: string | undefined) => (text === 'inf' ? Infinity : Number(text));
  return { average: value(summary[1]), min: value(summary[2]) };
};
