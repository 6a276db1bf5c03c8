package smsgw

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

const secret = "whsec_test"

var signedAt = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

func eventBody(over map[string]any) []byte {
	e := map[string]any{
		"event":     "sms.failed",
		"event_id":  "evt_1",
		"timestamp": "2030-01-01T12:00:00.000Z",
		"data":      map[string]any{"message_id": "msg_1", "status": "failed", "to": "+33600000002", "failed_at": "2030-01-01T11:59:59.000Z", "error": map[string]any{"code": "OUT_OF_NETWORK", "message": "Destinataire hors réseau."}, "metadata": map[string]any{"order": "A-17"}},
	}
	for k, v := range over {
		if v == nil {
			delete(e, k)
		} else {
			e[k] = v
		}
	}
	b, _ := json.Marshal(e)
	return b
}

func at(t time.Time) WebhookOptions { return WebhookOptions{Now: func() time.Time { return t }} }

func TestWhenTheBodyIsSignedWithTheSecretThenTheEventComesBackParsed(t *testing.T) {
	raw := eventBody(nil)
	ev, err := VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt))
	if err != nil {
		t.Fatal(err)
	}
	data, err := ev.MessageData()
	if err != nil || ev.Event != "sms.failed" || ev.EventID != "evt_1" || data.MessageID != "msg_1" || data.Error.Code != SMSErrorCodeOutOfNetwork || data.Metadata["order"] != "A-17" {
		t.Fatalf("%+v %+v %v", ev, data, err)
	}
	if _, err := VerifyWebhook(raw, strings.ToUpper(SignWebhook(raw, secret)), secret, at(signedAt)); err != nil {
		t.Fatal(err)
	}
}

func TestWhenTheSignatureBodyOrSecretDifferOrTheHeaderIsMissingThenErrWebhookSignature(t *testing.T) {
	raw := eventBody(nil)
	sig := SignWebhook(raw, secret)
	var indented map[string]any
	_ = json.Unmarshal(raw, &indented)
	reencoded, _ := json.MarshalIndent(indented, "", " ")
	cases := []struct {
		body     []byte
		sig, key string
	}{
		{[]byte(strings.Replace(string(raw), "msg_1", "msg_2", 1)), sig, secret},
		{raw, sig, "whsec_other"},
		{raw, "", secret},
		{raw, "zz", secret},
		{raw, sig[:32], secret},
		{reencoded, sig, secret},
	}
	for i, c := range cases {
		_, err := VerifyWebhook(c.body, c.sig, c.key, at(signedAt))
		if !errors.Is(err, ErrWebhookSignature) {
			t.Errorf("case %d: %v", i, err)
		}
	}
}

func TestWhenSignedMoreThanTheToleranceAwayThenErrWebhookTimestamp(t *testing.T) {
	raw := eventBody(nil)
	sig := SignWebhook(raw, secret)
	for _, now := range []time.Time{signedAt.Add(301 * time.Second), signedAt.Add(-301 * time.Second)} {
		if _, err := VerifyWebhook(raw, sig, secret, at(now)); !errors.Is(err, ErrWebhookTimestamp) {
			t.Errorf("%v: %v", now, err)
		}
	}
	if _, err := VerifyWebhook(raw, sig, secret, at(signedAt.Add(299*time.Second))); err != nil {
		t.Error(err)
	}
	if _, err := VerifyWebhook(raw, sig, secret, WebhookOptions{Tolerance: 10 * time.Minute, Now: func() time.Time { return signedAt.Add(500 * time.Second) }}); err != nil {
		t.Error(err)
	}
}

func TestWhenASignedBodyIsNotAnEventThenErrWebhookPayload(t *testing.T) {
	for _, raw := range [][]byte{[]byte("not json"), []byte("[1]"), eventBody(map[string]any{"event_id": nil}), eventBody(map[string]any{"timestamp": 5}), eventBody(map[string]any{"event": ""})} {
		if _, err := VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt)); !errors.Is(err, ErrWebhookPayload) {
			t.Errorf("%s: %v", raw, err)
		}
	}
	raw := eventBody(map[string]any{"timestamp": "yesterday"})
	if _, err := VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt)); !errors.Is(err, ErrWebhookTimestamp) {
		t.Errorf("yesterday: %v", err)
	}
}

