import { AppError } from '@smsgw/platform';
import { Reassembly } from '../src/domain/concatenation';
import { receiptDeliver } from '../src/domain/deliver';
import { receiptText, stateOfStatus, wantsReceipt } from '../src/domain/receipt';
import { statusOfError } from '../src/domain/smpp-status';
import { absoluteSmppTime, parseSmppTime, SmppTimeError } from '../src/domain/smpp-time';
import { checkSchedule, destinationNumber, priorityOf, ttlOfValidity } from '../src/domain/submit-rules';
import { codingFor, submittedPart } from '../src/smpp/short-message';

describe('SMPP times', () => {
  const now = new Date('2026-03-10T12:00:00Z');

  it('when a time is absolute, then its quarter-hour offset from UTC is taken off', () => {
    expect(parseSmppTime('260310140000000+', now)!.toISOString()).toBe('2026-03-10T14:00:00.000Z');
    // +08: two hours ahead of UTC.
    expect(parseSmppTime('260310140000508+', now)!.toISOString()).toBe('2026-03-10T12:00:00.500Z');
    expect(parseSmppTime('260310140000004-', now)!.toISOString()).toBe('2026-03-10T15:00:00.000Z');
  });

  it('when a time is relative, then each field is added to now', () => {
    expect(parseSmppTime('000000000130000R', now)!.toISOString()).toBe('2026-03-10T12:01:30.000Z');
    expect(parseSmppTime('000002010000000R', now)!.toISOString()).toBe('2026-03-12T13:00:00.000Z');
  });

  it('when a time is empty, then there is none; when malformed, then SmppTimeError', () => {
    expect(parseSmppTime('', now)).toBeUndefined();
    for (const bad of ['2603101400', '261310140000000+', '260310140000000X', '260310246000000+']) {
      expect(() => parseSmppTime(bad, now)).toThrow(SmppTimeError);
    }
  });

  it('when a date is written back, then it is the absolute UTC form', () => {
    expect(absoluteSmppTime(new Date('2026-03-10T12:34:56.700Z'))).toBe('260310123456700+');
  });
});

describe('the send rules of a submit', () => {
  it('when a destination is international (+, 00, or TON 1), then it is E.164; otherwise INVALID_PHONE_NUMBER', () => {
    expect(destinationNumber('+33612345678', 0)).toBe('+33612345678');
    expect(destinationNumber('0033612345678', 0)).toBe('+33612345678');
    expect(destinationNumber('33612345678', 1)).toBe('+33612345678');
    for (const [addr, ton] of [
      ['0612345678', 0],
      ['33612345678', 0],
      ['+3361', 1],
    ] as const) {
      expect(() => destinationNumber(addr, ton)).toThrow(new AppError('INVALID_PHONE_NUMBER'));
    }
  });

  it('when a validity period is given, then the ttl runs from the schedule, within a minute and a week', () => {
    const start = new Date('2026-03-10T12:00:00Z');
    expect(ttlOfValidity(undefined, start)).toBeUndefined();
    expect(ttlOfValidity(new Date('2026-03-10T13:00:00Z'), start)).toBe(3600);
    expect(ttlOfValidity(new Date('2026-03-10T12:00:10Z'), start)).toBe(60);
    expect(ttlOfValidity(new Date('2026-04-10T12:00:00Z'), start)).toBe(604_800);
  });

  it('when a schedule is past, then it is now; past 30 days, then INVALID_SCHEDULED_AT', () => {
    const now = new Date('2026-03-10T12:00:00Z');
    expect(checkSchedule(new Date('2026-03-10T11:00:00Z'), now)).toBeUndefined();
    expect(checkSchedule(new Date('2026-03-11T11:00:00Z'), now)).toEqual(new Date('2026-03-11T11:00:00Z'));
    expect(() => checkSchedule(new Date('2026-04-11T11:00:00Z'), now)).toThrow(new AppError('INVALID_SCHEDULED_AT'));
  });

  it('when a priority_flag is given, then 0 is normal, 1 high, 2 and 3 very high', () => {
    expect([0, 1, 2, 3].map(priorityOf)).toEqual([3, 2, 1, 1]);
  });

  it('when a platform error refuses a submit, then it has its SMPP status', () => {
    expect(statusOfError('RATE_LIMIT_EXCEEDED', 'submit')).toBe('ESME_RTHROTTLED');
    expect(statusOfError('INVALID_PHONE_NUMBER', 'submit')).toBe('ESME_RINVDSTADR');
    expect(statusOfError('MESSAGE_TOO_LONG', 'submit')).toBe('ESME_RINVMSGLEN');
    expect(statusOfError('SERVICE_UNAVAILABLE', 'submit')).toBe('ESME_RSYSERR');
    expect(statusOfError('MESSAGE_NOT_FOUND', 'query')).toBe('ESME_RQUERYFAIL');
    expect(statusOfError('MESSAGE_NOT_CANCELLABLE', 'cancel')).toBe('ESME_RCANCELFAIL');
  });
});

