import type { message } from '@smsgw/proto';

/** An entry of the suppression list as the API shows it (the OpenAPI document's OptOut): `keyword` null unless source is "keyword". */
export function optOutItem(o: message.OptOut__Output): Record<string, unknown> {
  return {
    phone_number: o.phoneNumber,
    source: o.source,
    keyword: o.keyword === '' ? null : o.keyword,
    created_at: o.createdAt,
  };
}

export function optOutsBody(list: message.ListOptOutsResponse__Output): Record<string, unknown> {
  return {
    success: true,
    data: list.optOuts.map(optOutItem),
    pagination: { current_page: list.page, per_page: list.perPage, total_pages: list.totalPages, total_items: list.totalItems },
  };
}

export function optOutBody(o: message.OptOut__Output): Record<string, unknown> {
  return { success: true, ...optOutItem(o) };
}

export function optOutRemovedBody(phoneNumber: string, removed: message.RemoveOptOutResponse__Output): Record<string, unknown> {
  return { success: true, phone_number: phoneNumber, removed: removed.removed };
}
