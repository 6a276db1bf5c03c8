// Over 300 lines: verifying a webhook, one event or a batch: the signature, the timestamp window,
// replays (SeenEvents) and the typed data of each event kind, which all the checks share.

package smsgw

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// The reasons a webhook delivery is refused, for errors.Is.
var (
	// ErrWebhookSignature: X-Webhook-Signature does not match the raw body under the secret. Answer 401.
	ErrWebhookSignature = errors.New("smsgw: webhook signature does not match")
	// ErrWebhookPayload: the signed body is not an event (no JSON, no event_id or timestamp). Answer 400.
	ErrWebhookPayload = errors.New("smsgw: webhook body is not an event")
	// ErrWebhookTimestamp: the delivery was signed too long ago (a captured request replayed). Answer 400.
	ErrWebhookTimestamp = errors.New("smsgw: webhook timestamp outside the tolerance")
	// ErrWebhookDuplicate: the event was received already (delivery is at least once). Answer 2xx
	// so that it is not retried, and do not handle it again.
	ErrWebhookDuplicate = errors.New("smsgw: webhook event already received")
)

// WebhookError is a refused delivery: errors.Is(err, ErrWebhookDuplicate), and so on.
type WebhookError struct {
	Reason error
	Detail string
	// Event is the verified event of a duplicate; nil otherwise.
	Event *WebhookEvent
}

func (e *WebhookError) Error() string {
	if e.Detail == "" {
		return e.Reason.Error()
	}
	return e.Reason.Error() + ": " + e.Detail
}

func (e *WebhookError) Unwrap() error { return e.Reason }

// WebhookEvent is a webhook delivery's body (docs/api/webhooks.md).
type WebhookEvent struct {
	// Event is sms.sent, sms.delivered, sms.failed, sms.received, device.connected,
	// device.disconnected, or one of the kinds an endpoint gets only when it names them:
	// otp.fraud_suspected, device.degraded, device.recovered, device.battery_low, device.offline.
	Event string `json:"event"`
	// EventID is the same on every attempt and replay: de-duplicate on it.
	EventID string `json:"event_id"`
	// Timestamp is when this attempt was signed (the event's own time is in Data).
	Timestamp string `json:"timestamp"`
	// Data is the event's data: decode it with MessageData, ReceivedData, DeviceData, FraudData,
	// SimHealthData, BatteryLowData or OfflineData.
	Data json.RawMessage `json:"data"`
}

// MessageEventData is the data of sms.sent, sms.delivered and sms.failed. An sms.failed's
// Error.Code is a failure code: SMSErrorCodeOptedOut for a message to a number on the suppression
// list (it never reached a phone).
type MessageEventData struct {
	MessageID string        `json:"message_id"`
	Status    MessageStatus `json:"status"`
	To        string        `json:"to"`
	// Sim is the SIM slot the phone sent through (1 to n), nil when unknown (its default SIM).
	Sim         *int           `json:"sim"`
	SentAt      *time.Time     `json:"sent_at,omitempty"`
	DeliveredAt *time.Time     `json:"delivered_at,omitempty"`
	FailedAt    *time.Time     `json:"failed_at,omitempty"`
	Error       *SMSError      `json:"error,omitempty"`
	BatchID     string         `json:"batch_id,omitempty"`
	Metadata    map[string]any `json:"metadata"`
}

// DeviceEventData is the data of device.connected and device.disconnected.
type DeviceEventData struct {
	DeviceID string    `json:"device_id"`
	ClientID string    `json:"client_id"`
	Name     string    `json:"name"`
	At       time.Time `json:"at"`
	Reason   string    `json:"reason"`
}

// ReceivedEventData is the data of sms.received: an SMS one of the client's phones received.
type ReceivedEventData struct {
	// ID is the received SMS's id (rcv_…), as GET /v1/sms/inbox/{id} knows it.
	ID string `json:"id"`
	// From is the sender as the network gave it: an E.164 number, a short code or a sender name.
	From     string `json:"from"`
	DeviceID string `json:"device_id"`
	// Sim is the SIM slot (1 to n), nil when the phone does not say.
	Sim        *int      `json:"sim"`
	Message    string    `json:"message"`
	ReceivedAt time.Time `json:"received_at"`
	// InReplyTo is the id of the message sent with "replies": true that this SMS answers, or "".
	InReplyTo string `json:"in_reply_to"`
}

