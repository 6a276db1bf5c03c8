/** The key's mode as the services' contracts name it. */
export const protoMode = (mode: 'live' | 'test') => (mode === 'test' ? 'MODE_TEST' : 'MODE_LIVE');
