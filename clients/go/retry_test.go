package smsgw

import (
	"os"
	"regexp"
	"testing"
	"time"
)

func fixed(r float64) Backoff {
	return Backoff{Base: 500 * time.Millisecond, Cap: 8 * time.Second, MaxRetryAfter: time.Minute, Random: func() float64 { return r }}
}

func delay(t *testing.T, o outcome, n int, p policy, b Backoff) *time.Duration {
	t.Helper()
	d, ok := retryDelay(o, n, p, b)
	if !ok {
		return nil
	}
	return &d
}

func TestWhenASafeRequestMeetsANetworkError429Or503ThenFullJitterUnderADoublingCappedBound(t *testing.T) {
	for _, o := range []outcome{{network: true, sent: true}, {status: 429}, {status: 503}} {
		for _, c := range []struct {
			n    int
			r    float64
			want time.Duration
		}{{0, 0.999, 499500 * time.Microsecond}, {3, 0.5, 2 * time.Second}, {10, 0.999, 7992 * time.Millisecond}, {40, 0.5, 4 * time.Second}, {2, 0, 0}} {
			if d := delay(t, o, c.n, policySafe, fixed(c.r)); d == nil || *d != c.want {
				t.Errorf("%+v retry %d: %v, want %v", o, c.n, d, c.want)
			}
		}
	}
}

func TestWhenOtherAnswersComeBackThenNothingIsRetried(t *testing.T) {
	for _, s := range []int{400, 401, 404, 409, 410, 413, 422, 500, 502, 504} {
		if d := delay(t, outcome{status: s, code: "X"}, 0, policySafe, fixed(0.5)); d != nil {
			t.Errorf("%d retried", s)
		}
	}
	if d := delay(t, outcome{status: 409, code: CodeIdempotencyInProgress, retryAfter: time.Second, hasRetry: true}, 0, policySafe, fixed(0.5)); d == nil || *d != time.Second {
		t.Error("IDEMPOTENCY_IN_PROGRESS not retried")
	}
	if d := delay(t, outcome{status: 409, code: CodeIdempotencyInProgress}, 0, policyOnce, fixed(0.5)); d != nil {
		t.Error("once retried a 409")
	}
}

func TestWhenRetryAfterIsGivenThenItIsTheDelayUnlessOverTheLongestWait(t *testing.T) {
	if d := delay(t, outcome{status: 429, retryAfter: 7 * time.Second, hasRetry: true}, 0, policySafe, fixed(0.5)); d == nil || *d != 7*time.Second {
		t.Error(d)
	}
	if d := delay(t, outcome{status: 503, hasRetry: true}, 4, policySafe, fixed(0.5)); d == nil || *d != 0 {
		t.Error(d)
	}
	if d := delay(t, outcome{status: 429, retryAfter: 61 * time.Second, hasRetry: true}, 0, policySafe, fixed(0.5)); d != nil {
		t.Error(d)
	}
}

func TestWhenAOnceOnlyRequestFailsThenOnlyARequestNeverSentAnd429AreRetried(t *testing.T) {
	if d := delay(t, outcome{network: true, sent: false}, 0, policyOnce, fixed(0.5)); d == nil || *d != 250*time.Millisecond {
		t.Error(d)
	}
	if d := delay(t, outcome{network: true, sent: true}, 0, policyOnce, fixed(0.5)); d != nil {
		t.Error(d)
	}
	if d := delay(t, outcome{status: 503}, 0, policyOnce, fixed(0.5)); d != nil {
		t.Error(d)
	}
	if d := delay(t, outcome{status: 429, retryAfter: time.Second, hasRetry: true}, 0, policyOnce, fixed(0.5)); d == nil || *d != time.Second {
		t.Error(d)
	}
}

func TestWhenRetryAfterIsSecondsOrAnHTTPDateThenItIsReadAsADuration(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{"3": 3 * time.Second, " 0 ": 0, "Tue, 01 Jan 2030 00:00:10 GMT": 10 * time.Second} {
		if d, ok := parseRetryAfter(in, now); !ok || d != want {
			t.Errorf("%q: %v", in, d)
		}
	}
	for _, in := range []string{"", "soon", "-1"} {
		if _, ok := parseRetryAfter(in, now); ok {
			t.Errorf("%q read", in)
		}
	}
}

func TestWhenTheModuleIsTaggedThenTheVersionItAnnouncesIsTheOtherLibraries(t *testing.T) {
	pkg, err := os.ReadFile("../../packages/client/package.json")
	if err != nil {
		t.Skip("outside the repository")
	}
	m := regexp.MustCompile(`"version": "([^"]+)"`).FindSubmatch(pkg)
	if m == nil || string(m[1]) != Version {
		t.Fatalf("Version %s, package.json %s", Version, m)
	}
}
