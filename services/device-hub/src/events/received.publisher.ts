import { publishTraced, type AgentReceived, type Nats } from '@smsgw/platform';

/**
 * Stores an SMS a phone received (or the test-mode simulation of one) in JetStream, on
 * `agent.received.<device>`. The device and the phone's received id make the Nats-Msg-Id: the
 * phone's resends (it sends its inbox again after every reconnect) are stored once within the
 * stream's duplicate window; the message service's unique key catches any later one.
 */
export class ReceivedPublisher {
  constructor(private readonly nats: Nats) {}

  async publish(received: AgentReceived): Promise<void> {
    const { js, names } = this.nats;
    await publishTraced(
      js,
      names.agentReceived(received.device_id),
      JSON.stringify(received),
      { msgID: `${received.device_id}:${received.received_id}` },
      { 'smsgw.device_id': received.device_id, 'smsgw.mode': received.mode },
    );
  }
}
