import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Where the Temporal CLI is, in the order an operator would expect to override it: an explicit
 * TEMPORAL_CLI, then PATH, then where `go install` puts it (the setup step builds it there, and
 * that folder is often not on PATH).
 */
export function findTemporalBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env['TEMPORAL_CLI'];
  if (explicit) return isExecutable(explicit) ? explicit : undefined;
  const candidates = [
    ...(env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, 'temporal')),
    ...(env['GOPATH'] ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, 'bin', 'temporal')),
    join(homedir(), 'go', 'bin', 'temporal'),
  ];
  return candidates.find(isExecutable);
}

export function requireTemporalBinary(env: NodeJS.ProcessEnv = process.env): string {
  const found = findTemporalBinary(env);
  if (found) return found;
  throw new Error(
    env['TEMPORAL_CLI']
      ? `TEMPORAL_CLI=${env['TEMPORAL_CLI']} is not an executable file`
      : 'Temporal CLI not found (looked at TEMPORAL_CLI, PATH, $GOPATH/bin, ~/go/bin); run `npm run setup` or set TEMPORAL_ADDRESS',
  );
}
