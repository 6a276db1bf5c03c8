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

func batchEvent(eventID string, over map[string]any) map[string]any {
	e := map[string]any{
		"event":     "sms.sent",
		"event_id":  eventID,
		"timestamp": "2030-01-01T12:00:00.000Z",
		"data":      map[string]any{"message_id": "msg_" + eventID, "status": "sent", "to": "+33612345678", "sim": nil, "metadata": map[string]any{}},
	}
	for k, v := range over {
		if v == nil {
			delete(e, k)
		} else {
			e[k] = v
		}
	}
	return e
}

func batchBody(events ...any) []byte {
	b, _ := json.Marshal(events)
	return b
}

func eventIDs(events []WebhookEvent) []string {
	ids := []string{}
	for _, e := range events {
		ids = append(ids, e.EventID)
	}
	return ids
}

// recordingStore remembers what it was asked, to show what a refused batch recorded.
type recordingStore struct {
	ids   []string
	inner *MemorySeenEvents
}

func (r *recordingStore) Add(id string) (bool, error) {
	r.ids = append(r.ids, id)
	return r.inner.Add(id)
}

func TestWhenABatchIsSignedWithTheSecretThenItsEventsComeBackParsedInTheOrderOfTheBody(t *testing.T) {
	raw := batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", map[string]any{"event": "sms.delivered"}), batchEvent("evt_c", map[string]any{"event": "device.connected", "data": map[string]any{"device_id": "device_1", "client_id": "client_1", "name": "Pixel 8", "at": "2030-01-01T12:00:00Z", "reason": "connected"}}))
	original := string(raw)
	events, err := VerifyWebhookBatch(raw, SignWebhook(raw, secret), secret, at(signedAt))
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != original {
		t.Fatalf("the body was changed: %s", raw)
	}
	if got := eventIDs(events); strings.Join(got, ",") != "evt_a,evt_b,evt_c" || events[0].Event != "sms.sent" || events[1].Event != "sms.delivered" {
		t.Fatalf("%v %+v", got, events)
	}
	m, err := events[0].MessageData()
	if err != nil || m.MessageID != "msg_evt_a" || m.Status != MessageStatusSent {
		t.Fatalf("%+v %v", m, err)
	}
	d, err := events[2].DeviceData()
	if err != nil || d.Name != "Pixel 8" {
		t.Fatalf("%+v %v", d, err)
	}
	if again, err := VerifyWebhookBatch(raw, strings.ToUpper(SignWebhook(raw, secret)), secret, at(signedAt)); err != nil || len(again) != 3 {
		t.Fatalf("%d %v", len(again), err)
	}
}

func TestWhenTheSignatureAnEventOfTheBodyOrTheSecretDifferThenErrWebhookSignatureAndNothingIsRecorded(t *testing.T) {
	raw := batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", nil))
	sig := SignWebhook(raw, secret)
	var parsed []any
	_ = json.Unmarshal(raw, &parsed)
	reencoded, _ := json.MarshalIndent(parsed, "", " ")
	store := &recordingStore{inner: NewMemorySeenEvents(0, 0)}
	opts := WebhookOptions{Seen: store, Now: func() time.Time { return signedAt }}
	cases := []struct {
		body     []byte
		sig, key string
	}{
		{[]byte(strings.Replace(string(raw), "msg_evt_b", "msg_evt_x", 1)), sig, secret},
		{batchBody(batchEvent("evt_a", nil)), sig, secret},
		{raw, sig, "whsec_other"},
		{raw, "", secret},
		{raw, "zz", secret},
		{reencoded, sig, secret},
	}
	for i, c := range cases {
		events, err := VerifyWebhookBatch(c.body, c.sig, c.key, opts)
		if !errors.Is(err, ErrWebhookSignature) || events != nil {
			t.Errorf("case %d: %v %v", i, events, err)
		}
	}
	if len(store.ids) != 0 {
		t.Fatalf("recorded %v", store.ids)
	}
}

