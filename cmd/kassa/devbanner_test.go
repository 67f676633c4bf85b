package main

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
)

// TestDevBannerWhole: the first serve --dev on a fresh data dir prints its
// banner whole, from "Dev mode:" to "kassa listening", with no log line inside
// it; go-ethereum's info and warnings are debug lines tagged component=devchain,
// so at the default level none is written before the banner ends.
func TestDevBannerWhole(t *testing.T) {
	tests := []struct {
		name     string
		extra    []string
		wantGeth bool // go-ethereum lines (at debug) before the banner ends
	}{
		{"default level", nil, false},
		{"log-level debug", []string{"--log-level", "debug"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runDev(t, store.Config{DataDir: t.TempDir()}, tt.extra...)
			lines := r.lines()
			start, end := -1, -1
			for i, line := range lines {
				if strings.HasPrefix(line, "Dev mode:") && start < 0 {
					start = i
				}
				if strings.HasPrefix(line, "kassa listening on") {
					end = i
					break
				}
			}
			if start < 0 || end < start {
				t.Fatalf("no banner from \"Dev mode:\" to \"kassa listening\" (lines %d..%d)", start, end)
			}
			for _, line := range lines[start : end+1] {
				if strings.HasPrefix(line, "time=") || strings.Contains(line, "level=") {
					t.Errorf("a log line inside the banner: %q", line)
				}
			}
			geth := 0
			for _, line := range lines[:end] {
				if !strings.Contains(line, "component=devchain") && !strings.Contains(line, "Head block is not reachable") &&
					!strings.Contains(line, "transaction indexing is in progress") {
					continue
				}
				geth++
				if !tt.wantGeth {
					t.Errorf("a go-ethereum line before the banner ends: %q", line)
				} else if !strings.Contains(line, "level=DEBUG") || !strings.Contains(line, "component=devchain") {
					t.Errorf("a go-ethereum line not at debug with component=devchain: %q", line)
				}
			}
			if tt.wantGeth && geth == 0 {
				t.Error("no go-ethereum line at --log-level debug")
			}
			r.stop(t)
		})
	}
}
