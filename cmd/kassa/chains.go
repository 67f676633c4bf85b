package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
)

// chainFlags are serve's flags for chains: RPC endpoints per network and the
// embedded dev chain of --dev.
type chainFlags struct {
	rpc               rpcFlag
	devchain          bool
	devchainAddr      string
	devchainBlockTime time.Duration
}

func (c *chainFlags) register(fs *flag.FlagSet) {
	c.rpc = rpcFlag{}
	for _, entry := range strings.Split(os.Getenv("KASSA_RPC"), ";") {
		if strings.TrimSpace(entry) != "" {
			_ = c.rpc.Set(entry) // checked again after parsing (parseRPC)
		}
	}
	fs.Var(&c.rpc, "rpc", "JSON-RPC endpoints of a network, NETWORK=URL[,URL...] in order of preference; repeatable (env KASSA_RPC, entries separated by ;)")
	fs.BoolVar(&c.devchain, "devchain", envBoolOr("KASSA_DEVCHAIN", true), "with --dev, run the embedded EVM dev chain (network devchain) (env KASSA_DEVCHAIN)")
	fs.StringVar(&c.devchainAddr, "devchain-addr", envOr("KASSA_DEVCHAIN_ADDR", defaultDevchainAddr), "listen address of the dev chain's JSON-RPC; when the default is taken, a free port (env KASSA_DEVCHAIN_ADDR)")
	fs.DurationVar(&c.devchainBlockTime, "devchain-block-time", envDuration("KASSA_DEVCHAIN_BLOCK_TIME", time.Second), "time between dev chain blocks; 0 mines only when a transaction arrives (env KASSA_DEVCHAIN_BLOCK_TIME)")
}

// rpcFlag collects --rpc NETWORK=URL[,URL...] entries; a later entry for a network
// replaces an earlier one.
type rpcFlag map[string][]string

func (r rpcFlag) String() string { return "" }

func (r rpcFlag) Set(v string) error {
	name, urls, ok := strings.Cut(strings.TrimSpace(v), "=")
	if !ok || name == "" || urls == "" {
		return fmt.Errorf("want NETWORK=URL[,URL...]")
	}
	var list []string
	for _, u := range strings.Split(urls, ",") {
		if u = strings.TrimSpace(u); u != "" {
			list = append(list, u)
		}
	}
	r[strings.TrimSpace(name)] = list
	return nil
}

// chains is what startChains runs: the dev chain, if any, and the watchers.
type chains struct {
	watchers *chain.Watchers
	costs    *chain.Senders // every sender, for their gas reports
	senders  []sender
	pools    []*chain.Pool
	dev      *devchain.Chain
}

// sender is a network's chain.Sender and how often it runs.
type sender struct {
	*chain.Sender
	every time.Duration
}

// run starts every sender; they stop with ctx.
func (c *chains) run(ctx context.Context, wg *sync.WaitGroup) {
	for _, s := range c.senders {
		wg.Go(func() { s.Run(ctx, s.every) })
	}
}

// startChains starts the dev chain (with --dev, unless --devchain=false) and a
// watcher for every network with RPC endpoints (the registry's rpc_urls, replaced
// by --rpc), after checking each endpoint's chain id: a mismatch stops the start.
func startChains(ctx context.Context, f *serveFlags, reg kassa.Registry, db *store.DB, rates kassa.RateSource,
	wallets map[kassa.Environment]payment.AddressDeriver, holder string, meters chain.Metrics, log *slog.Logger,
	stdout io.Writer) (*chains, error) {
	out := &chains{watchers: &chain.Watchers{}, costs: &chain.Senders{}}
	urls, err := rpcURLs(reg, f.rpc)
	if err != nil {
		return nil, err
	}
	interval := map[string]time.Duration{}
	if f.dev && f.devchain {
		addr := f.devchainAddr
		if addr == defaultDevchainAddr && os.Getenv("KASSA_DEVCHAIN_ADDR") == "" && !free(addr) {
			// The default port is taken (another dev instance, Hardhat, Anvil):
			// take any free one rather than fail; the banner says which.
			log.Warn("the dev chain's default address is in use; using a free port", "addr", addr)
			addr = "127.0.0.1:0"
		}
		dev, err := devchain.Start(devchain.Config{DataDir: filepath.Join(f.dataDir, "devchain"), Addr: addr,
			BlockTime: f.devchainBlockTime, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("dev chain: %w", err)
		}
		out.dev = dev
		k := key(kassa.Devnet, devNetwork)
		urls[k] = []string{dev.URL()}
		interval[k] = f.devchainBlockTime
		if interval[k] <= 0 {
			interval[k] = 250 * time.Millisecond // blocks come with transactions: look often
		}
		printDevChain(stdout, dev, f.devchainBlockTime)
	}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		for _, n := range reg.Networks(env) {
			list := urls[key(env, n.Name)]
			if len(list) == 0 {
				continue
			}
			pool, err := chain.NewPool(n.Name, n.ChainID, list, chain.PoolOptions{Logger: log, Metrics: meters})
			if err == nil {
				out.pools = append(out.pools, pool)
				err = pool.Check(ctx)
			}
			if err != nil {
				out.close()
				return nil, err
			}
			if out.dev != nil && n.Name == devNetwork && env == kassa.Devnet {
				n.WSURL = out.dev.WSURL() // new heads pushed: a payment is seen as its block is
			}
			tokens := networkTokens(reg, n)
			w := &chain.Watcher{Network: n, Tokens: tokens, Nodes: pool, Store: db, Rates: rates, Log: log, Holder: holder,
				Metrics: meters}
			s, err := newSender(ctx, n, tokens, pool, db, wallets[env], holder, log, out.dev)
			if err != nil {
				out.close()
				return nil, err
			}
			if out.dev != nil && n.Name == devNetwork && env == kassa.Devnet {
				fmt.Fprintf(stdout, "  gas wallet:      %s (funded; pays the gas of sweeps and refunds)\n", s.gas)
			}
			w.Own = []string{s.gas}
			if out.dev != nil && n.Name == devNetwork && env == kassa.Devnet {
				w.StartBack = 1 << 62 // the whole dev chain, from its first block
			}
			every := interval[key(env, n.Name)]
			if every == 0 {
				every = n.BlockTime()
			}
			out.watchers.Add(w, every)
			out.senders = append(out.senders, sender{s.Sender, every})
			out.costs.Add(s.Sender)
			log.Info("watching network", "network", n.Name, "environment", env, "endpoints", len(list), "every", every)
		}
	}
	return out, nil
}

