/**
 * Bounds on every pooled connection to PostgreSQL. A network that drops packets silently (a
 * partition, a dead switch port) sends no reset: without them a new connection waits minutes for
 * TCP to give up and a query on an open one hangs as long, and so does whatever request waits on it.
 * Bounded, the caller gets an error it can report (503, retry), and keep-alive finds dead peers of
 * idle connections. No query of the service runs near `query_timeout`; long maintenance (index
 * builds of a rebuild) runs on connections of its own. Two connections of each pool stay open however
 * long the service sits idle: a request after a quiet spell would otherwise open its connections
 * again, each a new backend whose caches start cold, and the first render after the pause would be
 * the slower for it.
 */
export const CONNECTION_BOUNDS = {
  connectionTimeoutMillis: 5_000,
  query_timeout: 15_000,
  keepAlive: true,
  min: 2,
} as const;
