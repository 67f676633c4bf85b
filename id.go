package kassa

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/hex"
	"strings"
	"time"
)

// NewUUID returns a random (version 4) UUID in its canonical lowercase form.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// NewTimeUUID returns a version 7 UUID: 48 bits of Unix milliseconds, then random
// bits. Ids made later sort later, so new rows land at the right edge of an index
// instead of on a random page: fewer pages written per commit.
func NewTimeUUID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[6:])
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// ValidUUID reports whether s is a UUID in canonical 8-4-4-4-12 hex form.
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// RandomBase32 returns n random bytes as lowercase base32 text without padding: safe in
// URLs, headers and key strings.
func RandomBase32(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// TimeLayout is how every timestamp leaves Kassa: RFC 3339 in UTC with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// FormatOptTime formats an optional time like FormatTime; nil stays nil (JSON null).
func FormatOptTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}

// ParseTime reads an RFC 3339 timestamp as a client may send it.
func ParseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
