package worker

import (
	"context"
	"errors"
	"testing"
)

// fakeExpirer answers ExpireInvoices with n and err, noting the limit asked for.
type fakeExpirer struct {
	n     int
	err   error
	limit int
}

func (f *fakeExpirer) ExpireInvoices(_ context.Context, limit int) (int, error) {
	f.limit = limit
	return f.n, f.err
}

func TestExpiryRound(t *testing.T) {
	down := errors.New("database is down")
	tests := []struct {
		name     string
		n        int
		err      error
		wantMore bool
	}{
		{"nothing due", 0, nil, false},
		{"part of a batch", expiryBatch - 1, nil, false},
		{"a full batch: more may be due", expiryBatch, nil, true},
		{"failed", 3, down, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeExpirer{n: tt.n, err: tt.err}
			more, err := expiryRound(f)(t.Context())
			if more != tt.wantMore || !errors.Is(err, tt.err) || f.limit != expiryBatch {
				t.Fatalf("round = %v, %v (limit %d); want %v, %v (limit %d)", more, err, f.limit, tt.wantMore, tt.err, expiryBatch)
			}
		})
	}
}
