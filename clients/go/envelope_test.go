package smsgw

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

type envelopeVectors struct {
	Valid []struct {
		Passphrase, Plaintext, Salt, Nonce, Envelope string
		Kdf                                          KdfParams
	}
	Invalid []struct{ Why, Passphrase, Envelope string }
}

func loadVectors(t *testing.T) envelopeVectors {
	t.Helper()
	data, err := os.ReadFile("../../packages/e2e-envelope/test-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v envelopeVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Valid) == 0 || len(v.Invalid) == 0 {
		t.Fatal("no vectors")
	}
	return v
}

func TestEnvelopeVectorsOpen(t *testing.T) {
	for _, v := range loadVectors(t).Valid {
		got, err := OpenEnvelope(v.Envelope, v.Passphrase)
		if err != nil || got != v.Plaintext {
			t.Errorf("when %q is opened, then its text comes back: got %q, %v", v.Plaintext, got, err)
		}
	}
}

func TestEnvelopeVectorsSeal(t *testing.T) {
	for _, v := range loadVectors(t).Valid {
		salt, _ := hex.DecodeString(v.Salt)
		nonce, _ := hex.DecodeString(v.Nonce)
		got, err := SealWith(v.Plaintext, v.Passphrase, v.Kdf, salt, nonce)
		if err != nil || got != v.Envelope {
			t.Errorf("when %q is sealed with the vector salt and nonce, then the vector envelope comes out: got %q, %v", v.Plaintext, got, err)
		}
	}
}

func TestEnvelopeVectorsRefused(t *testing.T) {
	for _, v := range loadVectors(t).Invalid {
		if _, err := OpenEnvelope(v.Envelope, v.Passphrase); !errors.Is(err, ErrDecryptionFailed) {
			t.Errorf("when the envelope has %s, then it does not open: got %v", v.Why, err)
		}
	}
}

func TestSealTwiceDiffers(t *testing.T) {
	a, _ := Seal("secret", "pass")
	b, _ := Seal("secret", "pass")
	if a == b || !IsEnvelope(a) {
		t.Fatalf("when a text is sealed twice, then the envelopes differ: %q %q", a, b)
	}
	if got, err := OpenEnvelope(b, "pass"); err != nil || got != "secret" {
		t.Fatalf("got %q, %v", got, err)
	}
}