// FraudSuspectedEventData is the data of otp.fraud_suspected: the pumping guard held a prefix or a
// country of the client's one-time passwords (docs/api/otp.md).
type FraudSuspectedEventData struct {
	// HoldID is the hold (hold_…), released in the dashboard.
	HoldID string `json:"hold_id"`
	// Scope is "prefix" or "country".
	Scope string `json:"scope"`
	// Prefix is the number without its last 4 digits (+3361234), or the country's calling code.
	Prefix  string `json:"prefix"`
	Country string `json:"country"`
	// Requests and Verified are the codes asked for and verified in the window that tripped it.
	Requests       int       `json:"requests"`
	Verified       int       `json:"verified"`
	ConversionRate float64   `json:"conversion_rate"`
	WindowSeconds  int       `json:"window_seconds"`
	HeldAt         time.Time `json:"held_at"`
	HeldUntil      time.Time `json:"held_until"`
}

// SimHealthEventData is the data of device.degraded (a SIM quarantined) and device.recovered (released).
type SimHealthEventData struct {
	DeviceID string    `json:"device_id"`
	ClientID string    `json:"client_id"`
	Name     string    `json:"name"`
	At       time.Time `json:"at"`
	// Sim is the SIM slot (1 on a phone of one SIM).
	Sim int `json:"sim"`
	// State is "quarantined" or "healthy".
	State string `json:"state"`
	// Reason is consecutive_failures or failure_ratio for device.degraded; probe or manual for device.recovered.
	Reason string `json:"reason"`
	// RecentResults counts the SIM's last results by cause (sent, generic_failure, ...).
	RecentResults map[string]int `json:"recent_results"`
	// ProbeAfter is when one probe message will be tried (device.degraded only).
	ProbeAfter *time.Time `json:"probe_after,omitempty"`
}

// BatteryLowEventData is the data of device.battery_low: a phone at 15 % or less and not charging.
type BatteryLowEventData struct {
	DeviceID string `json:"device_id"`
	ClientID string `json:"client_id"`
	Name     string `json:"name"`
	// Battery is 0 to 100, nil when the phone did not say.
	Battery  *int      `json:"battery"`
	Charging bool      `json:"charging"`
	At       time.Time `json:"at"`
}

// OfflineEventData is the data of device.offline: a phone offline longer than its account's delay.
type OfflineEventData struct {
	DeviceID     string    `json:"device_id"`
	ClientID     string    `json:"client_id"`
	Name         string    `json:"name"`
	OfflineSince time.Time `json:"offline_since"`
	// ThresholdSeconds is the account's delay.
	ThresholdSeconds int `json:"threshold_seconds"`
}

