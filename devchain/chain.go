package devchain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"
)

// Config configures a dev chain.
type Config struct {
	DataDir   string        // where its state is kept; required
	Addr      string        // JSON-RPC listen address, e.g. 127.0.0.1:8545; port 0 picks one
	BlockTime time.Duration // 0: a block per transaction and on evm_mine
	Logger    *slog.Logger  // go-ethereum's warnings and errors go here; nil: discarded
}

// Chain is a running dev chain.
type Chain struct {
	stack  *node.Node
	eth    *eth.Ethereum
	beacon *catalyst.SimulatedBeacon

	mu        sync.Mutex // serializes block production, snapshots and reorganisations
	snapshots []common.Hash
	stop      chan struct{}
	done      sync.WaitGroup
}

// Start opens (or creates) the dev chain in cfg.DataDir and serves its JSON-RPC.
func Start(cfg Config) (*Chain, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("devchain: no data dir")
	}
	host, portText, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("devchain: address %q: %w", cfg.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("devchain: address %q: bad port", cfg.Addr)
	}
	quietGeth(cfg.Logger)
	nc := node.DefaultConfig
	nc.Name, nc.DataDir, nc.IPCPath = "kassa-devchain", cfg.DataDir, ""
	nc.HTTPHost, nc.HTTPPort = host, port
	nc.HTTPModules = []string{"eth", "net", "web3", "evm"}
	nc.HTTPCors, nc.HTTPVirtualHosts = []string{"*"}, []string{"*"}
	nc.WSHost, nc.AuthPort = "", 0
	nc.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""}
	stack, err := node.New(&nc)
	if err != nil {
		return nil, fmt.Errorf("devchain: %w", err)
	}
	ec := ethconfig.Defaults
	ec.Genesis = genesis()
	ec.NetworkId = ChainID
	ec.SyncMode = ethconfig.FullSync
	// Every block's state is written to disk as it is made (archive mode on the
	// hash scheme, no snapshot layer): a kill -9 loses no mined block.
	ec.NoPruning, ec.StateScheme, ec.SnapshotCache = true, rawdb.HashScheme, 0
	ec.TxPool.NoLocals = true
	ec.LogNoHistory = true
	backend, err := eth.New(stack, &ec)
	if err != nil {
		stack.Close()
		return nil, fmt.Errorf("devchain: %w", err)
	}
	c := &Chain{stack: stack, eth: backend, stop: make(chan struct{})}
	stack.RegisterAPIs([]rpc.API{
		{Namespace: "eth", Service: filters.NewFilterAPI(filters.NewFilterSystem(backend.APIBackend, filters.Config{}))},
		{Namespace: "evm", Service: &evmAPI{c: c}},
	})
	if err := stack.Start(); err != nil {
		stack.Close()
		return nil, fmt.Errorf("devchain: %w", err)
	}
	// The beacon runs no loop of its own (period 0): blocks are made here, one at a
	// time under c.mu, on a timer or when transactions arrive.
	if c.beacon, err = catalyst.NewSimulatedBeacon(0, common.Address{}, backend); err != nil {
		stack.Close()
		return nil, fmt.Errorf("devchain: %w", err)
	}
	c.done.Add(1)
	go c.produce(cfg.BlockTime)
	return c, nil
}

// URL is the JSON-RPC endpoint, http://host:port.
func (c *Chain) URL() string { return c.stack.HTTPEndpoint() }

// Close stops block production and the node; the state stays in the data dir.
func (c *Chain) Close() error {
	close(c.stop)
	c.done.Wait()
	return c.stack.Close()
}

// produce makes blocks until Close: every blockTime, or when transactions arrive
// when blockTime is 0.
func (c *Chain) produce(blockTime time.Duration) {
	defer c.done.Done()
	if blockTime > 0 {
		t := time.NewTicker(blockTime)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				c.Mine()
			}
		}
	}
	txs := make(chan core.NewTxsEvent, 16)
	sub := c.eth.TxPool().SubscribeTransactions(txs, true)
	defer sub.Unsubscribe()
	for {
		select {
		case <-c.stop:
			return
		case <-txs:
			// Until the pool is empty; a transaction no block takes (its fee too
			// low) stops this after a few blocks rather than mining forever.
			for i, pending := 0, 1; pending > 0 && i < 8; pending, _ = c.eth.TxPool().Stats() {
				i++
				c.Mine()
				select {
				case <-c.stop:
					return
				default:
				}
			}
		}
	}
}

// Mine makes one block now, with the pending transactions (evm_mine).
func (c *Chain) Mine() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.eth.BlockChain().CurrentBlock().Number.Uint64()
	c.beacon.Commit()
	if c.eth.BlockChain().CurrentBlock().Number.Uint64() <= before {
		return errors.New("devchain: no block was made")
	}
	return nil
}

// quietGeth routes go-ethereum's own log lines of level warning and above to
// logger, and drops the rest (its info lines are a node operator's, not Kassa's).
func quietGeth(logger *slog.Logger) {
	if logger == nil {
		log.SetDefault(log.NewLogger(slog.DiscardHandler))
		return
	}
	log.SetDefault(log.NewLogger(levelHandler{logger.With("component", "devchain").Handler()}))
}

// levelHandler passes records of level warning and above.
type levelHandler struct{ slog.Handler }

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h levelHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return levelHandler{h.Handler.WithAttrs(as)}
}

func (h levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{h.Handler.WithGroup(name)}
}
