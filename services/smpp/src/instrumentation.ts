import { startTelemetry } from '@smsgw/platform/telemetry';

startTelemetry('smpp');
