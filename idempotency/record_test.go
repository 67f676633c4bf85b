package idempotency

import "testing"

func TestResolve(t *testing.T) {
	const fp = "sha256:abc"
	tests := []struct {
		name string
		rec  Record
		fp   string
		want Outcome
	}{
		{"same body, done", Record{Fingerprint: fp, Done: true, StatusCode: 201, Body: []byte(`{}`)}, fp, Replay},
		{"same body, saved 5xx", Record{Fingerprint: fp, Done: true, StatusCode: 500}, fp, Replay},
		{"same body, saved 4xx", Record{Fingerprint: fp, Done: true, StatusCode: 404}, fp, Replay},
		{"same body, running", Record{Fingerprint: fp}, fp, InUse},
		{"other body, done", Record{Fingerprint: fp, Done: true, StatusCode: 201}, "sha256:def", Reused},
		{"other body, running", Record{Fingerprint: fp}, "sha256:def", Reused},
		{"fingerprint case matters", Record{Fingerprint: fp, Done: true}, "SHA256:ABC", Reused},
		{"empty fingerprint", Record{Fingerprint: fp, Done: true}, "", Reused},
	}
	for _, tt := range tests {
		rec := tt.rec
		if got := Resolve(&rec, tt.fp); got != tt.want {
			t.Errorf("%s: Resolve = %d, want %d", tt.name, got, tt.want)
		}
	}
	if Replay == Reused || Reused == InUse || Replay == InUse {
		t.Error("idempotency outcomes are not distinct")
	}
}
