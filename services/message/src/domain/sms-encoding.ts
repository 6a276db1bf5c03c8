// The rule lives in @smsgw/platform, shared with the dashboard's campaign preview.
export { measureSms, type SmsEncoding, type SmsSize } from '@smsgw/platform';
