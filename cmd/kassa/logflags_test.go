package main

import (
	"io"
	"log/slog"
	"testing"

	"github.com/kassapay/kassa/api/httpx"
)

// TestLogFlags: --log-level and --access-log parse with their environment twins
// (the flag wins), default to info and on, and refuse unknown values.
func TestLogFlags(t *testing.T) {
	for _, c := range []struct {
		name   string
		env    map[string]string
		args   []string
		level  slog.Level
		access httpx.AccessLog
		bad    bool
	}{
		{"defaults", nil, nil, slog.LevelInfo, httpx.AccessLog{}, false},
		{"flags", nil, []string{"--log-level", "warn", "--access-log", "off"}, slog.LevelWarn, httpx.AccessLog{Off: true}, false},
		{"access at debug", nil, []string{"--access-log=debug"}, slog.LevelInfo, httpx.AccessLog{Level: slog.LevelDebug}, false},
		{"env twins", map[string]string{"KASSA_LOG_LEVEL": "debug", "KASSA_ACCESS_LOG": "off"}, nil,
			slog.LevelDebug, httpx.AccessLog{Off: true}, false},
		{"flag wins over env", map[string]string{"KASSA_LOG_LEVEL": "debug", "KASSA_ACCESS_LOG": "off"},
			[]string{"--log-level", "error", "--access-log", "on"}, slog.LevelError, httpx.AccessLog{}, false},
		{"bad level", nil, []string{"--log-level", "loud"}, 0, httpx.AccessLog{}, true},
		{"bad access log", nil, []string{"--access-log", "sometimes"}, 0, httpx.AccessLog{}, true},
		{"bad env twin", map[string]string{"KASSA_ACCESS_LOG": "yes"}, nil, 0, httpx.AccessLog{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("KASSA_LOG_LEVEL", "")
			t.Setenv("KASSA_ACCESS_LOG", "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			f, err := parseServeFlags(c.args, io.Discard)
			if c.bad {
				if err == nil {
					t.Fatalf("parsed %v, want an error", c.args)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.logLevel != c.level || f.access != c.access {
				t.Errorf("level %v, access %+v; want %v, %+v", f.logLevel, f.access, c.level, c.access)
			}
		})
	}
}
