import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openApiDocument } from '../interfaces/rest/openapi.js';

/*
 * Writes the OpenAPI document the service serves at /openapi.json to a file, for tools that read
 * files: the linter and the client-types generator that `npm run check` runs.
 */
const target = path.resolve(process.argv[2] ?? 'generated/openapi.json');
await mkdir(path.dirname(target), { recursive: true });
await writeFile(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), target)}`);
