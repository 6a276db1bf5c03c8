// The periods of history and statistics are the platform's (`periods.ts`): the otp service counts its codes by the same rules.
export { historyRange, parseTimeBound, splitByDay, statsPeriod, utcDay, DEFAULT_STATS_DAYS } from '@smsgw/platform';
export type { CreatedRange, DaySpan, StatsPeriod, TimeBound } from '@smsgw/platform';
