/** The server's version, as it introduces itself to MCP clients. */
export const VERSION = '0.1.0';