func TestWhenTheBodyOrOneOfItsEventsIsNotAnEventThenErrWebhookPayloadNamingItAndNothingIsRecorded(t *testing.T) {
	store := &recordingStore{inner: NewMemorySeenEvents(0, 0)}
	opts := WebhookOptions{Seen: store, Now: func() time.Time { return signedAt }}
	cases := []struct {
		body   []byte
		detail string
	}{
		{[]byte("not json"), "invalid character"},
		{[]byte("[not json]"), "invalid character"},
		{[]byte(" []"), "the batch is empty"},
		{[]byte("null"), "event, event_id and timestamp are required"},
		{batchBody(batchEvent("evt_a", nil), 5), "event 1 of the batch: json: cannot unmarshal number"},
		{batchBody(batchEvent("evt_a", nil), []any{batchEvent("evt_b", nil)}), "event 1 of the batch: json: cannot unmarshal array"},
		{batchBody(batchEvent("evt_a", nil), nil), "event 1 of the batch: event, event_id and timestamp are required"},
		{batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", nil), batchEvent("", nil)), "event 2 of the batch: event, event_id and timestamp are required"},
		{batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", map[string]any{"event": ""})), "event 1 of the batch: event, event_id"},
		{batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", map[string]any{"timestamp": 5})), "event 1 of the batch: json: cannot unmarshal number"},
	}
	for _, c := range cases {
		_, err := VerifyWebhookBatch(c.body, SignWebhook(c.body, secret), secret, opts)
		var we *WebhookError
		if !errors.Is(err, ErrWebhookPayload) || !errors.As(err, &we) || !strings.HasPrefix(we.Detail, c.detail) {
			t.Errorf("%s: %v", c.body, err)
		}
	}
	if len(store.ids) != 0 {
		t.Fatalf("recorded %v", store.ids)
	}
}

func TestWhenTheBatchOrOneOfItsEventsWasSignedOutsideTheToleranceThenErrWebhookTimestampAndNothingIsRecorded(t *testing.T) {
	store := &recordingStore{inner: NewMemorySeenEvents(0, 0)}
	raw := batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", nil))
	sig := SignWebhook(raw, secret)
	for _, now := range []time.Time{signedAt.Add(301 * time.Second), signedAt.Add(-301 * time.Second)} {
		if _, err := VerifyWebhookBatch(raw, sig, secret, WebhookOptions{Seen: store, Now: func() time.Time { return now }}); !errors.Is(err, ErrWebhookTimestamp) {
			t.Errorf("%v: %v", now, err)
		}
	}
	for _, stale := range []string{"2030-01-01T11:50:00.000Z", "yesterday"} {
		body := batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", map[string]any{"timestamp": stale}))
		_, err := VerifyWebhookBatch(body, SignWebhook(body, secret), secret, WebhookOptions{Seen: store, Now: func() time.Time { return signedAt }})
		var we *WebhookError
		if !errors.Is(err, ErrWebhookTimestamp) || !errors.As(err, &we) || we.Detail != "event 1 of the batch: signed at "+stale {
			t.Errorf("%s: %v", stale, err)
		}
	}
	if len(store.ids) != 0 {
		t.Fatalf("recorded %v", store.ids)
	}
	late, err := VerifyWebhookBatch(raw, sig, secret, WebhookOptions{Seen: store, Tolerance: 10 * time.Minute, Now: func() time.Time { return signedAt.Add(500 * time.Second) }})
	if err != nil || strings.Join(eventIDs(late), ",") != "evt_a,evt_b" {
		t.Fatalf("%v %v", eventIDs(late), err)
	}
}

func TestWhenSomeEventsOfABatchWereReceivedBeforeThenOnlyTheOthersComeBackAndABatchOfDuplicatesGivesNone(t *testing.T) {
	seen := NewMemorySeenEvents(0, 0)
	opts := WebhookOptions{Seen: seen, Now: func() time.Time { return signedAt }}
	single := eventBody(map[string]any{"event_id": "evt_b"})
	if _, err := VerifyWebhook(single, SignWebhook(single, secret), secret, opts); err != nil {
		t.Fatal(err)
	}
	raw := batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", nil), batchEvent("evt_c", nil), batchEvent("evt_a", nil))
	sig := SignWebhook(raw, secret)
	fresh, err := VerifyWebhookBatch(raw, sig, secret, opts)
	if err != nil || strings.Join(eventIDs(fresh), ",") != "evt_a,evt_c" {
		t.Fatalf("%v %v", eventIDs(fresh), err)
	}
	// The same batch again (its answer was lost): every event is a duplicate, no error.
	if again, err := VerifyWebhookBatch(raw, sig, secret, opts); err != nil || len(again) != 0 {
		t.Fatalf("%v %v", eventIDs(again), err)
	}
	// The single-event check shares the store: an event of a batch is a duplicate for it too.
	single = eventBody(map[string]any{"event_id": "evt_c"})
	if _, err := VerifyWebhook(single, SignWebhook(single, secret), secret, opts); !errors.Is(err, ErrWebhookDuplicate) {
		t.Fatal(err)
	}
	next := batchBody(batchEvent("evt_c", nil), batchEvent("evt_d", nil))
	if events, err := VerifyWebhookBatch(next, SignWebhook(next, secret), secret, opts); err != nil || strings.Join(eventIDs(events), ",") != "evt_d" {
		t.Fatalf("%v %v", eventIDs(events), err)
	}
}

func TestWhenNoStoreIsGivenThenEveryEventOfTheBatchComesBackRepeatedIDsIncluded(t *testing.T) {
	raw := batchBody(batchEvent("evt_a", nil), batchEvent("evt_a", nil))
	for range 2 {
		if events, err := VerifyWebhookBatch(raw, SignWebhook(raw, secret), secret, at(signedAt)); err != nil || strings.Join(eventIDs(events), ",") != "evt_a,evt_a" {
			t.Fatalf("%v %v", eventIDs(events), err)
		}
	}
}

// failingStore records two ids, then fails.
type failingStore struct{ ids []string }

func (f *failingStore) Add(id string) (bool, error) {
	if len(f.ids) == 2 {
		return false, errors.New("store down")
	}
	f.ids = append(f.ids, id)
	return true, nil
}

func TestWhenTheStoreFailsPartWayThroughABatchThenItsErrorComesBackWithNoEvents(t *testing.T) {
	raw := batchBody(batchEvent("evt_a", nil), batchEvent("evt_b", nil), batchEvent("evt_c", nil))
	store := &failingStore{}
	events, err := VerifyWebhookBatch(raw, SignWebhook(raw, secret), secret, WebhookOptions{Seen: store, Now: func() time.Time { return signedAt }})
	var we *WebhookError
	if err == nil || err.Error() != "store down" || errors.As(err, &we) || events != nil {
		t.Fatalf("%v %v", events, err)
	}
	if strings.Join(store.ids, ",") != "evt_a,evt_b" {
		t.Fatalf("recorded %v", store.ids)
	}
}

func TestWhenTheBodyIsOneEventNotAnArrayThenItComesBackAsASliceOfOne(t *testing.T) {
	opts := WebhookOptions{Seen: NewMemorySeenEvents(0, 0), Now: func() time.Time { return signedAt }}
	raw := eventBody(nil)
	sig := SignWebhook(raw, secret)
	events, err := VerifyWebhookBatch(raw, sig, secret, opts)
	if err != nil || len(events) != 1 || events[0].Event != "sms.failed" || events[0].EventID != "evt_1" {
		t.Fatalf("%+v %v", events, err)
	}
	if again, err := VerifyWebhookBatch(raw, sig, secret, opts); err != nil || len(again) != 0 {
		t.Fatalf("%v %v", eventIDs(again), err)
	}
}

func TestWhenCopiesOfABatchArriveOnManyGoroutinesAtOnceThenEachEventIsHandledExactlyOnce(t *testing.T) {
	seen := NewMemorySeenEvents(0, 0)
	var events []any
	for i := range 20 {
		events = append(events, batchEvent("evt_"+string(rune('a'+i)), nil))
	}
	raw := batchBody(events...)
	sig := SignWebhook(raw, secret)
	var mu sync.Mutex
	handled := map[string]int{}
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fresh, err := VerifyWebhookBatch(raw, sig, secret, WebhookOptions{Seen: seen, Now: func() time.Time { return signedAt }})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			for _, e := range fresh {
				handled[e.EventID]++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(handled) != 20 {
		t.Fatalf("handled %d events", len(handled))
	}
	for id, n := range handled {
		if n != 1 {
			t.Errorf("%s handled %d times", id, n)
		}
	}
}

func TestWhenTheSecretIsEmptyThenNoBatchIsChecked(t *testing.T) {
	raw := batchBody(batchEvent("evt_a", nil))
	if _, err := VerifyWebhookBatch(raw, SignWebhook(raw, ""), "", WebhookOptions{}); err == nil {
		t.Fatal("accepted")
	}
}

func TestWhenTheOptInDeviceEventsArriveThenEachDecodesIntoItsOwnData(t *testing.T) {
	phone := func(extra map[string]any) map[string]any {
		d := map[string]any{"device_id": "device_1", "client_id": "client_1", "name": "Shop phone"}
		for k, v := range extra {
			d[k] = v
		}
		return d
	}
	verify := func(kind string, data map[string]any) *WebhookEvent {
		raw := eventBody(map[string]any{"event": kind, "data": data})
		ev, err := VerifyWebhook(raw, SignWebhook(raw, secret), secret, at(signedAt))
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	degraded, err := verify("device.degraded", phone(map[string]any{"at": "2030-01-01T11:00:00Z", "sim": 2, "state": "quarantined", "reason": "consecutive_failures", "recent_results": map[string]any{"generic_failure": 5}, "probe_after": "2030-01-01T11:15:00Z"})).SimHealthData()
	if err != nil || degraded.Sim != 2 || degraded.Reason != "consecutive_failures" || degraded.RecentResults["generic_failure"] != 5 || degraded.ProbeAfter == nil {
		t.Fatalf("%+v %v", degraded, err)
	}
	recovered, err := verify("device.recovered", phone(map[string]any{"at": "2030-01-01T11:20:00Z", "sim": 2, "state": "healthy", "reason": "probe", "recent_results": map[string]any{"sent": 1}})).SimHealthData()
	if err != nil || recovered.State != "healthy" || recovered.Reason != "probe" || recovered.ProbeAfter != nil {
		t.Fatalf("%+v %v", recovered, err)
	}
	battery, err := verify("device.battery_low", phone(map[string]any{"battery": 12, "charging": false, "at": "2030-01-01T11:00:00Z"})).BatteryLowData()
	if err != nil || battery.Battery == nil || *battery.Battery != 12 || battery.Charging {
		t.Fatalf("%+v %v", battery, err)
	}
	offline, err := verify("device.offline", phone(map[string]any{"offline_since": "2030-01-01T11:00:00Z", "threshold_seconds": 1800})).OfflineData()
	if err != nil || offline.ThresholdSeconds != 1800 || offline.OfflineSince.IsZero() || offline.Name != "Shop phone" {
		t.Fatalf("%+v %v", offline, err)
	}
}
