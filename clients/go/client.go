// Over 300 lines: the Client, its request path (retries, idempotency keys, errors) and its groups of
// calls (messages, OTP, inbox, opt-outs, auth), as the TypeScript and Python libraries lay them out.

package smsgw

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Version is the library's version, sent in User-Agent.
const Version = "0.1.0"

// maxAnswerBytes bounds what is read of an answer: the API's are a few kilobytes.
const maxAnswerBytes = 8 << 20

// Config configures a Client. APIKey, ClientID and BaseURL are required.
type Config struct {
	// APIKey is sgw_live_… or sgw_test_….
	APIKey string
	// ClientID is client_…, the client the key belongs to.
	ClientID string
	// BaseURL is the gateway, such as https://sms.example.com (a path prefix is kept).
	BaseURL string
	// DeviceID is the phone that sends when a call names none (X-Device-ID); empty lets the gateway choose.
	DeviceID string
	// CAFile is a PEM file of the authority that signed a self-hosted gateway's certificate.
	CAFile string
	// Timeout bounds each attempt (30 s when zero).
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt: 0 means the default (2), a
	// negative number none.
	MaxRetries int
	// Backoff tunes the delays between retries; the zero value suits the API's limits.
	Backoff Backoff
	// HTTPClient replaces the client's own (its Transport's TLS settings then win over CAFile).
	HTTPClient *http.Client
}

// loopback reports whether host (a URL's hostname) is this machine: localhost, 127.0.0.0/8 or ::1,
// the only places plain http may reach (a gateway under development).
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Client is the SMS gateway's API. It is safe for concurrent use.
type Client struct {
	Messages *MessagesService
	OTP      *OTPService
	Auth     *AuthService
	Inbox    *InboxService
	OptOuts  *OptOutsService

	base       *url.URL
	apiKey     string
	clientID   string
	deviceID   string
	timeout    time.Duration
	maxRetries int
	backoff    Backoff
	http       *http.Client
	userAgent  string
}

