// Usage is counted and quotas are enforced per calendar month in UTC: '2025-03'.

/** The usage month `date` falls in (UTC), e.g. '2025-03'. */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** This month, the default of every usage and statement query. */
export function currentMonth(): string {
  return monthOf(new Date());
}
