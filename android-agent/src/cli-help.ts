/** What `smsgw-agent --help` prints; keep it in step with parseCli (cli-options.ts) and README.md. */
export const HELP = `Usage: smsgw-agent [options]

Connects this machine (or an Android phone running Termux) to the SMS gateway hub and sends the
SMS the hub hands over.

Pairing (needed once per device; its credentials are then kept in the data directory, in a
folder of its own, and used again only for the same pairing options):
  --pairing-url <url>        https://<hub>/v1/agent/pair?code=<CODE> (one-time code)
  --client <client_id>       client id, with --device-password
  --device-password <pw>     device password XXXX-XXXX-XXXX-XXXX
  --device <device_id>       without pairing options: the stored device to run when several are
                             paired in the data directory

Options:
  --driver simulator|termux  how SMS are sent (default simulator)
  --hub <https url>          hub base URL (default: origin of --pairing-url, then .stack/dev.json,
                             then the hub of the stored devices)
  --ca <file>                PEM CA certificate to trust in addition to the system CAs
                             (default: caFile of .stack/dev.json when it exists)
  --data-dir <dir>           devices/<device_id>/ with credentials and outbox of each device
                             (default $SMSGW_AGENT_DIR or ~/.smsgw-agent)
  --name <device name>       name sent to the hub when pairing
  --log-json                 print one JSON line {message_id,to,text} on stdout per SMS sent
                             (none with --radio-off: nothing leaves the phone)
  --sim-send-delay-ms <n>    simulator: pause between ack and sending (default 0)
  --sim-delivery-delay-ms <n> simulator: time between sent and delivered (default 300)
  --radio-off                simulator: the phone's radio is off: every SMS fails at once with
                             OUT_OF_NETWORK and not_sent, so the hub may try another phone
                             (also $SMSGW_AGENT_RADIO_OFF=1)
  --sim-network-failure <code>
                             simulator: every SMS is sent, then the network reports it failed
                             with this cause (OUT_OF_NETWORK, INSUFFICIENT_CREDIT, BLACKLISTED,
                             INVALID_NUMBER): something left the phone, so no not_sent
  --sims <n>                 simulator: the phone has n SIMs, 1 to 4 (default $SMSGW_AGENT_SIMS,
                             else 1); an SMS asking for a slot above n fails, not sent
  --sim-fail-slot <n>        simulator: every SMS through SIM n fails at once, not sent, with
                             --sim-fail-cause generic (default), limit, no_service or radio_off
  --sim-fail-file <path>     with --sim-fail-slot: the SIM fails only while this file exists
                             (remove it and the SIM recovers)
  --sim-drop-reports <share> simulator: lose this share (0 to 1) of report frames in transit, for
                             good; the send record keeps them and the digest repairs them
                             (also $SMSGW_AGENT_SIM_DROP_REPORTS)
  --digest-interval-ms <n>   how often the digest of the send record goes to the hub (protocol 7;
                             default 300000, also after each connection; $SMSGW_AGENT_DIGEST_INTERVAL_MS)
  --sim-battery <pct>        simulator: the battery's level, 0 to 100 (default $SMSGW_AGENT_SIM_BATTERY,
                             else 80), reported in telemetry (protocol 6)
  --sim-unplugged            simulator: not charging (also $SMSGW_AGENT_SIM_UNPLUGGED=1); at 15 %
                             or less the hub warns the owner
  --sim-battery-drain <pct>  simulator: points of battery lost per minute while unplugged
                             (default $SMSGW_AGENT_SIM_BATTERY_DRAIN, else 0)
  --telemetry-sample-ms <n>  how often the phone's state is checked for a change worth telling
                             the hub (default $SMSGW_AGENT_TELEMETRY_SAMPLE_MS, else 30000)
  --passphrase-file <file>   end-to-end passphrase (its first line): encrypted SMS are opened
                             right before sending, received SMS sealed before upload
  -h, --help                 show this help

Logs are JSON lines on stderr (level from $LOG_LEVEL, default info).
Exit codes: 0 stopped by SIGINT/SIGTERM, 1 error, 2 bad usage, not paired, several devices
paired and none chosen, or the device already run by another agent from this data directory,
3 pairing refused or device token refused.
`;
