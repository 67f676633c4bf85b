package devchain

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/ethereum/go-ethereum/log"
)

// evmAPI is the JSON-RPC namespace "evm": the Hardhat/Anvil dev methods. The
// RPC server names each method after the namespace and the Go method:
// evm_mine, evm_snapshot, evm_revert.
type evmAPI struct {
	chain *Chain
}

// Mine mines one block now and returns "0x0", as Hardhat does. Hardhat's
// optional timestamp argument is accepted and ignored.
func (api *evmAPI) Mine(_ *json.RawMessage) (string, error) {
	if err := api.chain.Mine(); err != nil {
		return "", err
	}
	return "0x0", nil
}

// Snapshot records the current head and returns its id, e.g. "0x1".
func (api *evmAPI) Snapshot() (string, error) {
	return api.chain.Snapshot()
}

// Revert goes back to snapshot id; false when the id is unknown or used.
func (api *evmAPI) Revert(id string) (bool, error) {
	return api.chain.Revert(id)
}

// routeGethLogs points go-ethereum's global logger at logger, keeping only
// warnings and errors; nil discards everything. The logger is process-wide:
// the last Start wins.
func routeGethLogs(logger *slog.Logger) {
	var h slog.Handler = log.DiscardHandler()
	if logger != nil {
		h = warnOnly{logger.With("component", "devchain/geth").Handler()}
	}
	// Wrapped so that log.SetDefault does not also replace slog's default
	// logger, which it does for its own logger type.
	log.SetDefault(gethLogger{log.NewLogger(h)})
}

// gethLogger is a go-ethereum logger of another type than the package's own.
type gethLogger struct {
	log.Logger
}

// warnOnly passes records at warning level and above to its handler.
type warnOnly struct {
	next slog.Handler
}

// Enabled reports whether level is a warning or worse and next takes it.
func (h warnOnly) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.next.Enabled(ctx, level)
}

// Handle passes r on when it is a warning or worse.
func (h warnOnly) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns the filter over next with attrs.
func (h warnOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnOnly{h.next.WithAttrs(attrs)}
}

// WithGroup returns the filter over next in group name.
func (h warnOnly) WithGroup(name string) slog.Handler {
	return warnOnly{h.next.WithGroup(name)}
}