describe('receipts', () => {
  const submit = {
    message_id: 'msg_01',
    registered_delivery: 1,
    source_addr: 'SHOP',
    destination_addr: '33612345678',
    text_start: 'Votre colis arrive demain',
    submitted_at: new Date('2026-03-10T12:00:00Z'),
  };

  it('when a message is delivered, then the receipt reads the usual text, from the destination to the source', () => {
    const d = receiptDeliver(submit, { status: 'delivered', errorCode: '', at: new Date('2026-03-10T12:01:00Z') })!;
    expect(d).toMatchObject({
      source_addr: '33612345678',
      destination_addr: 'SHOP',
      esm_class: 4,
      receipted_message_id: 'msg_01',
      message_state: 2,
    });
    expect(d.text).toBe(
      'id:msg_01 sub:001 dlvrd:001 submit date:2603101200 done date:2603101201 stat:DELIVRD err:000 text:Votre colis arrive d',
    );
  });

  it('when a message fails, then stat and err say how; registered_delivery 2 asks for failures only', () => {
    expect(stateOfStatus('failed', 'EXPIRED')).toBe('EXPIRED');
    expect(stateOfStatus('failed', 'OPTED_OUT')).toBe('REJECTED');
    expect(stateOfStatus('cancelled')).toBe('DELETED');
    const text = receiptText({
      messageId: 'm',
      state: 'UNDELIVERABLE',
      errorCode: 'INVALID_NUMBER',
      submittedAt: new Date(),
      doneAt: new Date(),
      text: '',
    });
    expect(text).toContain('stat:UNDELIV err:001');
    expect(wantsReceipt(2, 'DELIVERED')).toBe(false);
    expect(wantsReceipt(2, 'UNDELIVERABLE')).toBe(true);
    expect(wantsReceipt(0, 'DELIVERED')).toBe(false);
    expect(receiptDeliver({ ...submit, registered_delivery: 2 }, { status: 'delivered', errorCode: '', at: new Date() })).toBeUndefined();
  });
});

describe('long messages', () => {
  it('when the parts come in any order, then they are joined in order once the last comes, every holder given back', () => {
    const r = new Reassembly<number>({ timeoutMs: 1000, maxMessages: 10 });
    expect(r.add({ key: 'a', total: 3, seq: 2 }, 'B', 2, 0)).toEqual({ kind: 'waiting' });
    expect(r.add({ key: 'a', total: 3, seq: 3 }, 'C', 3, 0)).toEqual({ kind: 'waiting' });
    expect(r.add({ key: 'a', total: 3, seq: 1 }, 'A', 1, 0)).toEqual({ kind: 'complete', text: 'ABC', waiting: [2, 3, 1] });
    expect(r.size).toBe(0);
  });

  it('when a part repeats or does not fit, then it is invalid; when the rest never comes, then the message is given up', () => {
    const r = new Reassembly<string>({ timeoutMs: 1000, maxMessages: 1 });
    expect(r.add({ key: 'a', total: 2, seq: 1 }, 'A', 'p1', 0).kind).toBe('waiting');
    expect(r.add({ key: 'a', total: 2, seq: 1 }, 'A', 'again', 0).kind).toBe('invalid');
    expect(r.add({ key: 'a', total: 3, seq: 2 }, 'B', 'other total', 0).kind).toBe('invalid');
    expect(r.add({ key: 'b', total: 2, seq: 1 }, 'X', 'too many', 0).kind).toBe('invalid');
    expect(r.add({ key: 'c', total: 2, seq: 3 }, 'X', 'out of range', 0).kind).toBe('invalid');
    expect(r.expire(999)).toEqual([]);
    expect(r.expire(1000)).toEqual(['p1']);
  });

  it('when a submit carries a UDH, SAR options or message_payload, then its part and text are read', () => {
    const udh = [Buffer.from([0x00, 0x03, 9, 3, 2])];
    expect(submittedPart({ data_coding: 8, short_message: { udh, message: 'ab' } })).toEqual({
      text: 'ab',
      part: { ref: 9, total: 3, seq: 2 },
    });
    const udh16 = [Buffer.from([0x08, 0x04, 0x01, 0x02, 2, 1])];
    expect(submittedPart({ data_coding: 0, short_message: { udh: udh16, message: 'x' } }).part).toEqual({ ref: 258, total: 2, seq: 1 });
    expect(
      submittedPart({ data_coding: 0, short_message: { message: 'y' }, sar_msg_ref_num: 5, sar_total_segments: 2, sar_segment_seqnum: 2 })
        .part,
    ).toEqual({ ref: 5, total: 2, seq: 2 });
    expect(submittedPart({ data_coding: 0, short_message: { message: '' }, message_payload: { message: 'tout le texte' } })).toEqual({
      text: 'tout le texte',
    });
    expect(() => submittedPart({ data_coding: 4, short_message: Buffer.from([1, 2]) })).toThrow(
      expect.objectContaining({ status: 'ESME_RINVDCS' }),
    );
  });

  it('when a text is sent to a receiver, then GSM 7-bit when it can, else UCS-2', () => {
    expect(codingFor('Bonjour €, à demain')).toBe(0);
    expect(codingFor('Привет')).toBe(8);
  });
});
