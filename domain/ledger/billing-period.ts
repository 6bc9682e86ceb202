/** Adds one calendar month to a yyyy-MM-dd date, clamping to the month's last day (Jan 31 -> Feb 28). */
export const addMonth = (date: string): string => {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(day, lastDay))).toISOString().slice(0, 10);
};

/** The first renewal date after `today` (both yyyy-MM-dd), stepping monthly from `nextRenewalAt`. */
export const renewalAfter = (nextRenewalAt: string, today: string): string => {
  let next = nextRenewalAt;
  while (next <= today) next = addMonth(next);
  return next;
};

/** A period ends on its renewal date: the first charge on or after it opens the next period. */
export const isRenewalDue = (nextRenewalAt: string, today: string): boolean => nextRenewalAt <= today;

/**
 * Credits a charge made `today` can use: the renewal amount when the period is due to renew (the
 * charge renews it first), else what is left of the current period.
 */
export const creditsAvailable = (
  account: { readonly nextRenewalAt: string; readonly renewalAmount: number; readonly creditsTotal: number; readonly creditsUsed: number },
  today: string,
): number => (isRenewalDue(account.nextRenewalAt, today) ? account.renewalAmount : account.creditsTotal - account.creditsUsed);

/** A billing period as a charge needs it: the date it renews on (its ledger stream's name) and the credits it allows. */
export interface BillingPeriod {
  readonly endsAt: string;
  readonly credits: number;
}

/**
 * The period `today` (yyyy-MM-dd) falls in: the first, up to the plan's first renewal, allows the
 * plan's credits; every later one, a calendar month long, its renewal amount.
 */
export const periodOn = (
  plan: { readonly credits: number; readonly renewalAmount: number; readonly nextRenewalAt: string },
  today: string,
): BillingPeriod =>
  isRenewalDue(plan.nextRenewalAt, today)
    ? { endsAt: renewalAfter(plan.nextRenewalAt, today), credits: plan.renewalAmount }
    : { endsAt: plan.nextRenewalAt, credits: plan.credits };
