package kassa

import (
	"strings"
	"testing"
	"time"
)

func TestNewUUID(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := NewUUID()
		if !ValidUUID(id) || !validUUIDv4(id) {
			t.Fatalf("NewUUID() = %q is not a valid v4 UUID", id)
		}
		if id != strings.ToLower(id) {
			t.Fatalf("NewUUID() = %q is not lower case", id)
		}
		if id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("NewUUID() = %q has wrong version or variant", id)
		}
		if seen[id] {
			t.Fatalf("NewUUID() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestValidUUID(t *testing.T) {
	tests := []struct {
		in      string
		valid   bool
		validV4 bool
	}{
		{"123e4567-e89b-42d3-a456-426614174000", true, true},
		{"123E4567-E89B-42D3-A456-426614174000", true, true},
		{"123e4567-e89b-42d3-8456-426614174000", true, true},
		{"123e4567-e89b-42d3-9456-426614174000", true, true},
		{"123e4567-e89b-42d3-b456-426614174000", true, true},
		{"123e4567-e89b-42d3-B456-426614174000", true, true},
		{"123e4567-e89b-12d3-a456-426614174000", true, false}, // version 1
		{"123e4567-e89b-72d3-a456-426614174000", true, false}, // version 7
		{"123e4567-e89b-42d3-c456-426614174000", true, false}, // wrong variant
		{"123e4567-e89b-42d3-7456-426614174000", true, false},
		{"00000000-0000-0000-0000-000000000000", true, false},
		{"", false, false},
		{"123e4567e89b42d3a456426614174000", false, false},
		{"{123e4567-e89b-42d3-a456-426614174000}", false, false},
		{"urn:uuid:123e4567-e89b-42d3-a456-426614174000", false, false},
		{"123e4567-e89b-42d3-a456-42661417400", false, false},
		{"123e4567-e89b-42d3-a456-4266141740000", false, false},
		{"123e4567-e89b-42d3-a456_426614174000", false, false},
		{"123e4567-e89b-42d3-a4560426614174000", false, false},
		{"123e4567-e89b-42d3-a456-42661417400g", false, false},
		{"123e456-7e89b-42d3-a456-426614174000", false, false},
		{" 23e4567-e89b-42d3-a456-426614174000", false, false},
	}
	for _, tt := range tests {
		if got := ValidUUID(tt.in); got != tt.valid {
			t.Errorf("ValidUUID(%q) = %v, want %v", tt.in, got, tt.valid)
		}
		if got := validUUIDv4(tt.in); got != tt.validV4 {
			t.Errorf("validUUIDv4(%q) = %v, want %v", tt.in, got, tt.validV4)
		}
	}
}

func TestRandomBase32(t *testing.T) {
	for _, n := range []int{1, 15, 32} {
		tok := RandomBase32(n)
		if want := (n*8 + 4) / 5; len(tok) != want {
			t.Errorf("RandomBase32(%d) has length %d, want %d", n, len(tok), want)
		}
		for _, c := range tok {
			if !('a' <= c && c <= 'z') && !('2' <= c && c <= '7') {
				t.Errorf("RandomBase32(%d) = %q holds %q", n, tok, c)
			}
		}
	}
	if a, b := RandomBase32(32), RandomBase32(32); a == b {
		t.Error("RandomBase32 repeated")
	}
}

func TestTimes(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 30, 5, 123456789, time.FixedZone("CET", 3600))
	if got := FormatTime(at); got != "2026-11-01T11:30:05.123Z" {
		t.Errorf("FormatTime = %q", got)
	}
	if got := FormatTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); got != "2026-01-02T03:04:05.000Z" {
		t.Errorf("FormatTime = %q", got)
	}
	for _, s := range []string{"2026-11-01T11:30:05Z", "2026-11-01T11:30:05.123Z", "2026-11-01T12:30:05+01:00", "2026-11-01T11:30:05.123456789Z"} {
		if _, ok := ParseTime(s); !ok {
			t.Errorf("ParseTime(%q) failed", s)
		}
	}
	for _, s := range []string{"", "2026-11-01", "2026-11-01 11:30:05Z", "1700000000", "2026-11-01T11:30:05"} {
		if _, ok := ParseTime(s); ok {
			t.Errorf("ParseTime(%q) succeeded", s)
		}
	}
	if p, _ := ParseTime("2026-11-01T12:30:05+01:00"); !p.Equal(time.Date(2026, 11, 1, 11, 30, 5, 0, time.UTC)) {
		t.Errorf("ParseTime kept the wrong instant: %v", p)
	}
}

func TestNewTimeUUID(t *testing.T) {
	base := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	prev := ""
	for i := 0; i < 100; i++ {
		id := NewTimeUUID(base.Add(time.Duration(i) * time.Millisecond))
		if !ValidUUID(id) || id[14] != '7' || !strings.ContainsAny(id[19:20], "89ab") {
			t.Fatalf("NewTimeUUID = %q, want a version 7 UUID", id)
		}
		if id <= prev {
			t.Fatalf("ids do not sort by time: %q after %q", id, prev)
		}
		prev = id
	}
	if a, b := NewTimeUUID(base), NewTimeUUID(base); a == b || a[:13] != b[:13] {
		t.Errorf("same millisecond: %q and %q should share the time prefix and differ", a, b)
	}
	e1, e2 := NewEventID(base), NewEventID(base.Add(time.Millisecond))
	if len(e1) != 36 || !strings.HasPrefix(e1, "evt_") || e1 >= e2 {
		t.Errorf("event ids %q, %q: want evt_ + 32 hex, sorted by time", e1, e2)
	}
}

// validUUIDv4 reports whether s is a canonical UUID of version 4 (RFC 9562 variant).
func validUUIDv4(s string) bool {
	if !ValidUUID(s) {
		return false
	}
	v := s[19] | 0x20 // lower-case the variant digit
	return s[14] == '4' && (v == '8' || v == '9' || v == 'a' || v == 'b')
}
