import { startTelemetry } from '@smsgw/platform/telemetry';

// No generic http instrumentation: each POST is already a client span of the service's own
// (`webhook deliver`, `webhook deliver batch`) whose context the receiver gets; the instrumentation
// only added a second span per POST, and about a tenth of the service's CPU at fleet load.
startTelemetry('webhook', { http: false });
