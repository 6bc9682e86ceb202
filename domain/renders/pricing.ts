import { isVideoFormat, type OutputFormat } from '../templates/template-settings.js';

const CREDITS_PER_VIDEO_SECOND = 10;
const CREDITS_PER_IMAGE = 1;

/** Spec section 4: 1 credit per image or PDF; 10 per started second of video; nothing for a cached file. */
export const renderCost = (format: OutputFormat, durationMs: number | null, cached: boolean): number => {
  if (cached) return 0;
  if (isVideoFormat(format)) return CREDITS_PER_VIDEO_SECOND * Math.ceil((durationMs ?? 0) / 1000);
  return CREDITS_PER_IMAGE;
};
