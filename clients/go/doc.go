// Package smsgw is the SMS gateway's API from Go, with the standard library and x/crypto's scrypt only.
//
//	sms, err := smsgw.NewClient(smsgw.Config{
//		APIKey:   os.Getenv("SMSGW_API_KEY"),   // sgw_live_… or sgw_test_…
//		ClientID: os.Getenv("SMSGW_CLIENT_ID"), // client_…
//		BaseURL:  "https://sms.example.com",
//	})
//	sent, err := sms.Messages.Send(ctx, smsgw.SendRequest{To: "+33612345678", Message: "Bonjour"})
//
// One client holds the credentials and its connections; make it once and share it (it is safe
// for concurrent use).
//
// Every send carries an Idempotency-Key (a new one, or yours with WithIdempotencyKey) that every
// retry of the call reuses, so a send whose answer was lost is stored and sent once. Calls are
// retried, MaxRetries times at most with exponential backoff and full jitter, after a network
// error or a timeout (reads, cancels and sends), a 429 or a 503 (waiting Retry-After when given),
// and a send's 409 IDEMPOTENCY_IN_PROGRESS. OTP.Verify is retried only when the gateway cannot
// have counted the attempt. Nothing else is retried.
//
// An error answer is an *APIError (errors.As) with the envelope's Code, Details and RequestID;
// errors.Is matches it against ErrAuthentication, ErrInvalidRequest, ErrNotFound, ErrConflict,
// ErrRateLimited, ErrUnavailable or ErrServer. No answer is a *ConnectionError.
//
// VerifyWebhook checks a webhook delivery: signature, timestamp and duplicates. VerifyWebhookBatch
// checks a batched endpoint's delivery (a JSON array of events) and returns the events not seen
// before.
//
// The types of requests and answers (types_gen.go) are generated from the gateway's OpenAPI
// document by scripts/client-types.js.
package smsgw
