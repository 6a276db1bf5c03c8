package smsgw

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// policy says when a request is tried again:
//
//   - policySafe: doing it twice cannot do anything twice. Reads, cancelling, and the four sends,
//     which carry an Idempotency-Key that every retry reuses. Retried after a network error or a
//     timeout (the answer was lost), a 429 and a 503.
//   - policyOnce: verify-otp. Retried only when the gateway cannot have counted the first attempt:
//     a request never fully written, or a 429.
//
// Nothing else is retried, except 409 IDEMPOTENCY_IN_PROGRESS for a send: its own earlier attempt,
// whose answer was lost, is still running, and waiting for it is how its answer is obtained.
type policy int

const (
	policySafe policy = iota
	policyOnce
)

// Backoff tunes the delays between retries; the zero value takes the defaults.
type Backoff struct {
	// Base is the first delay's upper bound (500 ms); each retry doubles it.
	Base time.Duration
	// Cap bounds every delay (8 s), Retry-After aside.
	Cap time.Duration
	// MaxRetryAfter: a longer Retry-After is not waited for, the error is returned (60 s).
	MaxRetryAfter time.Duration
	// Random returns a number in [0, 1) (tests); math/rand/v2 by default.
	Random func() float64
}

func (b Backoff) withDefaults() Backoff {
	if b.Base <= 0 {
		b.Base = 500 * time.Millisecond
	}
	if b.Cap <= 0 {
		b.Cap = 8 * time.Second
	}
	if b.MaxRetryAfter <= 0 {
		b.MaxRetryAfter = 60 * time.Second
	}
	if b.Random == nil {
		b.Random = rand.Float64
	}
	return b
}

// outcome is what an attempt got: no answer (network), or an answer's status and code.
type outcome struct {
	network    bool
	sent       bool
	status     int
	code       ErrorCode
	retryAfter time.Duration
	hasRetry   bool
}

// retryDelay is the delay before retry number n (0 for the first), and false when the outcome is
// final. Exponential backoff with full jitter (uniform between 0 and the bound); Retry-After wins.
func retryDelay(o outcome, n int, p policy, b Backoff) (time.Duration, bool) {
	backoff := func() time.Duration {
		bound := b.Base << min(n, 30)
		if bound > b.Cap || bound <= 0 {
			bound = b.Cap
		}
		return time.Duration(b.Random() * float64(bound))
	}
	if o.network {
		if p == policySafe || !o.sent {
			return backoff(), true
		}
		return 0, false
	}
	retryable := o.status == http.StatusTooManyRequests ||
		(p == policySafe && o.status == http.StatusServiceUnavailable) ||
		(p == policySafe && o.status == http.StatusConflict && o.code == CodeIdempotencyInProgress)
	if !retryable {
		return 0, false
	}
	if !o.hasRetry {
		return backoff(), true
	}
	if o.retryAfter > b.MaxRetryAfter {
		return 0, false
	}
	return o.retryAfter, true
}

// parseRetryAfter reads Retry-After: seconds, or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, at.Sub(now)), true
	}
	return 0, false
}
