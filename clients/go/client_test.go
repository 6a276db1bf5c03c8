package smsgw

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// recorded is one request the fake gateway received.
type recorded struct {
	Method, Path string
	Query        map[string]string
	Header       http.Header
	Body         map[string]any
}

// reply is what the fake answers: a status, headers and a JSON body, or reset, or hang.
type reply struct {
	status int
	body   any
	header map[string]string
	reset  bool
	hang   bool
}

// fakeGateway stands in for the gateway: it records every request and answers from a script.
type fakeGateway struct {
	*httptest.Server
	mu       sync.Mutex
	requests []recorded
	replies  []reply
	fallback reply
	release  chan struct{}
}

func newFake(t *testing.T, tlsServer bool) *fakeGateway {
	t.Helper()
	f := &fakeGateway{fallback: reply{status: 200, body: map[string]any{"success": true}}, release: make(chan struct{})}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.EscapedPath(), Query: map[string]string{}, Header: r.Header}
		for k, v := range r.URL.Query() {
			rec.Query[k] = v[0]
		}
		if len(raw) > 0 {
			_ = json.Unmarshal(raw, &rec.Body)
		}
		f.mu.Lock()
		f.requests = append(f.requests, rec)
		next := f.fallback
		if len(f.replies) > 0 {
			next, f.replies = f.replies[0], f.replies[1:]
		}
		n := len(f.requests)
		f.mu.Unlock()
		switch {
		case next.reset:
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
			return
		case next.hang:
			select {
			case <-f.release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-ID", "req-"+strconv.Itoa(n))
		for k, v := range next.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(next.status)
		switch b := next.body.(type) {
		case nil:
		case string:
			_, _ = io.WriteString(w, b)
		default:
			_ = json.NewEncoder(w).Encode(b)
		}
	})
	if tlsServer {
		f.Server = httptest.NewTLSServer(handler)
	} else {
		f.Server = httptest.NewServer(handler)
	}
	t.Cleanup(func() {
		close(f.release)
		f.Server.Close()
	})
	return f
}

func (f *fakeGateway) reply(r ...reply) {
	f.mu.Lock()
	f.replies = append(f.replies, r...)
	f.mu.Unlock()
}

func (f *fakeGateway) got() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func envelope(code string, details ...map[string]any) map[string]any {
	e := map[string]any{"code": code, "message": "refusé"}
	if len(details) > 0 {
		e["details"] = details
	}
	return map[string]any{"success": false, "error": e}
}

