package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
)

// walletFlags are the flags of `kassa wallet`: where the keys and the store are,
// and which chains to ask, as serve takes them.
type walletFlags struct {
	storeFlags
	secrets      secretsFlags
	registry     string
	rpc          rpcFlag
	dev          bool
	devchainAddr string
	json         bool
	timeout      time.Duration
}

// gasWallet is one network's gas wallet as `kassa wallet` shows it. Amounts are
// decimal strings of whole coins and tokens.
type gasWallet struct {
	Environment kassa.Environment `json:"environment"`
	Network     string            `json:"network"`
	Address     string            `json:"address"`
	Native      string            `json:"native_symbol"`
	Balance     string            `json:"balance,omitempty"`
	Tokens      map[string]string `json:"tokens,omitempty"`
	Waiting     int               `json:"waiting_payouts"`
	Need        string            `json:"need,omitempty"`
	Short       bool              `json:"short"`
	Warning     string            `json:"warning,omitempty"`
	Error       string            `json:"error,omitempty"`
	// RefundNeeds sums, by token, the refunds waiting for the wallet (Refunds).
	RefundNeeds []refundNeed    `json:"refund_needs"`
	Refunds     []waitingRefund `json:"waiting_refunds"`
}

// wallet prints the gas wallet of every network: its address, and where Kassa
// has an RPC endpoint for the network, its balances, the payouts waiting on it
// and a warning when it cannot pay for them. No key is ever printed.
func wallet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := walletFlags{rpc: rpcFlag{}}
	fs := newFlagSet("kassa wallet", stderr)
	f.storeFlags.register(fs)
	f.secrets.register(fs)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	reg, err := registry.Load(f.registry)
	if err != nil {
		return err
	}
	if f.dev {
		if _, ok := f.rpc[devNetwork]; !ok {
			f.rpc[devNetwork] = []string{"http://" + f.devchainAddr}
		}
	}
	urls, err := rpcURLs(reg, f.rpc)
	if err != nil {
		return err
	}
	kek, err := f.secrets.load(f.dataDir, false, nil)
	if err != nil {
		return fmt.Errorf("secrets key: %w", err)
	}
	var keys *sealed.Keyring
	if kek != nil {
		keys = sealed.NewKeyring(kek)
	}
	wallets, err := existingWallets(f.dataDir, keys)
	if err != nil {
		return err
	}
	cfg := f.config()
	cfg.Secrets = keys
	db, err := store.Open(ctx, cfg)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer db.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var out []gasWallet
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		for _, n := range reg.Networks(env) {
			out = append(out, gasWalletOf(ctx, f.timeout, n, networkTokens(reg, n), urls[key(env, n.Name)], db, wallets[env], quiet))
		}
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"gas_wallets": out})
	}
	printWallets(stdout, out)
	return nil
}

func (f *walletFlags) register(fs *flag.FlagSet) {
	for _, entry := range strings.Split(os.Getenv("KASSA_RPC"), ";") {
		if strings.TrimSpace(entry) != "" {
			_ = f.rpc.Set(entry)
		}
	}
	fs.StringVar(&f.registry, "registry-file", envOr("KASSA_REGISTRY_FILE", ""), "JSON file of networks and tokens replacing the built-in registry (env KASSA_REGISTRY_FILE)")
	fs.Var(&f.rpc, "rpc", "JSON-RPC endpoints of a network, NETWORK=URL[,URL...]; repeatable (env KASSA_RPC, entries separated by ;)")
	fs.BoolVar(&f.dev, "dev", envBool("KASSA_DEV"), "also ask the dev chain of serve --dev at --devchain-addr (env KASSA_DEV)")
	fs.StringVar(&f.devchainAddr, "devchain-addr", envOr("KASSA_DEVCHAIN_ADDR", defaultDevchainAddr), "the dev chain's JSON-RPC address (env KASSA_DEVCHAIN_ADDR)")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "how long to wait for each network's node")
}

