import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ColourSpan {
  /** An ffmpeg colour: a name or 0xRRGGBB. */
  readonly colour: string;
  readonly seconds: number;
}

/**
 * Writes an H.264 mp4 of solid colours one after the other (e.g. red for 0.5 s, then lime): which
 * colour a rendered frame shows tells which instant of the source it is.
 */
export const writeColourVideo = async (file: string, spans: readonly ColourSpan[], size = '160x90', fps = 25): Promise<void> => {
  const inputs = spans.flatMap(({ colour, seconds }) => ['-f', 'lavfi', '-i', `color=c=${colour}:s=${size}:r=${fps}:d=${seconds}`]);
  const joined = `${spans.map((_, index) => `[${index}:v]`).join('')}concat=n=${spans.length}:v=1:a=0[out]`;
  await run('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', joined, '-map', '[out]', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file]);
};
