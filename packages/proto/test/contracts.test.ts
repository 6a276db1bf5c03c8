import { accountProto, deviceHubProto, LOADER_OPTIONS, messageProto, otpProto, schedulerProto, webhookProto } from '../src';

describe('gRPC contracts', () => {
  it('when every contract is loaded with the shared options, then each service exposes its methods', () => {
    expect(Object.keys(accountProto().AccountService.service)).toEqual(
      expect.arrayContaining(['CreateClient', 'VerifyApiKey', 'RevokeApiKey', 'GetSigningSecret', 'ListAuditEvents']),
    );
    expect(Object.keys(messageProto().MessageService.service)).toEqual(expect.arrayContaining(['Send', 'GetMessage', 'ClaimNext']));
    expect(Object.keys(deviceHubProto().DeviceHubService.service)).toEqual(expect.arrayContaining(['CreateDevice', 'GetDevice']));
    expect(Object.keys(otpProto().OtpService.service)).toEqual([
      'SendOtp',
      'VerifyOtp',
      'GetOtpStats',
      'GetGuardSettings',
      'SetGuardSettings',
      'ListHolds',
      'ReleaseHold',
    ]);
    expect(Object.keys(schedulerProto().SchedulerService.service)).toEqual(['CreateTimer', 'CancelTimer', 'ListJobs']);
    expect(Object.keys(webhookProto().WebhookService.service)).toEqual(expect.arrayContaining(['CreateEndpoint', 'SendTestEvent']));
  });

  it('when a message is serialised, then enums travel as names and 64-bit numbers never appear as Long', () => {
    const def = messageProto().MessageService.service.GetMessage;
    const bytes = def.responseSerialize({ messageId: 'msg_1', mode: 'MODE_TEST', priority: 2 });
    const decoded = def.responseDeserialize(bytes) as { messageId: string; mode: string; priority: number; status: string };
    expect(decoded).toMatchObject({ messageId: 'msg_1', mode: 'MODE_TEST', priority: 2, status: '' });
    expect(LOADER_OPTIONS.longs).toBe(String);
  });
});
