import { modeToProto } from '@smsgw/platform';
import type { otp } from '@smsgw/proto';
import { outcomeUnknown } from '../clients/send-coalescer';
import { checkOtpDestination } from '../domain/destination-rules';
import type { SendOtpRequest, VerifyOtpRequest } from '../domain/otp-request';
import type { AuthContext } from '../http/context';
import { toSendOtpRequest, toVerifyOtpRequest } from '../mappers/otp.mapper';
import { chooseDevice } from './choose-device.use-case';
import { countedSend } from './key-quota';
import type { StatsQuery } from './history.use-case';
import type { SendOptions } from './send-sms.use-case';
import type { Upstreams } from './upstreams';

/**
 * A one-time password sent through the requested device (pinned unless
 * `"failover": true`) or the automatic choice, once its destination is one
 * the client allows. Its SMS needs no ttl: it is not sent after the OTP's
 * expiry. Its SMS counts against its key's daily quota.
 */
export async function sendOtp(up: Upstreams, auth: AuthContext, request: SendOtpRequest, options: SendOptions) {
  checkOtpDestination(auth.destinations, request.to);
  const device = await chooseDevice(up, auth, options.deviceId, { presence: options.presence, sim: request.sim });
  const pinned = options.deviceId !== undefined && !request.failover;
  return countedSend(
    up,
    auth,
    1,
    async () => {
      try {
        return await up.otp.sendOtp(toSendOtpRequest(auth, { deviceId: device.deviceId, pinned }, request, options.idempotency));
      } catch (err) {
        // Out of time: the otp service may have made the OTP and stored its SMS; it keeps them for a retry with the same key.
        throw outcomeUnknown(err);
      }
    },
    (sent: otp.SendOtpResponse__Output) => sent.replayed,
  );
}

export async function verifyOtp(up: Upstreams, auth: AuthContext, request: VerifyOtpRequest) {
  return up.otp.verifyOtp(toVerifyOtpRequest(auth, request));
}

/** GET /v1/otp/stats: the key's mode's codes over the period (the filters of /v1/sms/stats). */
export async function otpStatistics(up: Upstreams, auth: AuthContext, query: StatsQuery) {
  return up.otp.getOtpStats({
    clientId: auth.clientId,
    mode: modeToProto(auth.mode),
    fromDate: query.fromDate,
    toDate: query.toDate,
    deviceId: query.deviceId,
  });
}
