// The parts of the `smpp` package (farhadi/node-smpp, plain JavaScript) this service uses.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  export interface Pdu {
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): Pdu;
    [field: string]: unknown;
  }

  export class PDU implements Pdu {
    constructor(command: string, options?: Record<string, unknown>);
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): Pdu;
    [field: string]: unknown;
  }

  export class Session extends EventEmitter {
    socket: Socket;
    send(pdu: Pdu, responseCallback?: (pdu: Pdu) => void, sendCallback?: (pdu: Pdu) => void): boolean;
    pause(): void;
    resume(): void;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    [command: string]: unknown;
  }

  export interface Server extends NetServer {
    sessions: Session[];
  }

  export const filters: { time: { decode: (value: unknown) => unknown; encode: (value: unknown) => unknown } };
  export function createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server;
  export function connect(options: Record<string, unknown>, listener?: () => void): Session;
}
