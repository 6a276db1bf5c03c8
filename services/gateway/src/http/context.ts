import type Koa from 'koa';
import type Router from '@koa/router';
import type { AddressRanges, Destinations, KeyScope } from '@smsgw/platform';
import type { DeviceState } from '../clients/device-directory';

export interface AuthContext {
  clientId: string;
  mode: 'live' | 'test';
  /** The client's ttl for sends that give none (seconds; 0: no limit), kept with the verified key. */
  defaultTtlSeconds: number;
  /** Where the client's sends may go (countries, special number types), kept with the verified key. */
  destinations: Destinations;
  keyId: string;
  /** What the key may call; undefined: everything (a key made without scopes). */
  scopes?: ReadonlySet<KeyScope>;
  /** Where the key may call from; undefined: anywhere. */
  ranges?: AddressRanges;
  /** SMS the key may send per UTC day; 0: no quota. */
  dailyQuota: number;
}

export interface GatewayState {
  requestId: string;
  /**
   * The caller's address, for limits per address; undefined when a trusted proxy hid it (a load
   * balancer that does not say who its client is): such limits then do not apply.
   */
  clientAddress?: string;
  auth?: AuthContext;
  body?: Record<string, unknown>;
  /** What Redis says of the X-Device-ID device (presence, removal), read alongside the rate limit (see sms.routes). */
  presence?: { deviceId: string; state: Promise<DeviceState> };
  /** The request's Idempotency-Key and the hash of what makes the request, passed on to the message service. */
  idempotency?: { key: string; requestHash: string };
}

export type GatewayContext = Koa.ParameterizedContext<GatewayState, Router.RouterParamContext<GatewayState>>;
export type GatewayMiddleware = Koa.Middleware<GatewayState, Router.RouterParamContext<GatewayState>>;

/** The probes' paths: answered over forwarded plain HTTP too, neither traced nor logged. */
export const PROBES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
