import type { Upstreams } from './upstreams';

/** The overview's figures: live sends of the last 7 days, the phones online, and the alert address while unverified. */
export async function overview(up: Upstreams, clientId: string) {
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
    unverifiedEmail: client.emailVerified ? undefined : client.email,
  };
}
