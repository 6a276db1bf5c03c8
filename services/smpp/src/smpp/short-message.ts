import type { PartInfo } from '../domain/concatenation';
import { SmppStatusError } from '../domain/smpp-status';

/** The fields of a submit_sm (or submit_multi) this server reads, as the smpp library decodes them. */
export interface SubmitPdu {
  source_addr?: string;
  destination_addr?: string;
  dest_addr_ton?: number;
  esm_class?: number;
  data_coding?: number;
  short_message?: { udh?: Buffer[]; message?: string | Buffer } | Buffer | string;
  message_payload?: { message?: string | Buffer } | Buffer | string;
  sar_msg_ref_num?: number;
  sar_total_segments?: number;
  sar_segment_seqnum?: number;
}

/** The data codings read (section 5.2.19): SMSC default (GSM 03.38), IA5, Latin-1 and UCS-2. */
const TEXT_CODINGS = new Set([0x00, 0x01, 0x03, 0x08]);

export interface SubmittedPart {
  text: string;
  /** Set for one part of a long message (UDH concatenation or the SAR options); absent for a whole one. */
  part?: Omit<PartInfo, 'key'> & { ref: number };
}

function textOf(value: SubmitPdu['short_message']): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return undefined;
  const m = value.message;
  return typeof m === 'string' ? m : undefined;
}

/** The concatenation element of a UDH: IEI 0x00 (8-bit reference) or 0x08 (16-bit). */
function udhPart(udh: Buffer[] | undefined): SubmittedPart['part'] | undefined {
  for (const ie of udh ?? []) {
    if (ie[0] === 0x00 && ie[1] === 3 && ie.length >= 5) return { ref: ie[2]!, total: ie[3]!, seq: ie[4]! };
    if (ie[0] === 0x08 && ie[1] === 4 && ie.length >= 6) return { ref: ie.readUInt16BE(2), total: ie[4]!, seq: ie[5]! };
  }
  return undefined;
}

/**
 * The text of a submit: `message_payload` when given (the whole message), else `short_message`,
 * decoded by its data_coding; the part it is of a long message, by its UDH or its SAR options.
 * ESME_RINVDCS for a binary or unknown data coding.
 */
export function submittedPart(pdu: SubmitPdu): SubmittedPart {
  const coding = (pdu.data_coding ?? 0) & 0xff;
  // Bits 7-4 of 1111 mean "GSM message class": the low bit 2 says 8-bit data, else GSM 7-bit.
  const textual = TEXT_CODINGS.has(coding) || ((coding & 0xf0) === 0xf0 && (coding & 0x04) === 0);
  if (!textual) throw new SmppStatusError('ESME_RINVDCS');
  const payload = textOf(pdu.message_payload);
  if (payload !== undefined && payload !== '') return { text: payload };
  const text = textOf(pdu.short_message) ?? '';
  const fromUdh = typeof pdu.short_message === 'object' && !Buffer.isBuffer(pdu.short_message) ? udhPart(pdu.short_message.udh) : undefined;
  if (fromUdh) return { text, part: fromUdh };
  if (pdu.sar_msg_ref_num !== undefined && pdu.sar_total_segments !== undefined && pdu.sar_segment_seqnum !== undefined) {
    return { text, part: { ref: pdu.sar_msg_ref_num, total: pdu.sar_total_segments, seq: pdu.sar_segment_seqnum } };
  }
  return { text };
}

/** GSM 03.38's basic set and its extension table: a text made of these goes as data_coding 0, else UCS-2. */
const GSM_CHARS =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà^{}\\[~]|€\f';
const GSM = new Set(Array.from(GSM_CHARS));

/** The data coding of a text to send: 0 (GSM 7-bit) when every character has one, else 8 (UCS-2). */
export function codingFor(text: string): 0 | 8 {
  for (const c of text) if (!GSM.has(c)) return 8;
  return 0;
}
