import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { toErrorBody } from '../../interfaces/http/error-mapping.js';

const systemError = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.2:5432`), { code });

describe('what a client sees of a thrown error', () => {
  it.each([
    ['a refused connection', systemError('ECONNREFUSED')],
    ['a host out of reach', systemError('EHOSTUNREACH')],
    ["the pg pool's connect timeout", new Error('timeout exceeded when trying to connect')],
    ["the pg driver's query timeout", new Error('Query read timeout')],
    ['a connection the server ended', new Error('Connection terminated unexpectedly')],
    ['PostgreSQL shutting down (57P01)', Object.assign(new pg.DatabaseError('terminating connection due to administrator command', 0, 'error'), { code: '57P01' })],
    ['a wrapped cause, as an ORM wraps it', new Error('Failed to load the account', { cause: systemError('ETIMEDOUT') })],
    ['one of several addresses, as Node reports them', new AggregateError([systemError('ECONNREFUSED')], 'connect failed')],
  ])('is a 503 when a backing service is out of reach: %s', (_what, error) => {
    const body = toErrorBody(error);
    expect(body.status).toBe(503);
    // The cause stays in the log: the client is told to come back, not what broke inside.
    expect(JSON.stringify(body)).not.toMatch(/10\.0\.0\.2|5432|pg|timeout exceeded/);
  });

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'href')")],
    ['a statement the server refused', Object.assign(new pg.DatabaseError('duplicate key value violates unique constraint', 0, 'error'), { code: '23505' })],
  ])('is a 500 for anything else: %s', (_what, error) => {
    expect(toErrorBody(error)).toEqual({ msg: 'Internal server error', status: 500, errors: ['An unexpected error occurred; it has been logged'] });
  });

  it('keeps a domain error as it is, even when its message reads like a lost connection', () => {
    expect(toErrorBody(new DomainError('failed', 'Connection terminated while rendering')).status).toBe(500);
  });
});
