/** The sealing of OTP texts is shared with the otp service, which keeps a text sealed until its SMS is stored. */
export { openText, sealText } from '@smsgw/platform';
