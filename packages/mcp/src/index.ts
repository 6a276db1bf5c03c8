export { createSmsMcpServer, failure, ToolFailure, TOOL_NAMES, type ApiInput, type SmsApi } from './tools';
export { restApi, GATEWAY_UNREACHABLE } from './rest-api';
export { VERSION } from './version';
export { serveMcpRequest } from './http';
