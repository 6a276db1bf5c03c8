// The client libraries' end-to-end scenario, with the Go library (clients/go).
//
// The same steps as e2e/test/support/client-scenario.ts, with the same inputs (the environment)
// and the same report, printed as one JSON line on standard output;
// e2e/test/client-libraries.test.ts runs it against the real gateway and asserts on the report.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	smsgw "github.com/smsgw/smsgw-go"
)

type errorSeen struct {
	Kind      string   `json:"kind"`
	Status    int      `json:"status"`
	Code      string   `json:"code"`
	RequestID string   `json:"request_id"`
	Fields    []string `json:"fields"`
}

func seen(err error) errorSeen {
	var apiErr *smsgw.APIError
	if !errors.As(err, &apiErr) {
		fail("expected an API error, got %v", err)
	}
	kind := "other"
	for _, k := range []struct {
		family error
		name   string
	}{{smsgw.ErrInvalidRequest, "invalid_request"}, {smsgw.ErrAuthentication, "authentication"}, {smsgw.ErrNotFound, "not_found"}, {smsgw.ErrConflict, "conflict"}, {smsgw.ErrRateLimited, "rate_limit"}, {smsgw.ErrUnavailable, "unavailable"}, {smsgw.ErrServer, "server"}} {
		if errors.Is(err, k.family) {
			kind = k.name
			break
		}
	}
	fields := []string{}
	for _, d := range apiErr.Details {
		fields = append(fields, d.Field)
	}
	return errorSeen{Kind: kind, Status: apiErr.Status, Code: string(apiErr.Code), RequestID: apiErr.RequestID, Fields: fields}
}