func TestWhenTheSameEventArrivesTwiceThenTheSecondIsADuplicateAndRefusalsAreNotRemembered(t *testing.T) {
	seen := NewMemorySeenEvents(0, 0)
	raw := eventBody(nil)
	sig := SignWebhook(raw, secret)
	opts := WebhookOptions{Seen: seen, Now: func() time.Time { return signedAt }}
	if _, err := VerifyWebhook(raw, "bad", secret, opts); !errors.Is(err, ErrWebhookSignature) {
		t.Fatal(err)
	}
	if _, err := VerifyWebhook(raw, sig, secret, WebhookOptions{Seen: seen, Now: func() time.Time { return signedAt.Add(time.Hour) }}); !errors.Is(err, ErrWebhookTimestamp) {
		t.Fatal(err)
	}
	if _, err := VerifyWebhook(raw, sig, secret, opts); err != nil {
		t.Fatal(err)
	}
	_, err := VerifyWebhook(raw, sig, secret, opts)
	var we *WebhookError
	if !errors.Is(err, ErrWebhookDuplicate) || !errors.As(err, &we) || we.Event.EventID != "evt_1" {
		t.Fatalf("%v", err)
	}
	other := eventBody(map[string]any{"event_id": "evt_2"})
	if _, err := VerifyWebhook(other, SignWebhook(other, secret), secret, opts); err != nil {
		t.Fatal(err)
	}
}

func TestWhenCopiesArriveOnManyGoroutinesAtOnceThenExactlyOneIsHandled(t *testing.T) {
	seen := NewMemorySeenEvents(0, 0)
	raw := eventBody(nil)
	sig := SignWebhook(raw, secret)
	var mu sync.Mutex
	handled := 0
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := VerifyWebhook(raw, sig, secret, WebhookOptions{Seen: seen, Now: func() time.Time { return signedAt }}); err == nil {
				mu.Lock()
				handled++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if handled != 1 {
		t.Fatalf("handled %d times", handled)
	}
}

func TestWhenRememberedIDsAreOlderThanTheTTLOrTooManyThenTheOldestAreForgotten(t *testing.T) {
	now := time.Unix(0, 0)
	seen := NewMemorySeenEvents(time.Second, 3)
	seen.now = func() time.Time { return now }
	add := func(id string) bool { ok, _ := seen.Add(id); return ok }
	if !add("a") || add("a") {
		t.Fatal("a")
	}
	now = now.Add(1500 * time.Millisecond)
	if !add("a") || !add("b") || !add("c") || !add("d") || !add("a") || add("d") {
		t.Fatal("eviction")
	}
}

func TestWhenADeviceEventArrivesThenItsDataDecodes(t *testing.T) {
	raw := eventBody(map[string]any{"event": "device.connected", "data": map[string]any{"device_id": "device_1", "client_id": "client_1", "name": "Pixel 8", "at": "2030-01-01T12:00:00Z", "reason": "connected"}})
	ev, err := VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ev.DeviceData()
	if err != nil || d.Name != "Pixel 8" || d.At.IsZero() {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestWhenTheSecretIsEmptyThenNothingIsChecked(t *testing.T) {
	if _, err := VerifyWebhook(eventBody(nil), "x", "", WebhookOptions{}); err == nil {
		t.Fatal("accepted")
	}
}

func TestWhenAnSMSReceivedEventArrivesThenItsDataDecodesWithANullSim(t *testing.T) {
	data := map[string]any{"id": "rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E", "from": "+33698765432", "device_id": "device_1", "sim": 2, "message": "STOP", "received_at": "2030-01-01T11:59:58Z"}
	raw := eventBody(map[string]any{"event": "sms.received", "data": data})
	ev, err := VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ev.ReceivedData()
	if err != nil || ev.Event != "sms.received" || d.ID != "rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E" || d.From != "+33698765432" || d.Sim == nil || *d.Sim != 2 || d.Message != "STOP" || d.ReceivedAt.IsZero() {
		t.Fatalf("%+v %v", d, err)
	}
	data["sim"] = nil
	raw = eventBody(map[string]any{"event": "sms.received", "data": data})
	ev, _ = VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt))
	if d, err := ev.ReceivedData(); err != nil || d.Sim != nil {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestWhenAMessageToAnOptedOutNumberFailsThenItsCodeIsOptedOut(t *testing.T) {
	raw := eventBody(map[string]any{"data": map[string]any{"message_id": "msg_1", "status": "failed", "to": "+33698765432", "failed_at": "2030-01-01T11:59:59Z", "error": map[string]any{"code": "OPTED_OUT", "message": "Le destinataire a demandé à ne plus recevoir de SMS de ce compte."}, "metadata": map[string]any{}}})
	ev, err := VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ev.MessageData()
	if err != nil || d.Status != MessageStatusFailed || d.Error == nil || d.Error.Code != SMSErrorCodeOptedOut {
		t.Fatalf("%+v %v", d, err)
	}
}
