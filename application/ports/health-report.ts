/** What /healthz and /readyz answer: whether the process can serve, and each dependency's check. */
export interface HealthReport {
  readonly ok: boolean;
  readonly checks: Record<string, { ok: boolean; detail?: string }>;
}