// existingWallets reads the environments' master keys as serve does, but never
// makes one: a missing key means the data dir is not the one serve uses. keys may
// be nil when no secrets key exists yet (key files still in clear).
func existingWallets(dataDir string, keys *sealed.Keyring) (map[kassa.Environment]payment.AddressDeriver, error) {
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		if _, ok := masterKeyFromEnv(env); ok {
			continue
		}
		if _, err := os.Stat(hdwallet.KeyPath(dataDir, env)); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no %s master key in %s: serve makes it at its first start (is --data-dir the one serve uses?)", env, dataDir)
		}
	}
	return loadWallets(dataDir, keys)
}

// gasWalletOf looks network n's gas wallet up over urls (none: the address only).
func gasWalletOf(ctx context.Context, timeout time.Duration, n kassa.Network, tokens []kassa.Token, urls []string,
	db *store.DB, keys payment.AddressDeriver, log *slog.Logger) gasWallet {
	out := gasWallet{Environment: n.Environment, Network: n.Name, Native: n.NativeSymbol}
	var pool *chain.Pool
	if len(urls) > 0 {
		var err error
		if pool, err = chain.NewPool(n.Name, n.ChainID, urls, chain.PoolOptions{Logger: log}); err != nil {
			out.Error = err.Error()
		} else {
			defer pool.Close()
		}
	}
	s, err := newGasSender(n, tokens, pool, db, keys, "kassa-wallet", log)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Address = s.gas
	refunds, err := db.WaitingRefunds(ctx, n.Environment, n.Name)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Refunds, out.RefundNeeds = waitingRefunds(refunds), refundNeeds(refunds, nil)
	if pool == nil {
		if out.Error == "" {
			out.Error = "no RPC endpoint configured: balances unknown"
		}
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := pool.Check(ctx); err != nil {
		out.Error = err.Error()
		return out
	}
	r, err := s.GasReport(ctx)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Balance, out.Need = kassa.FormatUnits(r.Balance, 18), kassa.FormatUnits(r.Need, 18)
	out.Waiting, out.Short, out.Warning = r.Waiting, r.Short, r.Warning()
	out.Tokens = map[string]string{}
	for _, t := range tokens {
		if b, ok := r.Tokens[t.Symbol]; ok {
			out.Tokens[t.Symbol] = kassa.FormatUnits(b, t.Decimals)
		}
	}
	held := map[string]*big.Int{n.NativeSymbol: r.Balance}
	for sym, b := range r.Tokens {
		held[sym] = b
	}
	out.RefundNeeds = refundNeeds(refunds, held)
	if w := refundWarning(out); w != "" {
		out.Short = true
		if out.Warning != "" {
			out.Warning += "; "
		}
		out.Warning += w
	}
	return out
}

// printWallets prints the wallets for people, warnings last.
func printWallets(w io.Writer, ws []gasWallet) {
	fmt.Fprintln(w, "Gas wallets: they pay the gas of sweeps and refunds; fund each with its network's coin.")
	var warnings []string
	for _, g := range ws {
		fmt.Fprintf(w, "\n%s / %s: %s\n", g.Environment, g.Network, g.Address)
		if g.Error != "" {
			fmt.Fprintf(w, "  %s\n", g.Error)
			if len(g.RefundNeeds) > 0 {
				printRefunds(w, g)
			}
			continue
		}
		line := g.Balance + " " + g.Native
		syms := make([]string, 0, len(g.Tokens))
		for sym := range g.Tokens {
			syms = append(syms, sym)
		}
		sort.Strings(syms)
		for _, sym := range syms {
			line += ", " + g.Tokens[sym] + " " + sym
		}
		fmt.Fprintf(w, "  balance: %s\n", line)
		fmt.Fprintf(w, "  waiting payouts: %d, needing up to %s %s\n", g.Waiting, g.Need, g.Native)
		printRefunds(w, g)
		if g.Warning != "" {
			warnings = append(warnings, g.Warning)
		}
	}
	for _, warn := range warnings {
		fmt.Fprintf(w, "\nWARNING: %s\n", warn)
	}
}
