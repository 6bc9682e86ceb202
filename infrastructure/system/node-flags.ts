import { fileURLToPath } from 'node:url';

/**
 * V8 flags every service process is launched with: package.json's start, api and worker scripts, the
 * image's CMD, docker-compose's commands and the benches' npm start (scripts/bench/npm-start-service.ts); test/unit/node-flags.unit.test.ts checks the first four.
 *
 * --max-semi-space-size=16: young generations of 16 MB semi-spaces. Left to itself V8 sizes them from
 * the heap limit, several times larger, in each isolate: the main thread's and the Temporal workflow
 * thread's, whose old space also climbs a long way between collections. Pages V8 frees stay mapped,
 * so the process's RSS followed the highest sum of both heaps yet reached and kept creeping up under
 * a steady load (bench:soak). With 16 MB semi-spaces V8's resident pages stay flat after the warm-up
 * and the process's RSS is much smaller.
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=16'] as const;

/** What lets node run the TypeScript sources (typescript-imports.ts): for the threads and processes the service starts. */
export const TYPESCRIPT_FLAGS = ['--import', fileURLToPath(new URL('./typescript-imports.ts', import.meta.url))] as const;