var sent = map[string]any{"success": true, "message_id": "msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E", "status": "queued", "to": "+33612345678", "queued_at": "2030-01-01T00:00:00.000Z", "estimated_delivery": "2030-01-01T00:00:03.000Z"}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func newTestClient(t *testing.T, f *fakeGateway, cfg Config) *Client {
	t.Helper()
	cfg.APIKey, cfg.ClientID = "sgw_test_k", "client_1"
	if cfg.BaseURL == "" {
		cfg.BaseURL = f.URL
	}
	if cfg.Backoff.Base == 0 {
		cfg.Backoff = Backoff{Base: 5 * time.Millisecond, Cap: 20 * time.Millisecond}
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWhenAMessageIsSentThenCredentialsANewIdempotencyKeyAndTheBodyGoOut(t *testing.T) {
	f := newFake(t, false)
	f.reply(reply{status: 200, body: sent, header: map[string]string{"X-Request-ID": "abc", "RateLimit-Limit": "100", "RateLimit-Remaining": "99", "RateLimit-Reset": "60"}})
	c := newTestClient(t, f, Config{DeviceID: "device_A"})
	at := time.Date(2030, 1, 1, 8, 0, 0, 0, time.UTC)
	var info ResponseInfo
	res, err := c.Messages.Send(context.Background(), SendRequest{To: "+33612345678", Message: "Bonjour", Metadata: map[string]any{"order": 7}, ScheduledAt: &at}, WithResponseInfo(&info))
	if err != nil {
		t.Fatal(err)
	}
	if res.MessageID != sent["message_id"] || res.Status != "queued" || res.QueuedAt.IsZero() {
		t.Fatalf("answer %+v", res)
	}
	if info.Status != 200 || info.RequestID != "abc" || info.Replayed || info.Attempts != 1 || *info.RateLimit != (RateLimit{100, 99, 60}) {
		t.Fatalf("info %+v", info)
	}
	r := f.got()[0]
	if r.Method != "POST" || r.Path != "/v1/sms/send" {
		t.Fatalf("%s %s", r.Method, r.Path)
	}
	want := map[string]any{"to": "+33612345678", "message": "Bonjour", "metadata": map[string]any{"order": float64(7)}, "scheduled_at": "2030-01-01T08:00:00Z"}
	if b, _ := json.Marshal(r.Body); string(b) != mustJSON(want) {
		t.Fatalf("body %s", b)
	}
	for k, v := range map[string]string{"X-Api-Key": "sgw_test_k", "X-Client-Id": "client_1", "X-Device-Id": "device_A", "Content-Type": "application/json", "User-Agent": "smsgw-go/" + Version + " " + runtime.Version()} {
		if r.Header.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, r.Header.Get(k), v)
		}
	}
	if key := r.Header.Get("Idempotency-Key"); !uuidRE.MatchString(key) || info.IdempotencyKey != key {
		t.Errorf("Idempotency-Key %q (info %q)", key, info.IdempotencyKey)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestWhenTwoMessagesAreSentThenEachHasItsOwnKeyAndACallersKeyIsKept(t *testing.T) {
	f := newFake(t, false)
	f.fallback = reply{status: 200, body: sent}
	c := newTestClient(t, f, Config{})
	ctx := context.Background()
	for _, opts := range [][]CallOption{nil, nil, {WithIdempotencyKey("order-17")}} {
		if _, err := c.Messages.Send(ctx, SendRequest{To: "+33612345678", Message: "x"}, opts...); err != nil {
			t.Fatal(err)
		}
	}
	got := f.got()
	keys := map[string]bool{}
	for _, r := range got {
		keys[r.Header.Get("Idempotency-Key")] = true
	}
	if len(keys) != 3 || got[2].Header.Get("Idempotency-Key") != "order-17" {
		t.Fatalf("keys %v", keys)
	}
}

func TestWhenASendIsAnswered503Then200ThenItIsRetriedWithTheSameKey(t *testing.T) {
	f := newFake(t, false)
	f.reply(reply{status: 503, body: envelope("SERVICE_UNAVAILABLE"), header: map[string]string{"Retry-After": "0"}},
		reply{status: 200, body: map[string]any{"success": true, "batch_id": "batch_1", "total_recipients": 1, "messages": []any{}}, header: map[string]string{"Idempotent-Replayed": "true"}})
	var info ResponseInfo
	res, err := newTestClient(t, f, Config{}).Messages.SendBulk(context.Background(), SendBulkRequest{Recipients: []string{"+33612345678"}, Message: "x"}, WithResponseInfo(&info))
	if err != nil {
		t.Fatal(err)
	}
	got := f.got()
	if len(got) != 2 || got[0].Header.Get("Idempotency-Key") != got[1].Header.Get("Idempotency-Key") {
		t.Fatalf("%d requests", len(got))
	}
	if res.BatchID != "batch_1" || info.Attempts != 2 || !info.Replayed {
		t.Fatalf("%+v %+v", res, info)
	}
}

func TestWhen429SaysRetryAfter1ThenTheClientWaitsThatSecond(t *testing.T) {
	f := newFake(t, false)
	f.reply(reply{status: 429, body: envelope("RATE_LIMIT_EXCEEDED"), header: map[string]string{"Retry-After": "1"}})
	started := time.Now()
	if _, err := newTestClient(t, f, Config{}).Auth.Test(context.Background()); err != nil {
		t.Fatal(err)
	}
	if time.Since(started) < 950*time.Millisecond || len(f.got()) != 2 {
		t.Fatalf("waited %v, %d requests", time.Since(started), len(f.got()))
	}
}

func TestWhenRetryAfterIsOverAMinuteThenNothingIsRetriedAndTheErrorCarriesIt(t *testing.T) {
	f := newFake(t, false)
	f.reply(reply{status: 429, body: envelope("OTP_RATE_LIMITED"), header: map[string]string{"Retry-After": "3600"}})
	_, err := newTestClient(t, f, Config{}).OTP.Send(context.Background(), SendOTPRequest{To: "+33612345678"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, ErrRateLimited) || apiErr.Code != CodeOTPRateLimited || apiErr.RetryAfter != time.Hour {
		t.Fatalf("%v", err)
	}
	if len(f.got()) != 1 {
		t.Fatalf("%d requests", len(f.got()))
	}
}

func TestWhenAKeyIsUsedOutsideItsScopesOrRangesOrPastItsQuotaThenTheFamilyAndCodeSayWhich(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, Config{})
	for _, code := range []ErrorCode{CodeScopeNotAllowed, CodeIpNotAllowed} {
		f.reply(reply{status: 403, body: envelope(string(code))})
		_, err := c.Messages.Get(context.Background(), "msg_1")
		var apiErr *APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, ErrAuthentication) || apiErr.Status != 403 || apiErr.Code != code {
			t.Fatalf("%s: %v", code, err)
		}
	}
	// Until the next UTC midnight: longer than the client waits, returned at once.
	f.reply(reply{status: 429, body: envelope("QUOTA_EXCEEDED"), header: map[string]string{"Retry-After": "40000"}})
	before := len(f.got())
	_, err := c.Messages.Send(context.Background(), SendRequest{To: "+33612345678", Message: "x"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, ErrRateLimited) || apiErr.Code != CodeQuotaExceeded || apiErr.RetryAfter != 40000*time.Second {
		t.Fatalf("%v", err)
	}
	if len(f.got())-before != 1 {
		t.Fatalf("%d requests", len(f.got())-before)
	}
}

func TestWhenTheGatewayKeepsAnswering503ThenTheCallGivesUpAfterMaxRetries(t *testing.T) {
	f := newFake(t, false)
	f.fallback = reply{status: 503, body: envelope("DEVICE_OFFLINE")}
	_, err := newTestClient(t, f, Config{MaxRetries: 3}).Messages.Send(context.Background(), SendRequest{To: "+33612345678", Message: "x"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, ErrUnavailable) || apiErr.Code != CodeDeviceOffline {
		t.Fatalf("%v", err)
	}
	got := f.got()
	if len(got) != 4 || got[0].Header.Get("Idempotency-Key") != got[3].Header.Get("Idempotency-Key") {
		t.Fatalf("%d requests", len(got))
	}
	if _, err := newTestClient(t, f, Config{MaxRetries: -1}).Auth.Test(context.Background()); !errors.Is(err, ErrUnavailable) || len(f.got()) != 5 {
		t.Fatalf("MaxRetries -1: %v, %d requests", err, len(f.got()))
	}
}

func TestWhenTheAnswerIsA4xxOrA500ThenItIsReturnedAtOnceWithItsFamily(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, Config{})
	cases := []struct {
		status int
		code   ErrorCode
		family error
	}{
		{400, CodeInvalidPhoneNumber, ErrInvalidRequest},
		{401, CodeInvalidAPIKey, ErrAuthentication},
		{404, CodeMessageNotFound, ErrNotFound},
		{409, CodeMessageNotCancellable, ErrConflict},
		{410, CodeOTPExpired, ErrConflict},
		{422, CodeIdempotencyKeyReused, ErrInvalidRequest},
		{500, CodeInternalError, ErrServer},
	}
	for _, tc := range cases {
		f.reply(reply{status: tc.status, body: envelope(string(tc.code), map[string]any{"field": "to", "code": string(tc.code), "status": "sent"}), header: map[string]string{"X-Request-ID": "r-" + strconv.Itoa(tc.status)}})
		before := len(f.got())
		res, err := c.Messages.Send(context.Background(), SendRequest{To: "x", Message: "y"})
		var apiErr *APIError
		if res != nil || !errors.As(err, &apiErr) || !errors.Is(err, tc.family) {
			t.Fatalf("%d: %v (answer %v)", tc.status, err, res)
		}
		if apiErr.Status != tc.status || apiErr.Code != tc.code || apiErr.RequestID != "r-"+strconv.Itoa(tc.status) || len(apiErr.Details) != 1 ||
			apiErr.Details[0].Field != "to" || apiErr.Details[0].Extra["status"] != "sent" || !strings.Contains(err.Error(), string(tc.code)) {
			t.Fatalf("%d: %+v", tc.status, apiErr)
		}
		if len(f.got())-before != 1 {
			t.Fatalf("%d: retried", tc.status)
		}
	}
}

func TestWhenASendMeetsIdempotencyInProgressThenItWaitsAndGetsTheStoredAnswer(t *testing.T) {
	f := newFake(t, false)
	f.reply(reply{reset: true}, reply{status: 409, body: envelope("IDEMPOTENCY_IN_PROGRESS"), header: map[string]string{"Retry-After": "0"}}, reply{status: 200, body: sent})
	res, err := newTestClient(t, f, Config{}).Messages.Send(context.Background(), SendRequest{To: "+33612345678", Message: "x"})
	if err != nil || res.MessageID != sent["message_id"] {
		t.Fatalf("%v %v", res, err)
	}
	got := f.got()
	if len(got) != 3 || got[0].Header.Get("Idempotency-Key") != got[2].Header.Get("Idempotency-Key") {
		t.Fatalf("%d requests", len(got))
	}
}

func TestWhenVerifyOTPLosesItsConnectionOrGets503ThenItIsNotRetried(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, Config{})
	f.reply(reply{reset: true})
	_, err := c.OTP.Verify(context.Background(), VerifyOTPRequest{OTPID: "otp_1", Code: "123456"})
	var ce *ConnectionError
	if !errors.As(err, &ce) || !ce.Sent {
		t.Fatalf("%v", err)
	}
	f.reply(reply{status: 503, body: envelope("SERVICE_UNAVAILABLE")})
	if _, err := c.OTP.Verify(context.Background(), VerifyOTPRequest{OTPID: "otp_1", Code: "123456"}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("%v", err)
	}
	got := f.got()
	if len(got) != 2 || got[1].Header.Get("Idempotency-Key") != "" {
		t.Fatalf("%d requests", len(got))
	}
}

func TestWhenVerifyOTPIsRefusedWith429ThenItIsRetried(t *testing.T) {
	f := newFake(t, false)
	f.reply(reply{status: 429, body: envelope("RATE_LIMIT_EXCEEDED"), header: map[string]string{"Retry-After": "0"}}, reply{status: 200, body: map[string]any{"success": true, "valid": false, "attempts_remaining": 2}})
	res, err := newTestClient(t, f, Config{}).OTP.Verify(context.Background(), VerifyOTPRequest{OTPID: "otp_1", Code: "1"})
	if err != nil || res.Valid || res.AttemptsRemaining == nil || *res.AttemptsRemaining != 2 || len(f.got()) != 2 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestWhenNothingListensThenTheCallFailsWithAConnectionErrorNeverSent(t *testing.T) {
	f := newFake(t, false)
	url := f.URL
	f.Server.Close()
	c, _ := NewClient(Config{APIKey: "k", ClientID: "c", BaseURL: url, Backoff: Backoff{Base: time.Millisecond, Cap: 2 * time.Millisecond}})
	_, err := c.OTP.Verify(context.Background(), VerifyOTPRequest{OTPID: "otp_1", Code: "1"})
	var ce *ConnectionError
	if !errors.As(err, &ce) || ce.Sent || ce.Timeout || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("%v", err)
	}
}

func TestWhenTheGatewayDoesNotAnswerInTimeThenEachAttemptTimesOutAndAReadIsRetried(t *testing.T) {
	f := newFake(t, false)
	f.fallback = reply{hang: true}
	_, err := newTestClient(t, f, Config{Timeout: 150 * time.Millisecond, MaxRetries: 1}).Messages.Get(context.Background(), "msg_1")
	var ce *ConnectionError
	if !errors.As(err, &ce) || !ce.Timeout {
		t.Fatalf("%v", err)
	}
	if len(f.got()) != 2 {
		t.Fatalf("%d requests", len(f.got()))
	}
}

func TestWhenTheCallersContextEndsThenTheCallStopsAndIsNotRetried(t *testing.T) {
	f := newFake(t, false)
	f.fallback = reply{hang: true}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := newTestClient(t, f, Config{}).Messages.Get(ctx, "msg_1")
	if !errors.Is(err, context.DeadlineExceeded) || len(f.got()) != 1 {
		t.Fatalf("%v, %d requests", err, len(f.got()))
	}
}

func TestWhenAnErrorAnswerHasNoEnvelopeThenItIsStillAnAPIErrorOfItsStatus(t *testing.T) {
	f := newFake(t, false)
	f.reply(reply{status: 502, body: "<html>Bad gateway</html>"})
	_, err := newTestClient(t, f, Config{}).Messages.Get(context.Background(), "msg_1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, ErrServer) || apiErr.Code != CodeUnexpectedResponse || !strings.Contains(apiErr.Message, "Bad gateway") {
		t.Fatalf("%v", err)
	}
}

func TestWhenTheHistoryIsListedThenEveryPageIsFetchedWithThePeriodPinned(t *testing.T) {
	f := newFake(t, false)
	item := func(n int) map[string]any {
		return map[string]any{"message_id": "msg_" + strconv.Itoa(n), "created_at": "2030-01-01T00:00:0" + strconv.Itoa(9-n) + ".000Z"}
	}
	page := func(n int, data ...map[string]any) reply {
		return reply{status: 200, body: map[string]any{"success": true, "data": data, "pagination": map[string]any{"current_page": n, "per_page": 2, "total_pages": 3, "total_items": 5}}}
	}
	f.reply(page(1, item(1), item(2)), page(2, item(3), item(4)), page(3, item(5)))
	var ids []string
	for m, err := range newTestClient(t, f, Config{}).Messages.List(context.Background(), HistoryParams{Limit: 2, Status: MessageStatusDelivered}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.MessageID)
	}
	if strings.Join(ids, ",") != "msg_1,msg_2,msg_3,msg_4,msg_5" {
		t.Fatalf("%v", ids)
	}
	want := []map[string]string{
		{"limit": "2", "page": "1", "status": "delivered"},
		{"limit": "2", "page": "2", "status": "delivered", "to_date": "2030-01-01T00:00:08.000Z"},
		{"limit": "2", "page": "3", "status": "delivered", "to_date": "2030-01-01T00:00:08.000Z"},
	}
	for i, r := range f.got() {
		if mustJSON(r.Query) != mustJSON(want[i]) {
			t.Fatalf("page %d: %v", i+1, r.Query)
		}
	}
}