// newSender builds the network's sender of payouts (newGasSender); on the dev
// chain it funds the gas wallet first.
func newSender(ctx context.Context, n kassa.Network, tokens []kassa.Token, pool *chain.Pool, db *store.DB,
	wallet payment.AddressDeriver, holder string, log *slog.Logger, dev *devchain.Chain) (*gasSender, error) {
	s, err := newGasSender(n, tokens, pool, db, wallet, holder, log)
	if err != nil {
		return nil, err
	}
	if dev != nil && n.Name == devNetwork && n.Environment == kassa.Devnet {
		funded, err := dev.Fund(ctx, s.gas)
		if err != nil {
			return nil, fmt.Errorf("dev chain: funding the gas wallet: %w", err)
		}
		if funded {
			log.Info("dev chain: funded the gas wallet", "address", s.gas)
		}
	}
	log.Info("sending payouts", "network", n.Name, "environment", n.Environment, "gas_wallet", s.gas)
	return s, nil
}

// devNetwork is the dev chain's network in the registry.
const devNetwork = "devchain"

// defaultDevchainAddr is where the dev chain's JSON-RPC listens by default, the
// port wallets and tools expect of a local chain.
const defaultDevchainAddr = "127.0.0.1:8545"

// free reports whether addr can be listened on now.
func free(addr string) bool {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

func key(env kassa.Environment, network string) string { return string(env) + "/" + network }

// close stops the pools and the dev chain; the watchers have stopped.
func (c *chains) close() {
	if c == nil {
		return
	}
	for _, p := range c.pools {
		p.Close()
	}
	if c.dev != nil {
		c.dev.Close()
	}
}

// printDevChain prints the dev chain's lines of the --dev banner.
func printDevChain(out io.Writer, dev *devchain.Chain, blockTime time.Duration) {
	acct := devchain.Accounts()[0]
	every := "a block every " + blockTime.String()
	if blockTime <= 0 {
		every = "a block per transaction"
	}
	fmt.Fprintf(out, "Dev chain (network %s): JSON-RPC %s, WebSocket %s, chain id %d, %s\n", devNetwork, dev.URL(),
		dev.WSURL(), devchain.ChainID, every)
	for _, t := range devchain.Tokens() {
		fmt.Fprintf(out, "  %-5s contract:  %s (%d decimals)\n", t.Symbol, t.Address, t.Decimals)
	}
	fmt.Fprintf(out, "  account 0:       %s (10,000 ETH, 1,000,000 USDT and USDC)\n", acct.Address)
	fmt.Fprintf(out, "  its private key: 0x%s\n", acct.PrivateKey)
	fmt.Fprintf(out, "  (public test keys of the mnemonic \"test test ... junk\": never send real money to them)\n")
	rpcFlag := ""
	if dev.URL() != "http://"+defaultDevchainAddr {
		rpcFlag = " --rpc " + dev.URL()
	}
	fmt.Fprintf(out, "  pay an invoice:  go run ./cmd/kassa pay PAYMENT_URL%s\n", rpcFlag)
}

// envBoolOr reads a boolean environment twin, def when unset or unparsable.
func envBoolOr(key string, def bool) bool {
	if v, ok := os.LookupEnv(key); ok {
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return def
}

// envDuration reads a duration environment twin, def when unset or unparsable.
func envDuration(key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(key)); err == nil {
		return d
	}
	return def
}
