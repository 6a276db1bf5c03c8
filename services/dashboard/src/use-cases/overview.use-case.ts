import type { Upstreams } from './upstreams';

/**
 * The overview's figures: live sends of the last 7 days, the phones online; the owner's address
 * (`ownerEmail`, the session's) while the account is not verified, else the alert address while it is not.
 */
export async function overview(up: Upstreams, clientId: string, ownerEmail: string) {
  const [stats, devices, client] = await Promise.all([
    up.messages.getStats({
      clientId,
      mode: 'MODE_LIVE',
      fromDate: new Date(Date.now() - 7 * 86_400_000).toISOString(),
      toDate: '',
      deviceId: '',
    }),
    up.devices.listDevices({ clientId, onlineOnly: false }),
    up.accounts.getClient({ clientId }),
  ]);
  const online = devices.devices.filter((d) => d.status === 'online').length;
  return {
    clientId,
    totalSent: stats.totalSent,
    deliveryRate: stats.deliveryRate,
    online,
    phones: devices.devices.length,
    unverifiedAccount: client.accountVerified ? undefined : ownerEmail,
    unverifiedEmail: client.emailVerified ? undefined : client.email,
  };
}
