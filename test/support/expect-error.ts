import { expect } from 'vitest';

/** The spec's error body (msg, status, errors), with the status asked for and an error line matching `pattern`. */
export const expectError = (response: { status: number; body: any }, status: number, pattern?: RegExp) => {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ status, msg: expect.any(String), errors: expect.any(Array) });
  expect(response.body.errors.length).toBeGreaterThan(0);
  if (pattern) expect(response.body.errors.join('\n')).toMatch(pattern);
};
