package kassa

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestErrors(t *testing.T) {
	e := Invalidf("amount_usd", "amount_out_of_range", "amount %s is bad", "x")
	if e.Kind != KindInvalid || e.Message != "amount x is bad" {
		t.Errorf("Invalidf = %+v", e)
	}
	if got := e.Error(); got != "amount_out_of_range: amount x is bad (param amount_usd)" {
		t.Errorf("Error() = %q", got)
	}
	c := Errorf(KindConflict, "invoice_not_cancelable", "no %d", 1)
	if got := c.Error(); got != "invoice_not_cancelable: no 1" || c.Param != "" {
		t.Errorf("Errorf = %+v, %q", c, got)
	}
	nf := NotFound("invoice")
	if nf.Kind != KindNotFound || nf.Code != "resource_missing" || nf.Message != "No such invoice." {
		t.Errorf("NotFound = %+v", nf)
	}
	wrapped := fmt.Errorf("store: %w", nf)
	foreign := errors.New("pq: connection refused at 10.0.0.3")
	tests := []struct {
		err  error
		kind ErrorKind
		code string
	}{
		{nil, "", ""},
		{e, KindInvalid, "amount_out_of_range"},
		{wrapped, KindNotFound, "resource_missing"},
		{foreign, KindInternal, "internal_error"},
	}
	for _, tt := range tests {
		if k := ErrorKindOf(tt.err); k != tt.kind {
			t.Errorf("ErrorKindOf(%v) = %q, want %q", tt.err, k, tt.kind)
		}
		if c := ErrorCode(tt.err); c != tt.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tt.err, c, tt.code)
		}
	}
	if AsError(wrapped) != nf {
		t.Error("AsError does not unwrap")
	}
	if msg := AsError(foreign).Message; msg != "An internal error occurred." {
		t.Errorf("AsError leaks internals: %q", msg)
	}
}

func TestIdempotencyLimits(t *testing.T) {
	if IdempotencyTTL != 24*time.Hour || MaxIdempotencyKey != 255 {
		t.Errorf("idempotency limits: TTL %v, key %d", IdempotencyTTL, MaxIdempotencyKey)
	}
}
