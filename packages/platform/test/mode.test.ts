import { keyModeToProto, modeFromProto, modeToProto, parseMode } from '../src';

describe('the live/test mode', () => {
  it('when it comes from a contract, then only the test values of Mode or KeyMode (by name or number) are test', () => {
    expect(['MODE_TEST', 'KEY_MODE_TEST', 2].map(modeFromProto)).toEqual(['test', 'test', 'test']);
    expect(['MODE_LIVE', 'KEY_MODE_LIVE', 'MODE_UNSPECIFIED', 1, 0, '', undefined, null].map(modeFromProto)).toEqual(Array(8).fill('live'));
  });

  it('when it goes to a contract, then it is the Mode or KeyMode enum name', () => {
    expect([modeToProto('live'), modeToProto('test')]).toEqual(['MODE_LIVE', 'MODE_TEST']);
    expect([keyModeToProto('live'), keyModeToProto('test')]).toEqual(['KEY_MODE_LIVE', 'KEY_MODE_TEST']);
  });

  it('when it comes from a form or a query, then only the word test is test', () => {
    expect(['test', 'live', 'TEST', '', undefined, ['test']].map(parseMode)).toEqual(['test', 'live', 'live', 'live', 'live', 'live']);
  });
});