// NewClient checks the configuration and builds a client.
func NewClient(cfg Config) (*Client, error) {
	if cfg.APIKey == "" || cfg.ClientID == "" || cfg.BaseURL == "" {
		return nil, errors.New("smsgw: APIKey, ClientID and BaseURL are required")
	}
	base, err := url.Parse(strings.TrimSuffix(cfg.BaseURL, "/") + "/")
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("smsgw: BaseURL must be an https URL, not %q", cfg.BaseURL)
	}
	if base.Scheme == "http" && !loopback(base.Hostname()) {
		return nil, fmt.Errorf("smsgw: BaseURL must be an https URL (plain http only to this machine: localhost, 127.0.0.1, ::1), not %q", cfg.BaseURL)
	}
	var httpClient *http.Client
	if cfg.HTTPClient != nil {
		// A copy: the caller's client keeps its own redirect policy elsewhere.
		own := *cfg.HTTPClient
		httpClient = &own
	} else {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		if cfg.CAFile != "" {
			pem, err := os.ReadFile(cfg.CAFile)
			if err != nil {
				return nil, fmt.Errorf("smsgw: reading CAFile: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("smsgw: no PEM certificate in %s", cfg.CAFile)
			}
			transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
		httpClient = &http.Client{Transport: transport}
	}
	// The key never follows a redirect to another address (Go would send X-API-Key along): the
	// gateway never redirects, so a redirect is answered as the error it is.
	httpClient.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Client{
		base:       base,
		apiKey:     cfg.APIKey,
		clientID:   cfg.ClientID,
		deviceID:   cfg.DeviceID,
		timeout:    cfg.Timeout,
		maxRetries: cfg.MaxRetries,
		backoff:    cfg.Backoff.withDefaults(),
		http:       httpClient,
		userAgent:  "smsgw-go/" + Version + " " + runtime.Version(),
	}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = 2
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	c.Messages = &MessagesService{c}
	c.OTP = &OTPService{c}
	c.Auth = &AuthService{c}
	c.Inbox = &InboxService{c}
	c.OptOuts = &OptOutsService{c}
	return c, nil
}

// ResponseInfo is what the gateway said besides the body; WithResponseInfo fills it.
type ResponseInfo struct {
	Status int
	// RequestID is X-Request-ID: quote it when you report a problem.
	RequestID string
	// IdempotencyKey is the key the call was sent with (sends only).
	IdempotencyKey string
	// Replayed is true when the gateway answered a stored earlier answer: nothing was sent again.
	Replayed bool
	// Attempts counts the attempts, retries included.
	Attempts int
	// RateLimit is from the RateLimit-* headers; nil without them.
	RateLimit *RateLimit
}

// RateLimit is the client's request budget as the gateway counts it.
type RateLimit struct {
	Limit, Remaining, Reset int
}

// CallOption changes one call.
type CallOption func(*callOptions)

type callOptions struct {
	idempotencyKey string
	deviceID       string
	requestID      string
	timeout        time.Duration
	maxRetries     *int
	info           *ResponseInfo
}

// WithIdempotencyKey sends a send with your Idempotency-Key instead of a new one; every retry
// reuses it. Give your own to make a send safe to repeat across processes.
func WithIdempotencyKey(key string) CallOption {
	return func(o *callOptions) { o.idempotencyKey = key }
}

// WithDeviceID names the phone that sends (sends and Auth.Test), instead of the client's DeviceID.
func WithDeviceID(id string) CallOption { return func(o *callOptions) { o.deviceID = id } }

// WithRequestID sends X-Request-ID to correlate with the gateway's logs.
func WithRequestID(id string) CallOption { return func(o *callOptions) { o.requestID = id } }

// WithTimeout bounds each attempt of this call.
func WithTimeout(d time.Duration) CallOption { return func(o *callOptions) { o.timeout = d } }

// WithMaxRetries sets this call's retries (0: none).
func WithMaxRetries(n int) CallOption { return func(o *callOptions) { o.maxRetries = &n } }

// WithResponseInfo fills info with the answer's request id, key, replay flag and attempts.
func WithResponseInfo(info *ResponseInfo) CallOption { return func(o *callOptions) { o.info = info } }

type call struct {
	op      operation
	query   url.Values
	body    any
	message string
	// param is the path's other parameter ({id}, {phone_number}).
	param string
}

func (c *Client) call(opID string) call {
	op, ok := operations[opID]
	if !ok {
		panic("smsgw: unknown operation " + opID)
	}
	return call{op: op}
}

func (k call) policy() policy {
	// Only verify-otp may count twice when repeated (retry.go).
	if k.op.id == "verifyOtp" {
		return policyOnce
	}
	return policySafe
}

// do sends the call, retries it as retry.go says, and decodes the answer into out.
func (c *Client) do(ctx context.Context, k call, out any, opts []CallOption) error {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	// The id is one path segment, escaped: a "/" in it cannot reach another endpoint.
	path := strings.Replace(k.op.path, "{message_id}", url.PathEscape(k.message), 1)
	if i, j := strings.Index(path, "{"), strings.Index(path, "}"); i >= 0 && j > i {
		// PathEscape keeps a +: a phone number's is written %2B, as the API asks.
		path = path[:i] + strings.ReplaceAll(url.PathEscape(k.param), "+", "%2B") + path[j+1:]
	}
	target, err := url.Parse(strings.TrimSuffix(c.base.String(), "/") + path)
	if err != nil {
		return fmt.Errorf("smsgw: building the URL: %w", err)
	}
	if len(k.query) > 0 {
		target.RawQuery = k.query.Encode()
	}
	var payload []byte
	if k.body != nil {
		if payload, err = json.Marshal(k.body); err != nil {
			return fmt.Errorf("smsgw: encoding the request: %w", err)
		}
	}
	key := ""
	if k.op.idempotencyKey {
		key = o.idempotencyKey
		if key == "" {
			key = newUUID()
		}
	}
	device := ""
	if k.op.deviceID {
		device = o.deviceID
		if device == "" {
			device = c.deviceID
		}
	}
	maxRetries := c.maxRetries
	if o.maxRetries != nil {
		maxRetries = max(0, *o.maxRetries)
	}
	timeout := c.timeout
	if o.timeout > 0 {
		timeout = o.timeout
	}

	for attempt := 1; ; attempt++ {
		status, header, raw, err := c.once(ctx, k.op.method, target.String(), payload, key, device, o.requestID, timeout)
		var delay time.Duration
		var again bool
		if err != nil {
			var ce *ConnectionError
			if !errors.As(err, &ce) || attempt > maxRetries {
				return err
			}
			if delay, again = retryDelay(outcome{network: true, sent: ce.Sent}, attempt-1, k.policy(), c.backoff); !again {
				return err
			}
		} else {
			info := ResponseInfo{
				Status:         status,
				RequestID:      header.Get("X-Request-ID"),
				IdempotencyKey: key,
				Replayed:       header.Get("Idempotent-Replayed") == "true",
				Attempts:       attempt,
				RateLimit:      rateLimit(header),
			}
			if o.info != nil {
				*o.info = info
			}
			if status >= 200 && status < 300 {
				if err := json.Unmarshal(raw, out); err != nil {
					return &APIError{Status: status, Code: CodeUnexpectedResponse, Message: "the answer is not the expected JSON: " + err.Error(), RequestID: info.RequestID, Header: header}
				}
				return nil
			}
			apiErr := apiError(status, header, raw)
			if attempt > maxRetries {
				return apiErr
			}
			wait, has := parseRetryAfter(header.Get("Retry-After"), time.Now())
			if delay, again = retryDelay(outcome{status: status, code: apiErr.Code, retryAfter: wait, hasRetry: has}, attempt-1, k.policy(), c.backoff); !again {
				return apiErr
			}
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// once makes one attempt; a *ConnectionError when no answer came.
func (c *Client) once(ctx context.Context, method, target string, payload []byte, key, device, requestID string, timeout time.Duration) (int, http.Header, []byte, error) {
	attemptCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sent := false
	attemptCtx = httptrace.WithClientTrace(attemptCtx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) { sent = sent || info.Err == nil },
	})
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(attemptCtx, method, target, body)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("smsgw: building the request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("X-API-Key", c.apiKey)
	req.Header.Set("X-Client-ID", c.clientID)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if device != "" {
		req.Header.Set("X-Device-ID", device)
	}
	if requestID != "" {
		req.Header.Set("X-Request-ID", requestID)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, ctx.Err()
		}
		return 0, nil, nil, &ConnectionError{Err: err, Timeout: attemptCtx.Err() == context.DeadlineExceeded, Sent: sent}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, ctx.Err()
		}
		return 0, nil, nil, &ConnectionError{Err: err, Timeout: attemptCtx.Err() == context.DeadlineExceeded, Sent: true}
	}
	if len(raw) > maxAnswerBytes {
		return 0, nil, nil, &ConnectionError{Err: fmt.Errorf("the answer is larger than %d bytes", maxAnswerBytes), Sent: true}
	}
	return res.StatusCode, res.Header, raw, nil
}

func apiError(status int, header http.Header, raw []byte) *APIError {
	e := &APIError{Status: status, RequestID: header.Get("X-Request-ID"), Header: header}
	if wait, ok := parseRetryAfter(header.Get("Retry-After"), time.Now()); ok {
		e.RetryAfter = wait
	}
	var env ErrorEnvelope
	if json.Unmarshal(raw, &env) == nil && env.Error.Code != "" {
		e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
		return e
	}
	text := string(raw)
	if len(text) > 200 {
		text = text[:200]
	}
	if text == "" {
		text = "no body"
	}
	e.Code, e.Message = CodeUnexpectedResponse, fmt.Sprintf("HTTP %d: %s", status, text)
	return e
}

func rateLimit(h http.Header) *RateLimit {
	limit, err := strconv.Atoi(h.Get("RateLimit-Limit"))
	if err != nil {
		return nil
	}
	remaining, _ := strconv.Atoi(h.Get("RateLimit-Remaining"))
	reset, _ := strconv.Atoi(h.Get("RateLimit-Reset"))
	return &RateLimit{Limit: limit, Remaining: remaining, Reset: reset}
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("smsgw: no randomness: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// MessagesService sends, follows and cancels messages.
type MessagesService struct{ c *Client }

// Send queues one SMS (POST /v1/sms/send); ScheduledAt sends it later.
func (s *MessagesService) Send(ctx context.Context, req SendRequest, opts ...CallOption) (*SendResponse, error) {
	k := s.c.call("sendSms")
	k.body = req
	var out SendResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// SendBulk sends one text to at most 100 recipients, as one batch (POST /v1/sms/send-bulk).
func (s *MessagesService) SendBulk(ctx context.Context, req SendBulkRequest, opts ...CallOption) (*BatchResponse, error) {
	k := s.c.call("sendBulkSms")
	k.body = req
	var out BatchResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// SendPersonalized sends at most 100 messages, each with its own text, as one batch
// (POST /v1/sms/send-bulk-personalized).
func (s *MessagesService) SendPersonalized(ctx context.Context, req SendBulkPersonalizedRequest, opts ...CallOption) (*BatchResponse, error) {
	k := s.c.call("sendBulkPersonalizedSms")
	k.body = req
	var out BatchResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// Get answers one message's status, text, timestamps, metadata and error (GET /v1/sms/status/:id).
func (s *MessagesService) Get(ctx context.Context, messageID string, opts ...CallOption) (*Message, error) {
	k := s.c.call("getMessageStatus")
	k.message = messageID
	var out Message
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// Cancel cancels a message still queued (DELETE /v1/sms/:id); ErrConflict otherwise.
func (s *MessagesService) Cancel(ctx context.Context, messageID string, opts ...CallOption) (*CancelResponse, error) {
	k := s.c.call("cancelMessage")
	k.message = messageID
	var out CancelResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// History answers one page of the history, newest first (GET /v1/sms/history).
func (s *MessagesService) History(ctx context.Context, params HistoryParams, opts ...CallOption) (*HistoryResponse, error) {
	k := s.c.call("getHistory")
	k.query = params.values()
	var out HistoryResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// List yields every matching message of the history, newest first, fetching pages of
// params.Limit (100 when zero) as it goes; it stops at the first error, which it yields.
//
//	for m, err := range sms.Messages.List(ctx, smsgw.HistoryParams{Status: smsgw.MessageStatusFailed}) {
//		if err != nil { return err }
//		fmt.Println(m.MessageID)
//	}
//
// Messages sent while it runs do not shift the pages under it: after the first page, the period
// ends at the newest message that page saw.
func (s *MessagesService) List(ctx context.Context, params HistoryParams, opts ...CallOption) iter.Seq2[HistoryItem, error] {
	p := params
	p.Limit, p.Page = pageDefaults(p.Limit, p.Page)
	first := p.Page
	return pageThrough(func() ([]HistoryItem, Pagination, error) {
		page, err := s.History(ctx, p, opts...)
		if err != nil {
			return nil, Pagination{}, err
		}
		if p.Page == first && len(page.Data) > 0 {
			p.ToDate = page.Data[0].CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")
		}
		p.Page++
		return page.Data, page.Pagination, nil
	})
}

// Stats answers counts and the delivery rate over a period, by day (GET /v1/sms/stats).
func (s *MessagesService) Stats(ctx context.Context, params StatsParams, opts ...CallOption) (*StatsResponse, error) {
	k := s.c.call("getStats")
	k.query = params.values()
	var out StatsResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// OTPService sends one-time passwords and checks them.
type OTPService struct{ c *Client }

// Send sends a code by SMS (POST /v1/sms/send-otp); keep OTPID, the code is never returned.
func (s *OTPService) Send(ctx context.Context, req SendOTPRequest, opts ...CallOption) (*SendOTPResponse, error) {
	k := s.c.call("sendOtp")
	k.body = req
	var out SendOTPResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// Verify checks a code (POST /v1/sms/verify-otp): Valid, or not with AttemptsRemaining. It is
// not retried once the gateway may have counted it.
func (s *OTPService) Verify(ctx context.Context, req VerifyOTPRequest, opts ...CallOption) (*VerifyOTPResponse, error) {
	k := s.c.call("verifyOtp")
	k.body = req
	var out VerifyOTPResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// Stats answers the codes sent, verified, expired, the wrong codes and the conversion rate over a
// period, by day and by destination country (GET /v1/otp/stats; the filters of Messages.Stats).
func (s *OTPService) Stats(ctx context.Context, params OTPStatsParams, opts ...CallOption) (*OTPStatsResponse, error) {
	k := s.c.call("getOtpStats")
	k.query = params.values()
	var out OTPStatsResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// InboxService reads the SMS the client's phones received (docs/api/receiving.md).
type InboxService struct{ c *Client }

// Page answers one page of the received SMS, newest first by received_at (GET /v1/sms/inbox).
func (s *InboxService) Page(ctx context.Context, params ListInboxParams, opts ...CallOption) (*InboxResponse, error) {
	k := s.c.call("listInbox")
	k.query = params.values()
	var out InboxResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// List yields every matching received SMS, newest first, fetching pages of params.Limit (100
// when zero) as it goes; it stops at the first error, which it yields.
//
//	for m, err := range sms.Inbox.List(ctx, smsgw.ListInboxParams{From: "+33698765432"}) {
//		if err != nil { return err }
//		fmt.Println(m.Message)
//	}
//
// SMS received while it runs do not shift the pages under it: after the first page, the period
// ends at the newest SMS that page saw.
func (s *InboxService) List(ctx context.Context, params ListInboxParams, opts ...CallOption) iter.Seq2[ReceivedSMS, error] {
	p := params
	p.Limit, p.Page = pageDefaults(p.Limit, p.Page)
	first := p.Page
	return pageThrough(func() ([]ReceivedSMS, Pagination, error) {
		page, err := s.Page(ctx, p, opts...)
		if err != nil {
			return nil, Pagination{}, err
		}
		if p.Page == first && len(page.Data) > 0 {
			p.ToDate = page.Data[0].ReceivedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")
		}
		p.Page++
		return page.Data, page.Pagination, nil
	})
}

// Get answers one received SMS (GET /v1/sms/inbox/:id); ErrNotFound (RECEIVED_NOT_FOUND) otherwise.
func (s *InboxService) Get(ctx context.Context, id string, opts ...CallOption) (*ReceivedSMSResponse, error) {
	k := s.c.call("getReceived")
	k.param = id
	var out ReceivedSMSResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// OptOutsService reads and changes the suppression list of the key's mode: numbers that receive
// nothing (docs/api/opt-outs.md).
type OptOutsService struct{ c *Client }

// Page answers one page of the list, newest first (GET /v1/opt-outs).
func (s *OptOutsService) Page(ctx context.Context, params ListOptOutsParams, opts ...CallOption) (*OptOutsResponse, error) {
	k := s.c.call("listOptOuts")
	k.query = params.values()
	var out OptOutsResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// List yields every number on the list, newest first, fetching pages of params.Limit (100 when
// zero) as it goes; it stops at the first error, which it yields. A number added while it runs
// shifts the later pages by one: an entry may come twice.
func (s *OptOutsService) List(ctx context.Context, params ListOptOutsParams, opts ...CallOption) iter.Seq2[OptOut, error] {
	p := params
	p.Limit, p.Page = pageDefaults(p.Limit, p.Page)
	return pageThrough(func() ([]OptOut, Pagination, error) {
		page, err := s.Page(ctx, p, opts...)
		if err != nil {
			return nil, Pagination{}, err
		}
		p.Page++
		return page.Data, page.Pagination, nil
	})
}

// Add puts a number on the list (POST /v1/opt-outs); one already there answers its first entry.
func (s *OptOutsService) Add(ctx context.Context, req AddOptOutRequest, opts ...CallOption) (*OptOutResponse, error) {
	k := s.c.call("addOptOut")
	k.body = req
	var out OptOutResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// Remove takes a number off the list (DELETE /v1/opt-outs/:phone_number, its + sent as %2B);
// ErrNotFound (OPT_OUT_NOT_FOUND) when it is not on it.
func (s *OptOutsService) Remove(ctx context.Context, phoneNumber string, opts ...CallOption) (*RemoveOptOutResponse, error) {
	k := s.c.call("removeOptOut")
	k.param = phoneNumber
	var out RemoveOptOutResponse
	return answer(&out, s.c.do(ctx, k, &out, opts))
}

// AuthService checks credentials.
type AuthService struct{ c *Client }

// Test checks the key, the client and the device (GET /v1/auth/test) and answers the key's mode.
func (s *AuthService) Test(ctx context.Context, opts ...CallOption) (*AuthTestResponse, error) {
	var out AuthTestResponse
	return answer(&out, s.c.do(ctx, s.c.call("testAuth"), &out, opts))
}

// pageDefaults gives a list's first page and page size when the caller left them at zero.
func pageDefaults(limit, page int) (int, int) {
	if limit == 0 {
		limit = 100
	}
	if page == 0 {
		page = 1
	}
	return limit, page
}

// pageThrough yields the items of the pages next answers, one page after another, until the last
// page or an empty one; it stops at the first error, which it yields.
func pageThrough[T any](next func() ([]T, Pagination, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			items, pagination, err := next()
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if len(items) == 0 || pagination.CurrentPage >= pagination.TotalPages {
				return
			}
		}
	}
}

// answer keeps the (nil, err) convention: a failed call returns no answer.
func answer[T any](out *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}