func TestWhenTheListStopsEarlyOrFailsThenNoMorePagesAreFetched(t *testing.T) {
	f := newFake(t, false)
	f.fallback = reply{status: 200, body: map[string]any{"success": true, "data": []any{map[string]any{"message_id": "msg_1", "created_at": "2030-01-01T00:00:00Z"}}, "pagination": map[string]any{"current_page": 1, "per_page": 1, "total_pages": 9, "total_items": 9}}}
	c := newTestClient(t, f, Config{})
	for range c.Messages.List(context.Background(), HistoryParams{}) {
		break
	}
	f.reply(reply{status: 400, body: envelope("INVALID_PAGINATION")})
	var errs int
	for _, err := range c.Messages.List(context.Background(), HistoryParams{Limit: 500}) {
		if errors.Is(err, ErrInvalidRequest) {
			errs++
		}
	}
	if len(f.got()) != 2 || errs != 1 {
		t.Fatalf("%d requests, %d errors", len(f.got()), errs)
	}
}

func TestWhenEveryMethodIsCalledThenTogetherTheyReachEveryOperationOfTheDocument(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, Config{})
	ctx := context.Background()
	calls := []func() error{
		func() error { _, err := c.Messages.Send(ctx, SendRequest{To: "+1", Message: "a"}); return err },
		func() error {
			_, err := c.Messages.SendBulk(ctx, SendBulkRequest{Recipients: []string{"+1"}, Message: "a"})
			return err
		},
		func() error {
			_, err := c.Messages.SendPersonalized(ctx, SendBulkPersonalizedRequest{Messages: []PersonalizedMessage{{To: "+1", Message: "a"}}})
			return err
		},
		func() error { _, err := c.Messages.Get(ctx, "msg_1/../x"); return err },
		func() error { _, err := c.Messages.Cancel(ctx, "msg_1"); return err },
		func() error { _, err := c.Messages.History(ctx, HistoryParams{Page: 2, Search: "bonjour"}); return err },
		func() error { _, err := c.Messages.Stats(ctx, StatsParams{FromDate: "2030-01-01"}); return err },
		func() error { _, err := c.OTP.Send(ctx, SendOTPRequest{To: "+1"}); return err },
		func() error { _, err := c.OTP.Verify(ctx, VerifyOTPRequest{OTPID: "otp_1", Code: "1"}); return err },
		func() error {
			_, err := c.OTP.Stats(ctx, OTPStatsParams{FromDate: "2030-01-01", DeviceID: "device_A"})
			return err
		},
		func() error {
			_, err := c.Inbox.Page(ctx, ListInboxParams{From: "+33698765432", Limit: 10})
			return err
		},
		func() error { _, err := c.Inbox.Get(ctx, "rcv_1"); return err },
		func() error { _, err := c.OptOuts.Page(ctx, ListOptOutsParams{Page: 2}); return err },
		func() error {
			_, err := c.OptOuts.Add(ctx, AddOptOutRequest{PhoneNumber: "+33612345678"})
			return err
		},
		func() error { _, err := c.OptOuts.Remove(ctx, "+33612345678"); return err },
		func() error { _, err := c.Auth.Test(ctx, WithDeviceID("device_B")); return err },
	}
	for _, call := range calls {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	var reached, expected, keyed, wantKeyed []string
	got := f.got()
	for _, r := range got {
		reached = append(reached, r.Method+" "+r.Path)
		if r.Header.Get("Idempotency-Key") != "" {
			keyed = append(keyed, r.Path)
		}
	}
	for _, op := range operations {
		id := "msg_1"
		if op.method == "GET" {
			id = "msg_1%2F..%2Fx"
		}
		path := strings.NewReplacer("{message_id}", id, "{id}", "rcv_1", "{phone_number}", "%2B33612345678").Replace(op.path)
		expected = append(expected, op.method+" "+path)
		if op.idempotencyKey {
			wantKeyed = append(wantKeyed, op.path)
		}
	}
	sort.Strings(reached)
	sort.Strings(expected)
	sort.Strings(keyed)
	sort.Strings(wantKeyed)
	if strings.Join(reached, "\n") != strings.Join(expected, "\n") || strings.Join(keyed, ",") != strings.Join(wantKeyed, ",") {
		t.Fatalf("reached:\n%s\nexpected:\n%s", strings.Join(reached, "\n"), strings.Join(expected, "\n"))
	}
	if got[len(got)-1].Header.Get("X-Device-Id") != "device_B" {
		t.Fatal("WithDeviceID not sent")
	}
}

