import { isEnvelope } from '@smsgw/e2e-envelope';
import type { message } from '@smsgw/proto';

/** A received SMS as the API shows it (the OpenAPI document's ReceivedSms): `sim` null when the phone did not say. */
export function receivedItem(r: message.ReceivedMessage__Output): Record<string, unknown> {
  return {
    id: r.id,
    from: r.from,
    device_id: r.deviceId,
    sim: r.sim > 0 ? r.sim : null,
    message: r.text,
    encrypted: isEnvelope(r.text),
    received_at: r.receivedAt,
    created_at: r.createdAt,
  };
}

export function inboxBody(list: message.ListReceivedResponse__Output): Record<string, unknown> {
  return {
    success: true,
    // `data`, as the history's list (the specification's shape for a page of records).
    data: list.messages.map(receivedItem),
    pagination: { current_page: list.page, per_page: list.perPage, total_pages: list.totalPages, total_items: list.totalItems },
  };
}

export function receivedBody(r: message.ReceivedMessage__Output): Record<string, unknown> {
  return { success: true, ...receivedItem(r) };
}
