import { startTelemetry } from '@smsgw/platform/telemetry';

// The gateway makes its own server span per request (http/middleware/tracing.ts).
startTelemetry('gateway', { http: false });