func TestWhenTheConfigMissesACredentialOrTheURLIsNotHTTPThenNewClientRefusesIt(t *testing.T) {
	for _, cfg := range []Config{{ClientID: "c", BaseURL: "https://x"}, {APIKey: "k", BaseURL: "https://x"}, {APIKey: "k", ClientID: "c"}, {APIKey: "k", ClientID: "c", BaseURL: "ftp://x"}, {APIKey: "k", ClientID: "c", BaseURL: "https://x", CAFile: "/nonexistent"}} {
		if _, err := NewClient(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

func TestWhenTheBaseURLIsPlainHTTPToAnotherMachineThenNewClientRefusesItAndThisMachineIsAccepted(t *testing.T) {
	for _, base := range []string{"http://sms.example.com", "http://10.0.0.5:8443", "http://[2001:db8::1]/", "http://127.0.0.1.example.com"} {
		_, err := NewClient(Config{APIKey: "k", ClientID: "c", BaseURL: base})
		if err == nil || !strings.Contains(err.Error(), "plain http only to this machine") {
			t.Errorf("%s: %v", base, err)
		}
	}
	for _, base := range []string{"http://localhost:8443", "http://127.0.0.1:9", "http://127.1.2.3", "http://[::1]:8443", "https://sms.example.com"} {
		if _, err := NewClient(Config{APIKey: "k", ClientID: "c", BaseURL: base}); err != nil {
			t.Errorf("%s refused: %v", base, err)
		}
	}
}

func TestWhenTheGatewayAnswersARedirectThenTheKeyIsNotSentToItsTargetAndTheCallFailsWithIt(t *testing.T) {
	elsewhere := newFake(t, false)
	for _, own := range []*http.Client{nil, {}} {
		f := newFake(t, false)
		f.fallback = reply{status: 307, header: map[string]string{"Location": elsewhere.URL + "/collect"}}
		_, err := newTestClient(t, f, Config{HTTPClient: own}).Auth.Test(context.Background())
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 307 || apiErr.Code != CodeUnexpectedResponse {
			t.Fatalf("own client %v: %v", own != nil, err)
		}
	}
	if n := len(elsewhere.got()); n != 0 {
		t.Fatalf("the redirect's target got %d requests: %+v", n, elsewhere.got()[0].Header)
	}
}

func TestWhenABaseURLHasAPathPrefixThenTheAPIPathsAreAppendedToIt(t *testing.T) {
	f := newFake(t, false)
	if _, err := newTestClient(t, f, Config{BaseURL: f.URL + "/sms-api/"}).Auth.Test(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := f.got()[0].Path; p != "/sms-api/v1/auth/test" {
		t.Fatal(p)
	}
}

func TestWhenTheCAFileIsGivenThenTheCertificateIsTrustedAndWithoutItRefused(t *testing.T) {
	f := newFake(t, true)
	f.fallback = reply{status: 200, body: map[string]any{"success": true, "mode": "test"}}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	trusted := newTestClient(t, f, Config{CAFile: ca})
	if res, err := trusted.Auth.Test(context.Background()); err != nil || res.Mode != KeyModeTest {
		t.Fatalf("%v %v", res, err)
	}
	untrusted := newTestClient(t, f, Config{MaxRetries: -1})
	_, err := untrusted.Auth.Test(context.Background())
	var ce *ConnectionError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("%v", err)
	}
}

func TestWhenAMessageIsSentWithTTLAndFailoverThenBothGoInTheBody(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, Config{DeviceID: "device_A"})
	ctx := context.Background()
	if _, err := c.Messages.Send(ctx, SendRequest{To: "+33612345678", Message: "a", Ttl: 600, Failover: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Messages.SendBulk(ctx, SendBulkRequest{Recipients: []string{"+33612345678"}, Message: "a", Ttl: 3600}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Messages.SendPersonalized(ctx, SendBulkPersonalizedRequest{Messages: []PersonalizedMessage{{To: "+33612345678", Message: "a", Ttl: 120}}, Ttl: 60, Failover: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.OTP.Send(ctx, SendOTPRequest{To: "+33612345678", Failover: true, EndUserKey: "203.0.113.7", FallbackAfter: 30}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"failover":true,"message":"a","to":"+33612345678","ttl":600}`,
		`{"message":"a","recipients":["+33612345678"],"ttl":3600}`,
		`{"failover":true,"messages":[{"message":"a","to":"+33612345678","ttl":120}],"ttl":60}`,
		`{"end_user_key":"203.0.113.7","failover":true,"fallback_after":30,"to":"+33612345678"}`,
	}
	for i, r := range f.got() {
		if mustJSON(r.Body) != want[i] {
			t.Fatalf("request %d: %s", i+1, mustJSON(r.Body))
		}
	}
}

func TestWhenTheInboxIsAskedForThenItsFiltersGoInTheQueryAndOneSMSComesByItsEscapedID(t *testing.T) {
	f := newFake(t, false)
	received := map[string]any{"id": "rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E", "from": "+33698765432", "device_id": "device_A", "sim": 1, "message": "Oui", "received_at": "2026-11-25T09:12:03.000Z", "created_at": "2026-11-25T09:12:03.412Z"}
	one := map[string]any{"success": true}
	for k, v := range received {
		one[k] = v
	}
	f.reply(
		reply{status: 200, body: map[string]any{"success": true, "data": []any{received}, "pagination": map[string]any{"current_page": 1, "per_page": 50, "total_pages": 1, "total_items": 1}}},
		reply{status: 200, body: one},
		reply{status: 404, body: envelope("RECEIVED_NOT_FOUND")},
	)
	c := newTestClient(t, f, Config{DeviceID: "device_A"})
	ctx := context.Background()
	page, err := c.Inbox.Page(ctx, ListInboxParams{From: "+33698765432", DeviceID: "device_A", FromDate: "2026-11-01", ToDate: "2026-11-30", Search: "oui", Page: 1, Limit: 50})
	if err != nil || len(page.Data) != 1 || page.Data[0].From != "+33698765432" || page.Data[0].Sim == nil || *page.Data[0].Sim != 1 {
		t.Fatalf("%+v %v", page, err)
	}
	got, err := c.Inbox.Get(ctx, "rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E")
	if err != nil || got.Message != "Oui" || !got.ReceivedAt.Equal(time.Date(2026, 11, 25, 9, 12, 3, 0, time.UTC)) {
		t.Fatalf("%+v %v", got, err)
	}
	var apiErr *APIError
	if _, err := c.Inbox.Get(ctx, "rcv_x/../y"); !errors.Is(err, ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Code != "RECEIVED_NOT_FOUND" {
		t.Fatalf("%v", err)
	}
	rs := f.got()
	if mustJSON(rs[0].Query) != mustJSON(map[string]string{"from": "+33698765432", "device_id": "device_A", "from_date": "2026-11-01", "to_date": "2026-11-30", "search": "oui", "page": "1", "limit": "50"}) {
		t.Fatalf("%v", rs[0].Query)
	}
	var paths []string
	for _, r := range rs {
		paths = append(paths, r.Method+" "+r.Path)
		if r.Header.Get("Idempotency-Key") != "" || r.Header.Get("X-Device-Id") != "" {
			t.Fatalf("%s: %v", r.Path, r.Header)
		}
	}
	if strings.Join(paths, ",") != "GET /v1/sms/inbox,GET /v1/sms/inbox/rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E,GET /v1/sms/inbox/rcv_x%2F..%2Fy" {
		t.Fatalf("%v", paths)
	}
}

func TestWhenTheInboxIsListedThenEveryPageIsFetchedWithThePeriodPinned(t *testing.T) {
	f := newFake(t, false)
	item := func(n int) map[string]any {
		return map[string]any{"id": "rcv_" + strconv.Itoa(n), "received_at": "2030-01-01T00:00:0" + strconv.Itoa(9-n) + ".000Z", "created_at": "2030-01-01T00:00:09.000Z"}
	}
	page := func(n int, data ...map[string]any) reply {
		return reply{status: 200, body: map[string]any{"success": true, "data": data, "pagination": map[string]any{"current_page": n, "per_page": 2, "total_pages": 2, "total_items": 3}}}
	}
	f.reply(page(1, item(1), item(2)), page(2, item(3)))
	var ids []string
	for m, err := range newTestClient(t, f, Config{}).Inbox.List(context.Background(), ListInboxParams{Limit: 2, From: "BANQUE"}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "rcv_1,rcv_2,rcv_3" {
		t.Fatalf("%v", ids)
	}
	want := []map[string]string{
		{"from": "BANQUE", "limit": "2", "page": "1"},
		{"from": "BANQUE", "limit": "2", "page": "2", "to_date": "2030-01-01T00:00:08.000Z"},
	}
	for i, r := range f.got() {
		if mustJSON(r.Query) != mustJSON(want[i]) {
			t.Fatalf("page %d: %v", i+1, r.Query)
		}
	}
}

func TestWhenTheOptOutsAreListedAddedAndRemovedThenThePlusIsEscapedInThePath(t *testing.T) {
	f := newFake(t, false)
	entry := func(n int) map[string]any {
		return map[string]any{"phone_number": "+3361234567" + strconv.Itoa(n), "source": "api", "keyword": nil, "created_at": "2026-11-25T09:20:00.000Z"}
	}
	page := func(n int, data ...map[string]any) reply {
		return reply{status: 200, body: map[string]any{"success": true, "data": data, "pagination": map[string]any{"current_page": n, "per_page": 2, "total_pages": 2, "total_items": 3}}}
	}
	added := entry(4)
	added["success"] = true
	f.reply(
		page(1, entry(1), entry(2)),
		page(2, entry(3)),
		reply{status: 200, body: added},
		reply{status: 200, body: map[string]any{"success": true, "phone_number": "+33612345674", "removed": true}},
		reply{status: 404, body: envelope("OPT_OUT_NOT_FOUND")},
	)
	c := newTestClient(t, f, Config{})
	ctx := context.Background()
	var numbers []string
	for o, err := range c.OptOuts.List(ctx, ListOptOutsParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		numbers = append(numbers, o.PhoneNumber)
	}
	if strings.Join(numbers, ",") != "+33612345671,+33612345672,+33612345673" {
		t.Fatalf("%v", numbers)
	}
	if res, err := c.OptOuts.Add(ctx, AddOptOutRequest{PhoneNumber: "+33612345674"}); err != nil || res.Source != OptOutSourceAPI {
		t.Fatalf("%+v %v", res, err)
	}
	if res, err := c.OptOuts.Remove(ctx, "+33612345674"); err != nil || !res.Removed {
		t.Fatalf("%+v %v", res, err)
	}
	var apiErr *APIError
	if _, err := c.OptOuts.Remove(ctx, "+33612345674"); !errors.Is(err, ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Code != CodeOptOutNotFound {
		t.Fatalf("%v", err)
	}
	want := []string{
		`GET /v1/opt-outs {"limit":"2","page":"1"} null`,
		`GET /v1/opt-outs {"limit":"2","page":"2"} null`,
		`POST /v1/opt-outs {} {"phone_number":"+33612345674"}`,
		`DELETE /v1/opt-outs/%2B33612345674 {} null`,
		`DELETE /v1/opt-outs/%2B33612345674 {} null`,
	}
	rs := f.got()
	for i, r := range rs {
		if got := r.Method + " " + r.Path + " " + mustJSON(r.Query) + " " + mustJSON(r.Body); got != want[i] {
			t.Fatalf("request %d: %s", i+1, got)
		}
	}
	if rs[2].Header.Get("Idempotency-Key") != "" {
		t.Fatal("an opt-out is sent without Idempotency-Key")
	}
}
