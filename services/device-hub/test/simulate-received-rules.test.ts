import { validateSimulateReceived } from '../src/use-cases/simulate-received.use-case';

describe("a simulated SMS's text", () => {
  const order = (text: string) => ({ clientId: 'c', deviceId: 'd', mode: 1, from: '+33612345678', text, sim: 0 });

  it('when it has 1600 characters counted as every send counts them (code points), then it is accepted, and 1601 is not', () => {
    expect(validateSimulateReceived(order('😀'.repeat(1600))).text).toHaveLength(3200);
    expect(() => validateSimulateReceived(order('😀'.repeat(1601)))).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'text', code: 'INVALID_LENGTH' })] }),
    );
  });
});
