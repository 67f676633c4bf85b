package devchain

import (
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/version"
)

// DefaultAddr is the JSON-RPC listen address used when Config.Addr is empty.
const DefaultAddr = "127.0.0.1:8545"

// Config configures a dev chain.
type Config struct {
	// DataDir holds the chain's state (e.g. <data-dir>/devchain); required. A
	// directory that already holds a chain continues it.
	DataDir string
	// Addr is the HTTP JSON-RPC listen address, host:port; port 0 picks a
	// free port (see Chain.URL). Empty means DefaultAddr.
	Addr string
	// BlockTime is the time between blocks. 0 mines a block only when a
	// transaction arrives and on evm_mine (Chain.Mine).
	BlockTime time.Duration
	// Logger receives the chain's own warnings and go-ethereum's messages
	// (component=devchain): its errors as errors, its info and warnings at debug,
	// nothing below. nil discards everything.
	Logger *slog.Logger
	// MinTip is the smallest tip (max priority fee per gas, wei) the miner takes;
	// transactions tipping less wait in the pool. nil keeps go-ethereum's default
	// (0.001 gwei). Tests of stuck transactions and fee bumps raise it.
	MinTip *big.Int
}

// Chain is a running dev chain. Its methods are safe for concurrent use.
type Chain struct {
	cfg     Config
	log     *slog.Logger
	stack   *node.Node
	backend *eth.Ethereum
	beacon  *catalyst.SimulatedBeacon
	url     string
	wsURL   string

	// mu serialises everything that moves the head: sealing, reverts and
	// reorganisations, and guards the fields below.
	mu        sync.Mutex
	closed    bool
	snapshots map[uint64]common.Hash // evm_snapshot id → head block at that time
	lastSnap  uint64                 // the last id handed out

	fundMu sync.Mutex // one Fund at a time: it counts its funder's nonces

	stop      chan struct{} // closed by Close: stops the mining goroutines
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Start starts the dev chain in cfg.DataDir, creating it with the genesis
// block on first use, and serves JSON-RPC on cfg.Addr.
func Start(cfg Config) (*Chain, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("devchain: Config.DataDir is required")
	}
	if cfg.BlockTime < 0 {
		return nil, fmt.Errorf("devchain: negative BlockTime %s", cfg.BlockTime)
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	host, portText, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("devchain: listen address %q: %w", cfg.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("devchain: listen address %q: bad port", cfg.Addr)
	}
	if host == "" {
		host = "0.0.0.0" // ":8545" listens on every interface, as net.Listen would
	}
	c := &Chain{
		cfg:       cfg,
		log:       cfg.Logger,
		snapshots: map[uint64]common.Hash{},
		stop:      make(chan struct{}),
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	routeGethLogs(cfg.Logger)

	c.stack, err = node.New(nodeConfig(cfg.DataDir, host, port))
	if err != nil {
		return nil, fmt.Errorf("devchain: %w", err)
	}
	if err := c.open(); err != nil {
		return nil, errors.Join(fmt.Errorf("devchain: %w", err), c.stack.Close())
	}
	c.startMining()
	return c, nil
}

// nodeConfig is the node shell: no peers, no IPC, HTTP JSON-RPC open to any
// host and origin (MetaMask in a browser) with the eth, net, web3 and evm
// namespaces, and WebSocket JSON-RPC (eth_subscribe) on the same host and port.
func nodeConfig(dataDir, host string, port int) *node.Config {
	cfg := node.DefaultConfig
	cfg.Name = "geth" // instance directory <DataDir>/geth, as geth itself
	cfg.UserIdent = "kassa-devchain"
	cfg.Version = fmt.Sprintf("v%d.%d.%d-%s", version.Major, version.Minor, version.Patch, version.Meta)
	cfg.DataDir = dataDir
	cfg.IPCPath = ""
	cfg.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""}
	cfg.HTTPHost = host
	cfg.HTTPPort = port
	cfg.HTTPModules = []string{"eth", "net", "web3", "evm"}
	cfg.HTTPVirtualHosts = []string{"*"}
	cfg.HTTPCors = []string{"*"}
	// The same host and port: go-ethereum serves both from one listener,
	// upgrading requests that ask for a WebSocket.
	cfg.WSHost = host
	cfg.WSPort = port
	cfg.WSModules = cfg.HTTPModules
	cfg.WSOrigins = []string{"*"}
	return &cfg
}

// ethConfig is the Ethereum service: full sync of nothing (no peers), and an
// archive node on the hash scheme without dirty-trie caching or snapshots, so
// each block's state is written to disk as the block is inserted and every
// block's state stays readable (evm_revert, ReorgTo). gen is nil when the
// database already holds a chain: its stored genesis and config are kept.
func ethConfig(gen bool) *ethconfig.Config {
	cfg := ethconfig.Defaults
	if gen {
		cfg.Genesis = genesis()
	}
	cfg.NetworkId = ChainID
	cfg.SyncMode = ethconfig.FullSync
	cfg.NoPruning = true
	cfg.StateScheme = rawdb.HashScheme
	cfg.TrieDirtyCache = 0 // nothing waits in memory for a later flush
	cfg.SnapshotCache = 0  // no snapshot layer to rebuild after a crash
	cfg.TrieCleanCache = 32
	cfg.DatabaseCache = 64
	cfg.TxPool.NoLocals = true
	cfg.TxPool.Journal = ""
	return &cfg
}

// open assembles the Ethereum service on the node, starts the node and the
// simulated beacon that turns pending transactions into blocks.
func (c *Chain) open() error {
	stored, err := hasChain(c.stack)
	if err != nil {
		return err
	}
	ec := ethConfig(!stored)
	if c.cfg.MinTip != nil {
		ec.Miner.GasPrice = new(big.Int).Set(c.cfg.MinTip)
	}
	c.backend, err = eth.New(c.stack, ec)
	if err != nil {
		return err
	}
	// eth_getLogs and the filter methods live in their own service.
	fs := filters.NewFilterSystem(c.backend.APIBackend, filters.Config{})
	c.stack.RegisterAPIs([]rpc.API{
		{Namespace: "eth", Service: filters.NewFilterAPI(fs)},
		{Namespace: "evm", Service: &evmAPI{chain: c}},
	})
	// Requests may arrive as soon as the node starts: the evm methods wait on
	// mu until the beacon is there.
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.stack.Start(); err != nil {
		return err
	}
	// Period 0: the beacon never mines by itself; startMining drives it.
	c.beacon, err = catalyst.NewSimulatedBeacon(0, common.Address{}, c.backend)
	if err != nil {
		return err
	}
	c.url = c.stack.HTTPEndpoint()
	c.wsURL = c.stack.WSEndpoint()
	return nil
}

// hasChain reports whether the node's chain database already holds a genesis
// block with its chain config.
func hasChain(stack *node.Node) (bool, error) {
	db, err := stack.OpenDatabaseWithOptions("chaindata", node.DatabaseOptions{Cache: 16, Handles: 16})
	if err != nil {
		return false, err
	}
	defer db.Close()
	hash := rawdb.ReadCanonicalHash(db, 0)
	return hash != (common.Hash{}) && rawdb.ReadChainConfig(db, hash) != nil, nil
}

// URL returns the JSON-RPC endpoint, http://host:port.
func (c *Chain) URL() string {
	return c.url
}

// WSURL returns the WebSocket JSON-RPC endpoint, ws://host:port: the HTTP
// endpoint's listener, for eth_subscribe (newHeads).
func (c *Chain) WSURL() string {
	return c.wsURL
}

// Close stops mining and the node and closes the database. The chain is kept
// in DataDir. Calling Close again returns the first call's result.
func (c *Chain) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.stop)
		c.wg.Wait()
		if c.beacon != nil {
			c.closeErr = c.beacon.Stop()
		}
		c.closeErr = errors.Join(c.closeErr, c.stack.Close())
	})
	return c.closeErr
}
