import type Koa from 'koa';
import type Router from '@koa/router';

export interface AuthContext {
  clientId: string;
  mode: 'live' | 'test';
}

export interface GatewayState {
  requestId: string;
  auth?: AuthContext;
  body?: Record<string, unknown>;
}

export type GatewayContext = Koa.ParameterizedContext<GatewayState, Router.RouterParamContext<GatewayState>>;
export type GatewayMiddleware = Koa.Middleware<GatewayState, Router.RouterParamContext<GatewayState>>;
