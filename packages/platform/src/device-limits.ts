/**
 * A phone's limits when none are set (devicehub.DeviceLimits): no count limit, the hub's default
 * pause, any hour, UTC. What the hub, the dashboard and the admin tool start from.
 */
export const NO_DEVICE_LIMITS = Object.freeze({
  perMinute: 0,
  perHour: 0,
  perDay: 0,
  minIntervalMs: 0,
  maxIntervalMs: 0,
  sendingHoursStart: '',
  sendingHoursEnd: '',
  timeZone: '',
});
