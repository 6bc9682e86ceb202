import { CaptureResponse, PdfBody, ScreenshotBody } from '../../schemas/v1-schemas.js';
import { operation } from '../operation.js';

export const takeScreenshot = operation({
  id: 'takeScreenshot',
  method: 'post',
  path: '/api/v1/screenshots',
  tags: ['captures'],
  summary: 'Screenshot a web page: an image of exactly width x height, or of the whole page (fullPage) or one element (selector)',
  input: { body: ScreenshotBody },
  answer: { description: 'requestId, href and the request as sent', schema: CaptureResponse },
  call: ({ captures }, context, { body }) => captures.capture(context, { kind: 'screenshot', ...body }),
});

export const printPdf = operation({
  id: 'printPdf',
  method: 'post',
  path: '/api/v1/pdf',
  tags: ['captures'],
  summary: 'Print a web page to PDF on the given paper size',
  input: { body: PdfBody },
  answer: { description: 'requestId, href and the request as sent', schema: CaptureResponse },
  call: ({ captures }, context, { body }) => captures.capture(context, { kind: 'pdf', ...body }),
});
