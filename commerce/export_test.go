package commerce

import "testing"

// Hooks for the external tests (package commerce_test), which may import the
// store: the store imports this package, so tests that need both live outside it.

// NewFakeRetailer starts a loopback fake of the upstream retailer API.
func NewFakeRetailer(t *testing.T) *fakeRetailer { t.Helper(); return newFakeRetailer(t) }

// NewTestUpstream returns an upstream retailer client of f that sends key.
func NewTestUpstream(f *fakeRetailer, key string) *Upstream { return newTestUpstream(f, key) }

// Key is the API key f accepts.
func (f *fakeRetailer) Key() string { return f.key }

// SetFault makes f answer the next n requests (n < 0: all) with fault.
func (f *fakeRetailer) SetFault(fault string, n int64) { f.setFault(fault, n) }
