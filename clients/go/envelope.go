package smsgw

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/scrypt"
)

// EnvelopePrefix starts every end-to-end envelope of version 1 (docs/api/encryption.md).
const EnvelopePrefix = "$smsgw-e2e$v1$"

// KdfParams are scrypt's costs: N = 2^Ln, block size R, parallelism P.
type KdfParams struct{ Ln, R, P int }

// DefaultKdf is what Seal writes.
var DefaultKdf = KdfParams{Ln: 14, R: 8, P: 1}

// ErrDecryptionFailed is wrapped by every error of OpenEnvelope: wrong passphrase, altered or
// malformed envelope. Test with errors.Is.
var ErrDecryptionFailed = errors.New("DECRYPTION_FAILED")

var envelopeShape = regexp.MustCompile(`^\$smsgw-e2e\$v1\$scrypt\$ln=([1-9][0-9]?),r=([1-9][0-9]?),p=([1-9])\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$`)

// IsEnvelope tells whether a text has the envelope's prefix (it may still fail to open).
func IsEnvelope(text string) bool { return strings.HasPrefix(text, EnvelopePrefix) }

// Seal encrypts a text into an envelope with a random salt and nonce and DefaultKdf.
func Seal(plaintext, passphrase string) (string, error) {
	salt := make([]byte, 16)
	nonce := make([]byte, 12)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return SealWith(plaintext, passphrase, DefaultKdf, salt, nonce)
}

// SealWith is Seal with given parameters, salt and nonce: for test vectors only.
func SealWith(plaintext, passphrase string, kdf KdfParams, salt, nonce []byte) (string, error) {
	if !kdf.withinLimits() {
		return "", fmt.Errorf("smsgw: scrypt parameters out of range (ln 10-20, r 1-16, p 1-4)")
	}
	if len(salt) != 16 || len(nonce) != 12 {
		return "", fmt.Errorf("smsgw: salt is 16 bytes, nonce 12")
	}
	header := fmt.Sprintf("%sscrypt$ln=%d,r=%d,p=%d$%s$%s", EnvelopePrefix, kdf.Ln, kdf.R, kdf.P, b64(salt), b64(nonce))
	aead, err := envelopeCipher(passphrase, salt, kdf)
	if err != nil {
		return "", err
	}
	return header + "$" + b64(aead.Seal(nil, nonce, []byte(plaintext), []byte(header))), nil
}

// OpenEnvelope decrypts an envelope; its errors wrap ErrDecryptionFailed.
func OpenEnvelope(envelope, passphrase string) (string, error) {
	m := envelopeShape.FindStringSubmatch(envelope)
	if m == nil {
		if IsEnvelope(envelope) {
			return "", failed("malformed envelope")
		}
		return "", failed("not an envelope")
	}
	ln, _ := strconv.Atoi(m[1])
	r, _ := strconv.Atoi(m[2])
	p, _ := strconv.Atoi(m[3])
	kdf := KdfParams{Ln: ln, R: r, P: p}
	if !kdf.withinLimits() {
		return "", failed("key derivation parameters out of range")
	}
	salt, nonce, body := unb64(m[4]), unb64(m[5]), unb64(m[6])
	switch {
	case len(salt) != 16:
		return "", failed("bad salt")
	case len(nonce) != 12:
		return "", failed("bad nonce")
	case len(body) < 16:
		return "", failed("bad ciphertext")
	}
	aead, err := envelopeCipher(passphrase, salt, kdf)
	if err != nil {
		return "", failed(err.Error())
	}
	plain, err := aead.Open(nil, nonce, body, []byte(envelope[:strings.LastIndex(envelope, "$")]))
	if err != nil {
		return "", failed("authentication failed (wrong passphrase or altered envelope)")
	}
	if !utf8.Valid(plain) {
		return "", failed("plain text is not UTF-8")
	}
	return string(plain), nil
}

func envelopeCipher(passphrase string, salt []byte, kdf KdfParams) (cipher.AEAD, error) {
	key, err := scrypt.Key([]byte(passphrase), salt, 1<<kdf.Ln, kdf.R, kdf.P, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (k KdfParams) withinLimits() bool {
	return k.Ln >= 10 && k.Ln <= 20 && k.R >= 1 && k.R <= 16 && k.P >= 1 && k.P <= 4
}

func failed(reason string) error {
	return fmt.Errorf("%w: the envelope does not open: %s", ErrDecryptionFailed, reason)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// unb64 accepts canonical base64url only (Strict refuses unused bits set); nil when it is not.
func unb64(s string) []byte {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || b64(b) != s {
		return nil
	}
	return b
}
