import type { Component } from '../components';
import { account } from './account';
import { dashboard } from './dashboard';
import { deviceHub } from './device-hub';
import { gateway } from './gateway';
import { message } from './message';
import { otp } from './otp';
import { scheduler } from './scheduler';
import { smpp } from './smpp';
import { webhook } from './webhook';

/**
 * The stack's services, one module each: `startStack` starts them in waves by their `after` and
 * stops them in the reverse of this order. A new service is one module and one row here.
 */
export const COMPONENTS: readonly Component[] = [account, scheduler, message, webhook, otp, deviceHub, gateway, dashboard, smpp];
