package devchain

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/log"
)

// TestGethLevels: go-ethereum's errors reach Kassa's logger as errors, its info
// and warnings only at debug, its debug and trace never; all tagged
// component=devchain.
func TestGethLevels(t *testing.T) {
	tests := []struct {
		name  string
		level slog.Level // Kassa's --log-level
		write func(log.Logger)
		want  string // "" for nothing written
	}{
		{"warn at info", slog.LevelInfo, func(l log.Logger) { l.Warn("Head block is not reachable") }, ""},
		{"info at info", slog.LevelInfo, func(l log.Logger) { l.Info("Starting peer-to-peer node") }, ""},
		{"error at info", slog.LevelInfo, func(l log.Logger) { l.Error("Failed to journal state") }, `level=ERROR msg="Failed to journal state" component=devchain`},
		{"warn at debug", slog.LevelDebug, func(l log.Logger) { l.Warn("Head block is not reachable") }, `level=DEBUG msg="Head block is not reachable" component=devchain`},
		{"info at debug", slog.LevelDebug, func(l log.Logger) { l.Info("Started", "n", 1) }, `level=DEBUG msg=Started component=devchain n=1`},
		{"debug at debug", slog.LevelDebug, func(l log.Logger) { l.Debug("Served eth_chainId") }, ""},
		{"trace at debug", slog.LevelDebug, func(l log.Logger) { l.Trace("Handled RPC response") }, ""},
		{"error at error", slog.LevelError, func(l log.Logger) { l.Error("Failed") }, `level=ERROR msg=Failed component=devchain`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			kassa := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: tt.level}))
			geth := log.NewLogger(gethLevels{kassa.With("component", "devchain").Handler()})
			tt.write(geth)
			got := strings.TrimSpace(out.String())
			if tt.want == "" {
				if got != "" {
					t.Fatalf("wrote %q, want nothing", got)
				}
				return
			}
			if _, line, ok := strings.Cut(got, " "); !ok || line != tt.want { // drop time=
				t.Fatalf("wrote %q, want %q", got, tt.want)
			}
		})
	}
}
