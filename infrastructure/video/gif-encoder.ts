import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import type { EncoderOptions, StreamingEncoder } from './ffmpeg-encoder.js';

/** One ffmpeg run over `inputs` with `filterGraph`, writing `output`; `register` may kill it. */
const runFfmpeg = (inputs: readonly { file: string; options: string[] }[], filterGraph: string, output: string, outputOptions: string[], register: (command: ffmpeg.FfmpegCommand) => void) =>
  new Promise<void>((resolve, reject) => {
    const command = ffmpeg();
    for (const input of inputs) command.input(input.file).inputOptions(input.options);
    command
      .complexFilter(filterGraph)
      .outputOptions(['-hide_banner', '-loglevel', 'error', ...outputOptions])
      .output(output)
      .on('end', () => resolve())
      .on('error', (error: Error) => reject(new Error(`ffmpeg failed: ${error.message}`, { cause: error })));
    register(command);
    command.run();
  });

/**
 * An animated GIF with a palette made for this video: the frames are kept on disk as captured (JPEG,
 * tens of kilobytes each) rather than decoded in memory, ffmpeg reads them once to choose the 256
 * colours that serve the whole video best, then again to map every frame onto them. Ordered
 * (Bayer) dithering keeps still areas still from frame to frame, and only the rectangle that
 * changed is written per frame, which keeps the file small. It loops forever, as GIFs on the web do.
 */
export const startGifEncoder = (options: EncoderOptions): StreamingEncoder => {
  // Beside the output: the work folder the renderer was given, not necessarily the system's.
  const folder = mkdtemp(path.join(path.dirname(options.outputPath), 'gif-frames-'));
  const framesFile = folder.then((dir) => path.join(dir, 'frames.mjpeg'));
  const frames = framesFile.then((file) => {
    const stream = createWriteStream(file);
    stream.on('error', () => {});
    return stream;
  });
  // A failure here is reported by write or finish; until one of them is called it is held, not thrown.
  frames.catch(() => {});
  const running = new Set<ffmpeg.FfmpegCommand>();
  let aborted = false;
  const crop = options.crop ? `crop=w='min(${options.crop.width},iw)':h='min(${options.crop.height},ih)':x=0:y=0,` : '';
  const input = (file: string) => ({ file, options: ['-f', 'image2pipe', '-framerate', String(options.fps), '-c:v', options.frameCodec] });
  const register = (command: ffmpeg.FfmpegCommand) => {
    running.add(command);
    command.on('start', () => {
      if (aborted) command.kill('SIGKILL');
    });
  };

  return {
    async write(frame) {
      const stream = await frames;
      if (!stream.write(frame)) await once(stream, 'drain');
    },
    async finish() {
      try {
        const stream = await frames;
        stream.end();
        await once(stream, 'finish');
        const file = await framesFile;
        const palette = path.join(await folder, 'palette.png');
        await runFfmpeg([input(file)], `[0:v]${crop}palettegen=max_colors=256:stats_mode=full[p]`, palette, ['-map', '[p]', '-frames:v', '1', '-update', '1'], register);
        await runFfmpeg(
          [input(file), { file: palette, options: [] }],
          `[0:v]${crop}null[v];[v][1:v]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle[out]`,
          options.outputPath,
          ['-map', '[out]', '-loop', '0', '-f', 'gif'],
          register,
        );
      } finally {
        await rm(await folder, { recursive: true, force: true });
      }
    },
    abort() {
      if (aborted) return;
      aborted = true;
      for (const command of running) command.kill('SIGKILL');
      void frames.then((stream) => stream.destroy()).catch(() => {});
      void folder.then((dir) => rm(dir, { recursive: true, force: true })).catch(() => {});
    },
  };
};
