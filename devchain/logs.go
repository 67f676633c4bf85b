package devchain

import (
	"context"
	"log/slog"

	"github.com/ethereum/go-ethereum/log"
)

// routeGethLogs points go-ethereum's global logger at logger, tagged
// component=devchain, at the levels of gethLevels; nil discards everything.
// The logger is process-wide: the last Start wins.
func routeGethLogs(logger *slog.Logger) {
	var h slog.Handler = log.DiscardHandler()
	if logger != nil {
		h = gethLevels{logger.With("component", "devchain").Handler()}
	}
	// Wrapped so that log.SetDefault does not also replace slog's default
	// logger, which it does for its own logger type.
	log.SetDefault(gethLogger{log.NewLogger(h)})
}

// gethLogger is a go-ethereum logger of another type than the package's own.
type gethLogger struct {
	log.Logger
}

// gethLevels moves go-ethereum's records to Kassa's levels: its errors (and
// criticals) stay errors, its info and warnings become debug, its debug and
// trace are dropped. A dev chain's warnings are the node's chatter ("Head block
// is not reachable" on a fresh chain, "transaction indexing is in progress"
// while Fund waits for a receipt), not something an operator acts on; they show
// with --log-level debug.
type gethLevels struct {
	next slog.Handler
}

// gethLevel is the level a go-ethereum record at level is written at; ok is
// false when the record is dropped.
func gethLevel(level slog.Level) (_ slog.Level, ok bool) {
	switch {
	case level >= slog.LevelError:
		return slog.LevelError, true
	case level >= slog.LevelInfo:
		return slog.LevelDebug, true
	}
	return 0, false
}

// Enabled reports whether next takes a record at level's new level.
func (h gethLevels) Enabled(ctx context.Context, level slog.Level) bool {
	to, ok := gethLevel(level)
	return ok && h.next.Enabled(ctx, to)
}

// Handle passes r on at its new level.
func (h gethLevels) Handle(ctx context.Context, r slog.Record) error {
	to, ok := gethLevel(r.Level)
	if !ok || !h.next.Enabled(ctx, to) {
		return nil
	}
	r.Level = to
	return h.next.Handle(ctx, r)
}

// WithAttrs returns the mapping over next with attrs.
func (h gethLevels) WithAttrs(attrs []slog.Attr) slog.Handler {
	return gethLevels{h.next.WithAttrs(attrs)}
}

// WithGroup returns the mapping over next in group name.
func (h gethLevels) WithGroup(name string) slog.Handler {
	return gethLevels{h.next.WithGroup(name)}
}
