/** How long the file of a test key's render or capture stays reachable (its href expires then). */
export const TEST_RESULT_SECONDS = 86_400;

/** A test request keeps its file at most a day, and less when it asked for less. */
export const testExpiry = (expires: number | null): number => Math.min(expires ?? TEST_RESULT_SECONDS, TEST_RESULT_SECONDS);
