import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import pg from 'pg';
import type { Logger } from 'pino';
import { CONNECTION_BOUNDS } from '../postgres/connection-bounds.js';
import { reportPoolErrors } from '../postgres/pool-errors.js';

/** Counts of one key in the current window, as far as this process holds them. */
interface KeyWindow {
  readonly windowStart: number;
  /** The shared count after this process's last claim (its unused tokens included). */
  claimedTotal: number;
  /** Tokens this process claimed and has not used yet. */
  unused: number;
  /** The claim in flight, which every request of the key arriving meanwhile waits for. */
  claiming: Promise<void> | null;
}

/** Requests a key's limit is divided by to size a claim: a process holds at most this share of what is left. */
const CLAIM_SHARE = 32;
const MAX_CLAIM = 1_000;

/**
 * Hit counters of express-rate-limit in PostgreSQL, so every API process behind a load balancer
 * counts the same requests: a fixed window per key. Windows start at multiples of the window
 * length, so all processes agree on them without talking to each other.
 *
 * A process does not write every request: it claims tokens in blocks, one upsert per block, and
 * answers from memory until the block is used up. A block is a 1/32 share of what is left of the
 * key's limit, so far from the limit a busy key costs one round trip per many requests, and near it
 * each request claims one token and is counted exactly. Claimed tokens count as used for every
 * other process: the shared count never lets a key exceed its limit; a process that stops holding
 * a block can only refuse a key early, by at most its share.
 */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix = 'rl:';
  private windowMs = 60_000;
  private readonly pool: pg.Pool;
  private readonly ready: Promise<void>;
  private readonly windows = new Map<string, KeyWindow>();
  private claims = 0;

  /** `limitOf(key)` is the limit the key is held to (0: none), which sizes its claims. */
  private readonly limitOf: (key: string) => Promise<number>;
  private readonly logger: Logger | undefined;

  constructor(connectionString: string, limitOf: (key: string) => Promise<number>, logger?: Logger) {
    this.limitOf = limitOf;
    this.logger = logger;
    this.pool = new pg.Pool({ connectionString, max: 4, ...CONNECTION_BOUNDS });
    reportPoolErrors(this.pool, (message) => this.logger?.warn(`rate limit pool: ${message}`));
    // Processes starting together on a fresh database would collide creating the table: the lock orders them.
    this.ready = this.pool
      .query(
        `begin;
         select pg_advisory_xact_lock(hashtext('rate_limit_hits'));
         create table if not exists rate_limit_hits (
           key text not null, window_start bigint not null, hits integer not null,
           primary key (key, window_start));
         commit`,
      )
      .then(() => undefined);
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  private windowStart(now = Date.now()) {
    return Math.floor(now / this.windowMs) * this.windowMs;
  }

  private windowOf(key: string, start: number): KeyWindow {
    const known = this.windows.get(key);
    if (known?.windowStart === start) return known;
    const fresh: KeyWindow = { windowStart: start, claimedTotal: 0, unused: 0, claiming: null };
    this.windows.set(key, fresh);
    return fresh;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    await this.ready;
    const start = this.windowStart();
    const resetTime = new Date(start + this.windowMs);
    for (;;) {
      const window = this.windowOf(key, start);
      if (window.unused > 0) {
        window.unused--;
        return { totalHits: window.claimedTotal - window.unused, resetTime };
      }
      window.claiming ??= this.claim(key, window).finally(() => {
        window.claiming = null;
      });
      await window.claiming;
    }
  }

  /** Claims the key's next block: one upsert, whose answer is the shared count with the block in it. */
  private async claim(key: string, window: KeyWindow) {
    const limit = await this.limitOf(key);
    const left = limit - window.claimedTotal;
    const size = Math.max(1, Math.min(MAX_CLAIM, Math.floor(left / CLAIM_SHARE)));
    const { rows } = await this.pool.query<{ hits: number }>(
      `insert into rate_limit_hits (key, window_start, hits) values ($1, $2, $3)
       on conflict (key, window_start) do update set hits = rate_limit_hits.hits + $3 returning hits`,
      [this.prefix + key, window.windowStart, size],
    );
    window.claimedTotal = rows[0]?.hits ?? size;
    window.unused += size;
    // Past windows are of no use: swept now and then rather than on every claim.
    if (++this.claims % 1000 === 0) void this.sweep(window.windowStart);
  }

  async decrement(key: string): Promise<void> {
    // A request that no longer counts gives its token back to this process's block.
    const window = this.windows.get(key);
    if (window?.windowStart === this.windowStart()) window.unused++;
  }

  async resetKey(key: string): Promise<void> {
    await this.ready;
    this.windows.delete(key);
    await this.pool.query('delete from rate_limit_hits where key = $1', [this.prefix + key]);
  }

  async shutdown(): Promise<void> {
    await this.ready.catch(() => undefined);
    await this.pool.end();
  }

  private async sweep(currentStart: number) {
    for (const [key, window] of this.windows) if (window.windowStart < currentStart) this.windows.delete(key);
    await this.pool.query('delete from rate_limit_hits where window_start < $1', [currentStart]).catch((error: Error) => this.logger?.warn(`rate limit sweep: ${error.message}`));
  }
}
