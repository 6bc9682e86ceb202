import busboy from 'busboy';
import type { Request } from 'express';
import { validationError } from '../../domain/shared/errors.js';

export interface MultipartFile {
  readonly content: Buffer;
  /** The form's text fields, by name (the last value of a repeated one). */
  readonly fields: Readonly<Record<string, string>>;
}

export interface MultipartLimits {
  /** The form field that carries the file. */
  readonly fileField: string;
  /** Bytes the file may have; one more and the upload is refused without reading the rest. */
  readonly maxBytes: number;
  /** Text fields the form may carry besides the file. */
  readonly textFields: readonly string[];
}

const MAX_FIELD_BYTES = 1024;

/**
 * Reads one file from a multipart/form-data body, bounded as it streams in: a body over the limit,
 * without the file, with a second file or with fields not asked for is a 400 naming the problem.
 */
export const readMultipartFile = (req: Request, limits: MultipartLimits): Promise<MultipartFile> =>
  new Promise((resolve, reject) => {
    if (!req.is('multipart/form-data')) {
      reject(validationError('The body must be multipart/form-data', [`body: send the file as the form field "${limits.fileField}" of a multipart/form-data body`]));
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: limits.maxBytes, fields: limits.textFields.length + 1, fieldSize: MAX_FIELD_BYTES, parts: limits.textFields.length + 2 },
      });
    } catch (error) {
      reject(validationError(`The multipart body cannot be read: ${(error as Error).message}`));
      return;
    }
    const fields: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let sawFile = false;
    let settled = false;
    // The answer goes out at once; the rest of the body is read and dropped so the connection stays usable.
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume();
      reject(error);
    };

    parser.on('file', (name, stream) => {
      if (name !== limits.fileField || sawFile) {
        stream.resume();
        fail(validationError(`Unexpected file field "${name}"`, [`${name}: send exactly one file, as the field "${limits.fileField}"`]));
        return;
      }
      sawFile = true;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(validationError(`The file is larger than ${limits.maxBytes} bytes`, [`${limits.fileField}: at most ${limits.maxBytes} bytes`])));
    });
    parser.on('field', (name, value, info) => {
      if (!limits.textFields.includes(name)) fail(validationError(`Unexpected form field "${name}"`, [`${name}: not a field of this form; it takes ${[limits.fileField, ...limits.textFields].join(', ')}`]));
      else if (info.valueTruncated) fail(validationError(`The form field "${name}" is too long`, [`${name}: at most ${MAX_FIELD_BYTES} bytes`]));
      else fields[name] = value;
    });
    const tooMany = () => fail(validationError('The form has too many parts', [`body: one file (${limits.fileField}) and the fields ${limits.textFields.join(', ') || '(none)'}`]));
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', (error: Error) => fail(validationError(`The multipart body cannot be read: ${error.message}`)));
    parser.on('close', () => {
      if (!sawFile) fail(validationError('The form has no file', [`${limits.fileField}: required`]));
      if (settled) return;
      settled = true;
      resolve({ content: Buffer.concat(chunks), fields });
    });
    req.on('aborted', () => fail(validationError('The upload was cut off')));
    req.pipe(parser);
  });
