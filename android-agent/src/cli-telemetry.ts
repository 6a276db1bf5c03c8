// The simulator's battery and the telemetry pace on the command line (protocol 6): --sim-battery,
// --sim-unplugged, --sim-battery-drain, --telemetry-sample-ms and their SMSGW_AGENT_* variables.
import { envFlag, milliseconds } from './cli-values';
import { UsageError } from './errors';

/** What parseArgs read of these options. */
interface TelemetryValues {
  'sim-battery'?: string;
  'sim-unplugged'?: boolean;
  'sim-battery-drain'?: string;
  'telemetry-sample-ms'?: string;
}

/** A whole number from 0 to 100; unset or empty: undefined. */
function percent(value: string | undefined, flag: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) > 100) {
    throw new UsageError(`${flag} takes a whole number from 0 to 100, not ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** The options, checked; UsageError for a bad value or a battery option with another driver than the simulator. */
export function telemetryOptions(values: TelemetryValues, env: NodeJS.ProcessEnv, driver: string) {
  const battery = percent(values['sim-battery'] ?? env.SMSGW_AGENT_SIM_BATTERY, '--sim-battery (or SMSGW_AGENT_SIM_BATTERY)');
  const unplugged = values['sim-unplugged'] ?? envFlag(env.SMSGW_AGENT_SIM_UNPLUGGED, 'SMSGW_AGENT_SIM_UNPLUGGED');
  const drain = percent(
    values['sim-battery-drain'] ?? env.SMSGW_AGENT_SIM_BATTERY_DRAIN,
    '--sim-battery-drain (or SMSGW_AGENT_SIM_BATTERY_DRAIN)',
  );
  if (driver !== 'simulator' && (battery !== undefined || unplugged || drain !== undefined)) {
    // A real phone's battery is what it is.
    throw new UsageError('--sim-battery, --sim-unplugged and --sim-battery-drain go with --driver simulator only');
  }
  const telemetrySampleMs = milliseconds(
    values['telemetry-sample-ms'] ?? env.SMSGW_AGENT_TELEMETRY_SAMPLE_MS,
    '--telemetry-sample-ms (or SMSGW_AGENT_TELEMETRY_SAMPLE_MS)',
  );
  if (telemetrySampleMs !== undefined && telemetrySampleMs < 100) {
    throw new UsageError('--telemetry-sample-ms (or SMSGW_AGENT_TELEMETRY_SAMPLE_MS) takes at least 100 ms');
  }

  return { battery, unplugged, drain, telemetrySampleMs };
}
