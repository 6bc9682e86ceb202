import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import pg from 'pg';
import type { Logger } from 'pino';

/**
 * Hit counters of express-rate-limit in PostgreSQL, so every API process behind a load balancer
 * counts the same requests: a fixed window per key, one upsert per request. Windows start at
 * multiples of the window length, so all processes agree on them without talking to each other.
 */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix = 'rl:';
  private windowMs = 60_000;
  private readonly pool: pg.Pool;
  private readonly ready: Promise<void>;
  private increments = 0;

  constructor(connectionString: string, private readonly logger?: Logger) {
    this.pool = new pg.Pool({ connectionString, max: 4 });
    this.pool.on('error', (error) => this.logger?.warn(`rate limit pool: ${error.message}`));
    this.ready = this.pool
      .query(
        `create table if not exists rate_limit_hits (
           key text not null, window_start bigint not null, hits integer not null,
           primary key (key, window_start))`,
      )
      .then(() => undefined);
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  private windowStart(now = Date.now()) {
    return Math.floor(now / this.windowMs) * this.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    await this.ready;
    const start = this.windowStart();
    const { rows } = await this.pool.query<{ hits: number }>(
      `insert into rate_limit_hits (key, window_start, hits) values ($1, $2, 1)
       on conflict (key, window_start) do update set hits = rate_limit_hits.hits + 1 returning hits`,
      [this.prefix + key, start],
    );
    // Past windows are of no use: swept now and then rather than on every request.
    if (++this.increments % 1000 === 0) void this.sweep(start);
    return { totalHits: rows[0]?.hits ?? 1, resetTime: new Date(start + this.windowMs) };
  }

  async decrement(key: string): Promise<void> {
    await this.ready;
    await this.pool.query('update rate_limit_hits set hits = greatest(hits - 1, 0) where key = $1 and window_start = $2', [this.prefix + key, this.windowStart()]);
  }

  async resetKey(key: string): Promise<void> {
    await this.ready;
    await this.pool.query('delete from rate_limit_hits where key = $1', [this.prefix + key]);
  }

  async shutdown(): Promise<void> {
    await this.ready.catch(() => undefined);
    await this.pool.end();
  }

  private async sweep(currentStart: number) {
    await this.pool.query('delete from rate_limit_hits where window_start < $1', [currentStart]).catch((error: Error) => this.logger?.warn(`rate limit sweep: ${error.message}`));
  }
}
