import type * as grpc from '@grpc/grpc-js';
import { AppError, createLogger, startGrpcService, type AsyncHandlers, type GrpcService } from '@smsgw/platform';
import { accountProto, messageProto, type account, type message } from '@smsgw/proto';
import { anyCaller, grpcTlsFor } from '@smsgw/testing';

/** A queued SMS of the stand-in message service. */
export interface StandInMessage {
  messageId: string;
  clientId: string;
  deviceId: string;
  to?: string;
  text?: string;
  expiresAt?: string;
  /** The SIM the caller asked for (0 or absent: none). */
  requestedSim?: number;
}

/**
 * A message service that keeps each device's queue in memory and records what the hub asks of it:
 * the claims (with their client id; ClaimMany's one by one), the acknowledgements, the releases; `stranded` is what
 * StrandedDevices answers. Any other method fails.
 */
export class MessageStandIn {
  readonly queues = new Map<string, StandInMessage[]>();
  readonly owners = new Map<string, StandInMessage>();
  readonly claims: message.ClaimNextRequest__Output[] = [];
  /** The calls that carried claims and acknowledgements, by method. */
  readonly calls = { ClaimNext: 0, ClaimMany: 0, AcceptMessage: 0, AcceptMany: 0 };
  readonly accepted: string[] = [];
  /** The SIM each acknowledgement carried, by message id. */
  readonly acceptedSims = new Map<string, number>();
  readonly releases: message.ReleaseDeviceRequest__Output[] = [];
  stranded: message.StrandedDevice[] = [];
  /** What each StrandedDevices call asked for: the devices named (empty: every device). */
  readonly strandedAsked: string[][] = [];
  releaseFails = false;

  private constructor(readonly server: GrpcService) {}

  get address(): string {
    return `127.0.0.1:${this.server.port}`;
  }

  /** `without`: methods left out, as a message service of an earlier version lacks them (the caller gets UNIMPLEMENTED). */
  static async start(without: string[] = []): Promise<MessageStandIn> {
    const holder: { standIn?: MessageStandIn } = {};
    const handlers: Record<string, unknown> = {
      ClaimNext: async (req: message.ClaimNextRequest__Output) => {
        holder.standIn!.calls.ClaimNext++;
        return holder.standIn!.claim(req);
      },
      ClaimMany: async (req: message.ClaimManyRequest__Output) => {
        holder.standIn!.calls.ClaimMany++;
        return { results: req.claims.map((c) => holder.standIn!.claim(c)) };
      },
      AcceptMessage: async (req: message.AcceptMessageRequest__Output) => {
        holder.standIn!.calls.AcceptMessage++;
        return holder.standIn!.accept(req);
      },
      AcceptMany: async (req: message.AcceptManyRequest__Output) => {
        holder.standIn!.calls.AcceptMany++;
        return { results: req.accepts.map((a) => holder.standIn!.accept(a)) };
      },
      GetMessage: async (req: message.GetMessageRequest__Output) => {
        const found = holder.standIn!.owners.get(req.messageId);
        if (!found || found.clientId !== req.clientId) throw new AppError('MESSAGE_NOT_FOUND');
        return { messageId: found.messageId, clientId: found.clientId, deviceId: found.deviceId, status: 'queued' };
      },
      ReleaseDevice: async (req: message.ReleaseDeviceRequest__Output) => {
        holder.standIn!.releases.push(req);
        if (holder.standIn!.releaseFails) throw new AppError('INTERNAL_ERROR');
        return { moved: 1, failed: 0 };
      },
      StrandedDevices: async (req: message.StrandedDevicesRequest__Output) => {
        holder.standIn!.strandedAsked.push(req.deviceIds);
        const only = new Set(req.deviceIds);
        return { devices: holder.standIn!.stranded.filter((d) => only.size === 0 || only.has(d.deviceId ?? '')) };
      },
    };
    for (const method of Object.keys(messageProto().MessageService.service)) {
      handlers[method] ??= async () => {
        throw new AppError('INTERNAL_ERROR');
      };
    }
    const definition = Object.fromEntries(
      Object.entries(messageProto().MessageService.service).filter(([method]) => !without.includes(method)),
    ) as grpc.ServiceDefinition;
    for (const method of without) delete handlers[method];
    const server = await startGrpcService({
      listen: { host: '127.0.0.1', port: 0 },
      tls: grpcTlsFor('message'),
      callers: anyCaller(definition),
      name: 'smsgw.message.v1.MessageService',
      definition,
      handlers: handlers as unknown as AsyncHandlers<message.MessageServiceHandlers>,
      log: createLogger('device-hub-test-message', 'silent'),
    });
    server.ready();
    holder.standIn = new MessageStandIn(server);
    return holder.standIn;
  }

  /** Queues SMS for a device (the hub is not woken: its sessions find them at their next claim or wake-up). */
  enqueue(...messages: StandInMessage[]): void {
    for (const m of messages) {
      const queue = this.queues.get(m.deviceId) ?? [];
      queue.push(m);
      this.queues.set(m.deviceId, queue);
      this.owners.set(m.messageId, m);
    }
  }

  claimsOf(deviceId: string): message.ClaimNextRequest__Output[] {
    return this.claims.filter((c) => c.deviceId === deviceId);
  }

  private accept(req: message.AcceptMessageRequest__Output): message.AcceptMessageResponse {
    this.accepted.push(req.messageId);
    this.acceptedSims.set(req.messageId, req.sim);
    return { accepted: true, status: 'queued' };
  }

  private claim(req: message.ClaimNextRequest__Output): message.ClaimNextResponse {
    this.claims.push(req);
    const next = this.queues.get(req.deviceId)?.shift();
    if (!next) return {};
    return {
      message: {
        messageId: next.messageId,
        clientId: next.clientId,
        deviceId: next.deviceId,
        to: next.to ?? '+33612345678',
        text: next.text ?? 'Bonjour',
        priority: 3,
        status: 'queued',
        expiresAt: next.expiresAt ?? '',
        requestedSim: next.requestedSim ?? 0,
      },
      attempt: 1,
      traceparent: '',
    };
  }

  async stop(): Promise<void> {
    await this.server.stop(100);
  }
}

/**
 * An account service whose every client has `failoverDelaySeconds`, and the SIM rule `simRules`
 * gives it (none: the proto's empty defaults); any other method fails.
 */
export async function startAccountStandIn(
  failoverDelaySeconds: number,
  simRules: Map<string, { simRule: string; defaultSim: number }> = new Map(),
): Promise<GrpcService> {
  const handlers: Record<string, unknown> = {
    GetClient: async (req: account.GetClientRequest__Output) => ({
      clientId: req.clientId,
      email: 'owner@example.com',
      name: 'Owner',
      createdAt: new Date().toISOString(),
      failoverDelaySeconds,
      ...simRules.get(req.clientId),
    }),
  };
  for (const method of Object.keys(accountProto().AccountService.service)) {
    handlers[method] ??= async () => {
      throw new AppError('INTERNAL_ERROR');
    };
  }
  const server = await startGrpcService({
    listen: { host: '127.0.0.1', port: 0 },
    tls: grpcTlsFor('account'),
    callers: anyCaller(accountProto().AccountService.service),
    name: 'smsgw.account.v1.AccountService',
    definition: accountProto().AccountService.service,
    handlers: handlers as unknown as AsyncHandlers<account.AccountServiceHandlers>,
    log: createLogger('device-hub-test-account', 'silent'),
  });
  server.ready();
  return server;
}
