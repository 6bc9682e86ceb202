import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** pdfinfo's fields of a PDF file, by name (a value keeps any colon of its own). */
export const pdfinfo = async (file: string, ...flags: string[]): Promise<Record<string, string>> => {
  const { stdout } = await run('pdfinfo', [...flags, file]);
  return Object.fromEntries(stdout.split('\n').filter((line) => line.includes(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
};
