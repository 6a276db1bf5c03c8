package smsgw

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// CodeUnexpectedResponse is the Code of an error answer that has no error envelope (a proxy's
// page, say), and of a success answer that is not JSON.
const CodeUnexpectedResponse ErrorCode = "UNEXPECTED_RESPONSE"

// The families of API errors, for errors.Is.
var (
	// ErrAuthentication: 401 or 403, a wrong, revoked or expired key, an unknown client, plain HTTP, a live
	// key of an account whose address is not confirmed yet (ACCOUNT_NOT_VERIFIED), a key used outside its
	// scopes (CodeScopeNotAllowed) or address ranges (CodeIpNotAllowed).
	ErrAuthentication = errors.New("smsgw: authentication failed")
	// ErrInvalidRequest: 400, 405, 413, 422, 431, the request breaks a rule (Details names the fields).
	ErrInvalidRequest = errors.New("smsgw: invalid request")
	// ErrNotFound: 404, an unknown message, OTP or device.
	ErrNotFound = errors.New("smsgw: not found")
	// ErrConflict: 409 or 410, the resource's state refuses it (not cancellable, OTP verified or expired).
	ErrConflict = errors.New("smsgw: conflict")
	// ErrRateLimited: 429, too many requests or OTPs, a key past its daily quota (CodeQuotaExceeded);
	// RetryAfter says when to try again.
	ErrRateLimited = errors.New("smsgw: rate limited")
	// ErrUnavailable: 503, no phone online or a service of the gateway unreachable.
	ErrUnavailable = errors.New("smsgw: service unavailable")
	// ErrServer: another 5xx, a bug of the gateway; quote RequestID.
	ErrServer = errors.New("smsgw: server error")
)

// APIError is an error answer of the gateway.
type APIError struct {
	Status int
	// Code is the envelope's stable code: write your handling against it.
	Code    ErrorCode
	Message string
	Details []ErrorDetail
	// RequestID is the answer's X-Request-ID: quote it when you report a problem.
	RequestID string
	// RetryAfter is the answer's Retry-After (429, 503, 409 IDEMPOTENCY_IN_PROGRESS), 0 without.
	RetryAfter time.Duration
	Header     http.Header
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("smsgw: %d %s: %s", e.Status, e.Code, e.Message)
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// Is matches the error's family: errors.Is(err, smsgw.ErrNotFound).
func (e *APIError) Is(target error) bool {
	return target == e.family()
}

func (e *APIError) family() error {
	switch s := e.Status; {
	case s == 401 || s == 403:
		return ErrAuthentication
	case s == 404:
		return ErrNotFound
	case s == 409 || s == 410:
		return ErrConflict
	case s == 429:
		return ErrRateLimited
	case s == 503:
		return ErrUnavailable
	case s >= 500:
		return ErrServer
	case s >= 400:
		return ErrInvalidRequest
	}
	return nil
}

// ConnectionError is a call that got no answer: the connection failed or was reset, or no answer
// came within the timeout.
type ConnectionError struct {
	Err error
	// Timeout is true when no answer came within the timeout.
	Timeout bool
	// Sent is false when the request was never fully written: the gateway cannot have seen it.
	Sent bool
}

func (e *ConnectionError) Error() string {
	if e.Timeout {
		return "smsgw: no answer within the timeout: " + e.Err.Error()
	}
	return "smsgw: no answer from the gateway: " + e.Err.Error()
}

func (e *ConnectionError) Unwrap() error { return e.Err }