// SimHealthData decodes the data of device.degraded and device.recovered.
func (e *WebhookEvent) SimHealthData() (*SimHealthEventData, error) {
	var d SimHealthEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// BatteryLowData decodes the data of device.battery_low.
func (e *WebhookEvent) BatteryLowData() (*BatteryLowEventData, error) {
	var d BatteryLowEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// OfflineData decodes the data of device.offline.
func (e *WebhookEvent) OfflineData() (*OfflineEventData, error) {
	var d OfflineEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// FraudData decodes the data of otp.fraud_suspected.
func (e *WebhookEvent) FraudData() (*FraudSuspectedEventData, error) {
	var d FraudSuspectedEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// MessageData decodes the data of sms.sent, sms.delivered and sms.failed.
func (e *WebhookEvent) MessageData() (*MessageEventData, error) {
	var d MessageEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// ReceivedData decodes the data of sms.received.
func (e *WebhookEvent) ReceivedData() (*ReceivedEventData, error) {
	var d ReceivedEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// DeviceData decodes the data of device.connected and device.disconnected.
func (e *WebhookEvent) DeviceData() (*DeviceEventData, error) {
	var d DeviceEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// SeenEvents remembers the event ids already handled. Add answers true the first time it sees an
// id and false afterwards, in one step (with Redis: SET key 1 NX EX 86400), so that two copies
// arriving at once are not both handled.
type SeenEvents interface {
	Add(eventID string) (bool, error)
}

// MemorySeenEvents keeps event ids in memory, each forgotten after its TTL. Safe for concurrent use.
type MemorySeenEvents struct {
	mu      sync.Mutex
	ttl     time.Duration
	maxSize int
	now     func() time.Time
	at      map[string]time.Time
	order   []string
}

// NewMemorySeenEvents remembers ids for ttl (a day when zero), at most maxSize (100,000 when zero).
func NewMemorySeenEvents(ttl time.Duration, maxSize int) *MemorySeenEvents {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	if maxSize <= 0 {
		maxSize = 100_000
	}
	return &MemorySeenEvents{ttl: ttl, maxSize: maxSize, now: time.Now, at: map[string]time.Time{}}
}

// Add records the id; false when it was recorded already.
func (m *MemorySeenEvents) Add(eventID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	drop := 0
	for drop < len(m.order) && (now.Sub(m.at[m.order[drop]]) > m.ttl || len(m.order)-drop >= m.maxSize) {
		delete(m.at, m.order[drop])
		drop++
	}
	m.order = m.order[drop:]
	if _, ok := m.at[eventID]; ok {
		return false, nil
	}
	m.at[eventID] = now
	m.order = append(m.order, eventID)
	return true, nil
}

// WebhookOptions tunes VerifyWebhook; the zero value takes the defaults.
type WebhookOptions struct {
	// Tolerance refuses a delivery signed further than this from now (5 minutes when zero).
	Tolerance time.Duration
	// Seen remembers handled event ids; nil detects no duplicates.
	Seen SeenEvents
	// Now is the clock (tests).
	Now func() time.Time
}

// SignWebhook is the X-Webhook-Signature of rawBody under secret: hex HMAC-SHA256 (to test a receiver).
func SignWebhook(rawBody []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(rawBody)
	return hex.EncodeToString(mac.Sum(nil))
}

// VerifyWebhook checks a delivery and returns its event, or a *WebhookError whose Reason is
// ErrWebhookSignature, ErrWebhookPayload, ErrWebhookTimestamp or ErrWebhookDuplicate (or the
// Seen store's own error).
//
// Pass the body's bytes as received (io.ReadAll(r.Body)), never JSON decoded and encoded again.
// secret is the endpoint's whsec_…, or the client's signing secret for messages sent with their
// own webhook_url. A batched endpoint's deliveries are arrays: check them with VerifyWebhookBatch.
func VerifyWebhook(rawBody []byte, signature, secret string, opts WebhookOptions) (*WebhookEvent, error) {
	if secret == "" {
		return nil, errors.New("smsgw: the webhook secret is empty")
	}
	if err := checkWebhookSignature(rawBody, signature, secret); err != nil {
		return nil, err
	}
	var event WebhookEvent
	if err := json.Unmarshal(rawBody, &event); err != nil {
		return nil, &WebhookError{Reason: ErrWebhookPayload, Detail: err.Error()}
	}
	if err := checkWebhookEvent(&event, "", opts); err != nil {
		return nil, err
	}
	if opts.Seen != nil {
		first, err := opts.Seen.Add(event.EventID)
		if err != nil {
			return nil, err
		}
		if !first {
			return nil, &WebhookError{Reason: ErrWebhookDuplicate, Detail: event.EventID, Event: &event}
		}
	}
	return &event, nil
}

// VerifyWebhookBatch checks a delivery to a batched endpoint, a JSON array of events signed as a
// whole, and returns its events that opts.Seen had not seen before, in the body's order.
//
// Each event is checked as VerifyWebhook checks one, and any failure refuses the whole batch with a
// *WebhookError whose Reason is ErrWebhookSignature, ErrWebhookPayload or ErrWebhookTimestamp;
// nothing is then recorded in Seen. Duplicates do not: an event whose event_id Seen has already
// (an id twice in the body, from its second time) is left out of the slice, so a batch of
// duplicates gives an empty slice and never ErrWebhookDuplicate; with a nil Seen every event is
// returned. Answer 2xx to every batch that verifies: the answer is for all its events.
//
// A body that is one event (not an array) gives a slice of it, so a receiver keeps working while
// its endpoint's batching is switched on or off. X-Webhook-Batch-Size is not signed, and not
// needed: the body has the events. The ids are recorded one by one once the whole batch has
// verified: if Seen fails part way through, its error is returned and the ids recorded before it
// stay recorded.
func VerifyWebhookBatch(rawBody []byte, signature, secret string, opts WebhookOptions) ([]WebhookEvent, error) {
	if secret == "" {
		return nil, errors.New("smsgw: the webhook secret is empty")
	}
	if err := checkWebhookSignature(rawBody, signature, secret); err != nil {
		return nil, err
	}
	// Decoded into a nil slice: json.Unmarshal reuses a slice's existing RawMessages, and would
	// write the elements over the caller's body if one of them were rawBody.
	var elements []json.RawMessage
	body := bytes.TrimLeft(rawBody, " \t\r\n")
	array := len(body) > 0 && body[0] == '['
	if array {
		if err := json.Unmarshal(rawBody, &elements); err != nil {
			return nil, &WebhookError{Reason: ErrWebhookPayload, Detail: err.Error()}
		}
		if len(elements) == 0 {
			return nil, &WebhookError{Reason: ErrWebhookPayload, Detail: "the batch is empty"}
		}
	} else {
		elements = []json.RawMessage{rawBody}
	}
	events := make([]WebhookEvent, len(elements))
	for i, element := range elements {
		name := ""
		if array {
			name = fmt.Sprintf("event %d of the batch", i)
		}
		if err := json.Unmarshal(element, &events[i]); err != nil {
			return nil, &WebhookError{Reason: ErrWebhookPayload, Detail: withEvent(name, err.Error())}
		}
		if err := checkWebhookEvent(&events[i], name, opts); err != nil {
			return nil, err
		}
	}
	if opts.Seen == nil {
		return events, nil
	}
	fresh := events[:0]
	for _, event := range events {
		first, err := opts.Seen.Add(event.EventID)
		if err != nil {
			return nil, err
		}
		if first {
			fresh = append(fresh, event)
		}
	}
	return fresh, nil
}

// checkWebhookSignature compares X-Webhook-Signature with the body's HMAC in constant time.
func checkWebhookSignature(rawBody []byte, signature, secret string) error {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(rawBody)
	given, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil || !hmac.Equal(given, mac.Sum(nil)) {
		return &WebhookError{Reason: ErrWebhookSignature}
	}
	return nil
}

// checkWebhookEvent wants an envelope's event, event_id and timestamp, the timestamp within the
// tolerance; name says which event of a batch it is ("" for a delivery of one).
func checkWebhookEvent(event *WebhookEvent, name string, opts WebhookOptions) error {
	if event.EventID == "" || event.Event == "" || event.Timestamp == "" {
		return &WebhookError{Reason: ErrWebhookPayload, Detail: withEvent(name, "event, event_id and timestamp are required")}
	}
	signedAt, err := time.Parse(time.RFC3339Nano, event.Timestamp)
	tolerance := opts.Tolerance
	if tolerance <= 0 {
		tolerance = 5 * time.Minute
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if d := now().Sub(signedAt); err != nil || d > tolerance || d < -tolerance {
		return &WebhookError{Reason: ErrWebhookTimestamp, Detail: withEvent(name, "signed at "+event.Timestamp)}
	}
	return nil
}

// withEvent puts the name of a batch's event before a detail.
func withEvent(name, detail string) string {
	if name == "" {
		return detail
	}
	return name + ": " + detail
}