func refused(err error) errorSeen {
	if err == nil {
		fail("the call was expected to fail")
	}
	return seen(err)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func must[T any](v T, err error) T {
	if err != nil {
		fail("%v", err)
	}
	return v
}

func waitFor[T any](what string, probe func() (T, bool)) T {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if v, ok := probe(); ok {
			return v
		}
		if time.Now().After(deadline) {
			fail("timed out waiting for %s", what)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

type delivery struct {
	Path      string `json:"path"`
	Signature string `json:"signature"`
	Raw       string `json:"raw"`
}

func deliveries(dir string) []delivery {
	names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(names)
	var out []delivery
	for _, n := range names {
		var d delivery
		if b, err := os.ReadFile(n); err == nil && json.Unmarshal(b, &d) == nil {
			out = append(out, d)
		}
	}
	return out
}

func main() {
	env := os.Getenv
	lang := env("SMSGW_LANG")
	ctx := context.Background()
	client := func(key, base string) *smsgw.Client {
		return must(smsgw.NewClient(smsgw.Config{APIKey: key, ClientID: env("SMSGW_CLIENT_ID"), BaseURL: base, CAFile: env("SMSGW_CA_FILE"), DeviceID: env("SMSGW_DEVICE_ID")}))
	}
	sms := client(env("SMSGW_API_KEY"), env("SMSGW_BASE_URL"))

	auth := must(sms.Auth.Test(ctx))

	sent := must(sms.Messages.Send(ctx, smsgw.SendRequest{To: "+33612345678", Message: "Bonjour (" + lang + ")", Metadata: map[string]any{"lang": lang}}))
	delivered := waitFor("the single message to be delivered", func() (*smsgw.Message, bool) {
		m := must(sms.Messages.Get(ctx, sent.MessageID))
		return m, m.Status == smsgw.MessageStatusDelivered || m.Status == smsgw.MessageStatusFailed
	})

	bulk := must(sms.Messages.SendBulk(ctx, smsgw.SendBulkRequest{Recipients: []string{"+33612345001", "+33612345002", "+33612345003"}, Message: "Promo (" + lang + ")"}))

	perso := must(sms.Messages.SendPersonalized(ctx, smsgw.SendBulkPersonalizedRequest{Messages: []smsgw.PersonalizedMessage{
		{To: "+33612345011", Message: "Bonjour Ana (" + lang + ")"},
		{To: "+33612345012", Message: "Bonjour Bo (" + lang + ")"},
	}}))
	var texts, persoIDs []string
	for _, m := range perso.Messages {
		persoIDs = append(persoIDs, m.MessageID)
		texts = append(texts, must(sms.Messages.Get(ctx, m.MessageID)).Message)
	}

	at := time.Now().Add(time.Hour)
	later := must(sms.Messages.Send(ctx, smsgw.SendRequest{To: "+33612345021", Message: "Rappel (" + lang + ")", ScheduledAt: &at}))
	cancelled := must(sms.Messages.Cancel(ctx, later.MessageID))
	after := must(sms.Messages.Get(ctx, later.MessageID))
	_, err := sms.Messages.Cancel(ctx, later.MessageID)
	cancelAgain := refused(err)

	viaProxy := client(env("SMSGW_API_KEY"), env("SMSGW_PROXY_URL"))
	var info smsgw.ResponseInfo
	retried := must(viaProxy.Messages.Send(ctx, smsgw.SendRequest{To: "+33612345031", Message: "Relance (" + lang + ")"}, smsgw.WithResponseInfo(&info)))
	retryHistory := must(sms.Messages.History(ctx, smsgw.HistoryParams{Search: "Relance (" + lang + ")"}))

	ids := []string{}
	for m, err := range sms.Messages.List(ctx, smsgw.HistoryParams{Limit: 3}) {
		if err != nil {
			fail("%v", err)
		}
		ids = append(ids, m.MessageID)
	}
	page2 := must(sms.Messages.History(ctx, smsgw.HistoryParams{Page: 2, Limit: 3}))

	test := client(env("SMSGW_TEST_API_KEY"), env("SMSGW_BASE_URL"))
	otp := must(test.OTP.Send(ctx, smsgw.SendOTPRequest{To: "+33612345041"}))
	wrong := must(test.OTP.Verify(ctx, smsgw.VerifyOTPRequest{OTPID: otp.OTPID, Code: "000000"}))
	right := must(test.OTP.Verify(ctx, smsgw.VerifyOTPRequest{OTPID: otp.OTPID, Code: "123456"}))
	_, err = test.OTP.Verify(ctx, smsgw.VerifyOTPRequest{OTPID: otp.OTPID, Code: "123456"})
	otpAgain := refused(err)

	_, err = sms.Messages.Send(ctx, smsgw.SendRequest{To: "12345", Message: "x"})
	invalidPhone := refused(err)
	_, err = sms.Messages.Get(ctx, "msg_00000000000000000000000000")
	notFound := refused(err)
	_, err = client("sgw_live_notakey", env("SMSGW_BASE_URL")).Auth.Test(ctx)
	badKey := refused(err)

	dir := env("SMSGW_WEBHOOK_DIR")
	type body struct {
		Event   string `json:"event"`
		EventID string `json:"event_id"`
		Data    struct {
			MessageID string `json:"message_id"`
		} `json:"data"`
	}
	mine := func(d delivery) (body, bool) {
		var b body
		ok := json.Unmarshal([]byte(d.Raw), &b) == nil && d.Path == env("SMSGW_WEBHOOK_PATH") && b.Event == "sms.delivered" && b.Data.MessageID == sent.MessageID
		return b, ok
	}
	first := waitFor("the sms.delivered webhook", func() (body, bool) {
		for _, d := range deliveries(dir) {
			if b, ok := mine(d); ok {
				return b, true
			}
		}
		return body{}, false
	})
	if err := os.WriteFile(filepath.Join(dir, "replay-"+first.EventID+".req"), nil, 0o644); err != nil {
		fail("%v", err)
	}
	both := waitFor("the replayed webhook", func() ([]delivery, bool) {
		var found []delivery
		for _, d := range deliveries(dir) {
			if b, ok := mine(d); ok && b.EventID == first.EventID {
				found = append(found, d)
			}
		}
		return found, len(found) >= 2
	})
	secret := env("SMSGW_WEBHOOK_SECRET")
	store := smsgw.NewMemorySeenEvents(0, 0)
	event := must(smsgw.VerifyWebhook([]byte(both[0].Raw), both[0].Signature, secret, smsgw.WebhookOptions{Seen: store}))
	data := must(event.MessageData())
	reason := func(err error) string {
		for _, r := range []struct {
			err  error
			name string
		}{{smsgw.ErrWebhookSignature, "signature"}, {smsgw.ErrWebhookPayload, "payload"}, {smsgw.ErrWebhookTimestamp, "timestamp"}, {smsgw.ErrWebhookDuplicate, "duplicate"}} {
			if errors.Is(err, r.err) {
				return r.name
			}
		}
		if err == nil {
			return "accepted"
		}
		return err.Error()
	}
	signedAt := must(time.Parse(time.RFC3339Nano, event.Timestamp))
	_, dupErr := smsgw.VerifyWebhook([]byte(both[1].Raw), both[1].Signature, secret, smsgw.WebhookOptions{Seen: store})
	_, tamperErr := smsgw.VerifyWebhook([]byte(strings.Replace(both[0].Raw, sent.MessageID, later.MessageID, 1)), both[0].Signature, secret, smsgw.WebhookOptions{})
	_, staleErr := smsgw.VerifyWebhook([]byte(both[0].Raw), both[0].Signature, secret, smsgw.WebhookOptions{Now: func() time.Time { return signedAt.Add(10 * time.Minute) }})

	bulkIDs, bulkStatuses := []string{}, []string{}
	for _, m := range bulk.Messages {
		bulkIDs = append(bulkIDs, m.MessageID)
		bulkStatuses = append(bulkStatuses, m.Status)
	}
	attemptsRemaining := -1
	if wrong.AttemptsRemaining != nil {
		attemptsRemaining = *wrong.AttemptsRemaining
	}
	report := map[string]any{
		"auth":         map[string]any{"mode": auth.Mode, "client_id": auth.ClientID, "device_id": auth.DeviceID},
		"single":       map[string]any{"message_id": sent.MessageID, "status": sent.Status, "to": sent.To, "final_status": delivered.Status},
		"bulk":         map[string]any{"batch_id": bulk.BatchID, "total_recipients": bulk.TotalRecipients, "message_ids": bulkIDs, "statuses": bulkStatuses},
		"personalized": map[string]any{"batch_id": perso.BatchID, "message_ids": persoIDs, "texts": texts},
		"scheduled": map[string]any{
			"message_id": later.MessageID, "status": later.Status, "scheduled": later.ScheduledAt != nil,
			"cancel_status": cancelled.Status, "status_after": after.Status, "cancel_again": cancelAgain,
		},
		"retry": map[string]any{
			"message_id": retried.MessageID, "idempotency_key": info.IdempotencyKey, "attempts": info.Attempts,
			"replayed": info.Replayed, "history_total": retryHistory.Pagination.TotalItems,
		},
		"history": map[string]any{
			"ids": ids, "total_items": page2.Pagination.TotalItems,
			"page2": map[string]any{"current_page": page2.Pagination.CurrentPage, "per_page": page2.Pagination.PerPage, "count": len(page2.Data)},
		},
		"otp": map[string]any{
			"otp_id": otp.OTPID, "wrong": map[string]any{"valid": wrong.Valid, "attempts_remaining": attemptsRemaining},
			"right": map[string]any{"valid": right.Valid}, "again": otpAgain,
		},
		"errors":  map[string]any{"invalid_phone": invalidPhone, "not_found": notFound, "bad_key": badKey},
		"webhook": map[string]any{"event": event.Event, "event_id": event.EventID, "message_id": data.MessageID, "duplicate": reason(dupErr), "tampered": reason(tamperErr), "stale": reason(staleErr)},
	}
	out, _ := json.Marshal(report)
	fmt.Println(string(out))
}
