import { print, ratio, seconds, table } from '../measure.js';
import type { CaptureRun } from './capture-encode.js';
import type { VideoRuns } from './end-to-end.js';

/** Each video end to end against the raw baseline of its size: two pages drawing its frames on demand, same run. */
export const printVsRawCapture = (videos: VideoRuns, { rawCaptureMs }: CaptureRun) => {
  print();
  print('== end to end vs raw: each video\'s wall time (POST -> done) over raw two-page capture of the same frames on demand (same run, this machine)');
  print(
    table(
      ['video', 'end to end s', 'raw capture s', 'ratio'],
      [...videos.values()].map(({ size, format, wallMs }) => {
        const raw = rawCaptureMs.get(size.height) ?? Number.NaN;
        return [`${size.height}p ${format}`, seconds(wallMs), seconds(raw), ratio(wallMs / raw)];
      }),
    ),
  );
  print('  the raw side draws frames only: no page load through the service, encoding, storing, workflow or polling');
};
