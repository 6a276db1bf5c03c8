import { startTelemetry } from '@smsgw/platform/telemetry';

startTelemetry('device-hub');
