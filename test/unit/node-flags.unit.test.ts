import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../../infrastructure/system/node-flags.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/** Every way the project launches a service process, as the arguments node gets before its entry point. */
const launches = (): { where: string; flags: string[] }[] => {
  const found: { where: string; flags: string[] }[] = [];
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  for (const [name, script] of Object.entries(scripts)) {
    const match = /\bnode ((?:--\S+ )*)--import \.\/infrastructure\/system\/typescript-imports\.ts interfaces\/cli\/(?:start|api|worker)\.ts/.exec(script);
    if (match) found.push({ where: `package.json ${name}`, flags: (match[1] ?? '').trim().split(' ').filter(Boolean) });
  }
  for (const file of ['Dockerfile', 'docker-compose.yml']) {
    for (const match of read(file).matchAll(/\["node", ((?:"--[^"]+", )*)"--import", "\.\/infrastructure\/system\/typescript-imports\.ts", "interfaces\/cli\/(?:start|api|worker)\.ts"\]/g)) {
      found.push({ where: file, flags: [...(match[1] ?? '').matchAll(/"([^"]+)"/g)].map((flag) => flag[1] ?? '') });
    }
  }
  return found;
};

describe('the V8 flags of service processes', () => {
  it('are passed by every launch of the service: the npm scripts, the image and compose', () => {
    const all = launches();
    expect(all.map((launch) => launch.where)).toEqual(expect.arrayContaining(['package.json start', 'package.json api', 'package.json worker', 'Dockerfile', 'docker-compose.yml']));
    for (const launch of all) expect(launch, launch.where).toEqual({ where: launch.where, flags: [...SERVICE_NODE_FLAGS] });
  });

  it('bound the young generation of this node: a new space of two 16 MB semi-spaces once it has grown (128 MB without)', () => {
    // Objects that survive make V8 grow the new space to its bound; the new space starts at 1 MB.
    const grown = "const kept = []; for (let i = 0; i < 3e6; i++) kept.push({ i }); process.stdout.write(String(require('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size))";
    const newSpaceBytes = Number(execFileSync(process.execPath, [...SERVICE_NODE_FLAGS, '-e', grown], { encoding: 'utf8' }));
    expect(newSpaceBytes).toBeGreaterThan(2 ** 20);
    expect(newSpaceBytes).toBeLessThanOrEqual(32 * 2 ** 20);
  });
});
