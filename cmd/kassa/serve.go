package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/settlement"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/stream"
	"github.com/kassapay/kassa/webhook"
	"github.com/kassapay/kassa/worker"
)

// shutdownTimeout bounds how long in-flight requests may take to finish on shutdown.
const shutdownTimeout = 30 * time.Second

// gcPercent is the garbage collector's target that serve sets when GOGC is not
// set: a collection once the heap has grown by twice what the last one left, not
// once (Go's 100). The live heap is small (about 20 MiB under load), so a list
// load collected several times a second; at 200 a list took 10 % less CPU (SQLite
// lists 11 % more per second, PostgreSQL's 4 %) for 12-13 MiB more anonymous
// memory after a create load (docs/performance.md, "Fast paths" and "Memory
// after a create load").
const gcPercent = 200

// openStore opens the store serve runs on; tests replace it to watch the store.
var openStore = store.Open

// serve runs the HTTP service until ctx ends, then shuts down gracefully: it drains
// (/readyz 503 for --drain-delay while still serving), stops accepting, lets
// in-flight requests finish, stops the workers and closes the store.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	logs := newLogBuffer(stderr)
	defer logs.Close()
	log := slog.New(flushOnWarn{slog.NewTextHandler(logs, &slog.HandlerOptions{Level: f.logLevel}), logs})
	if err := secureDataDir(f.dataDir); err != nil {
		return err
	}
	secret, err := loadSecret(f.secret, f.dataDir)
	if err != nil {
		return fmt.Errorf("server secret: %w", err)
	}
	reg, err := registry.Load(f.registry)
	if err != nil {
		return err
	}
	rates, refreshRates, err := loadRates(ctx, f.rates, reg, log)
	if err != nil {
		return err
	}
	kek, err := f.secrets.load(f.dataDir, true, log)
	if err != nil {
		return fmt.Errorf("secrets key: %w", err)
	}
	keys := sealed.NewKeyring(kek)
	if _, err := sealKeyFiles(f.dataDir, keys, log); err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	wallets, err := loadWallets(f.dataDir, keys)
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	cfg := f.config()
	cfg.Secrets = keys
	cfg.Log = log
	meters := f.metrics.newMetrics(reg)
	observe(&cfg, meters)
	db, err := openStore(ctx, cfg)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer db.Close()
	log.Info("store ready", "engine", db.Engine())
	pass, err := db.SealSecrets(ctx)
	if err != nil {
		return err
	}
	if err := checkSecrets(pass, keys, log); err != nil {
		return err
	}

	if f.pprofAddr != "" {
		addr, err := servePprof(ctx, f.pprofAddr, log)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "pprof listening on %s\n", addr)
	}
	if addr, err := f.metrics.listen(ctx, meters, log); err != nil {
		return err
	} else if addr != nil {
		fmt.Fprintf(stdout, "metrics listening on %s\n", addr)
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	publicURL := f.publicURL
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String()
	}
	// The banner (--dev's demo merchant and dev chain) is collected and printed
	// in one write with the listening line, after the start's log lines: log
	// lines written meanwhile cannot cut it.
	var banner bytes.Buffer
	if f.dev {
		settleOn := "bsc-testnet"
		if f.devchain {
			settleOn = devNetwork
		}
		if err := seedDev(ctx, db, f.dataDir, keys, publicURL, settleOn, &banner); err != nil {
			ln.Close()
			return fmt.Errorf("seed demo merchant: %w", err)
		}
		if f.webhookAllowPrivate {
			fmt.Fprintln(&banner, "  webhooks:       devnet endpoints may target loopback and private addresses (--webhook-allow-private, on with --dev); mainnet ones never")
		}
	}
	if f.webhookAllowPrivate {
		log.Warn("devnet webhooks may target loopback and private addresses (--webhook-allow-private): devnet keys can reach this host and its network; mainnet webhooks stay on public addresses")
	}
	holder, err := instanceHolder(f.dataDir)
	if err != nil {
		return err
	}
	if err := reclaimLeases(ctx, db, holder, log); err != nil {
		return err
	}
	chains, err := startChains(ctx, f, reg, db, rates, wallets, holder, chainMetrics(meters), log, &banner)
	if err != nil {
		ln.Close()
		return err
	}
	defer chains.close()
	hub := stream.New(db, stream.Options{Wake: db.Commits(), Logger: log})
	catalog := newCatalog(f)
	invoices := invoicing.Over(db)
	pay := &payment.Service{Registry: reg, Rates: rates, Addresses: db, Wallets: wallets, Invoices: invoices, Payments: db,
		Chain: chains.watchers, Costs: chains.costs}
	shop := &commerce.Shop{Catalog: catalog, Store: db, Invoices: invoices, Payer: pay}
	drain := &drainer{}
	warnings := func() []string { return append(db.Warnings(), chains.costs.Warnings()...) }
	ac := api.Config{
		PublicURL: publicURL, Secret: secret, Logger: log, AccessLog: f.access, Limits: f.limits,
		RateStore: sharedRates(f.rateStore, db), Proxies: f.trustedProxies,
		Merchants: db, Keys: db, Invoices: invoices, Payments: db, Payor: db, Idempotency: db, Health: db.Ping, Draining: drain.draining,
		Warnings: warnings, Events: db, Webhooks: db, WebhookTargets: f.webhookTargets(), Stream: hub,
		Registry: reg, Rates: rates, Pay: pay,
		Commerce: shop, Catalog: catalog, Sessions: db, Overview: db, Refunds: db,
	}
	serveMetrics(&ac, meters, &f.metrics, db, chains, hub)
	handler := api.New(ac)
	srv := newHTTPServer(drain.wrap(handler), serverLimits, log)

	workers, stopWorkers := context.WithCancel(context.Background())
	// Shutdown does not track hijacked WebSocket connections: stopping the hub ends
	// every stream (close 1001) so clients reconnect elsewhere with since=.
	streams, stopStreams := context.WithCancel(context.Background())
	srv.RegisterOnShutdown(stopStreams)
	var wg sync.WaitGroup
	wg.Go(func() { hub.Run(streams) })
	wg.Go(func() { returnMemory(workers, memoryCheckEvery, log) })
	wg.Go(func() { holdMemory(workers, limitEvery, liveMemory) })
	if refreshRates != nil {
		wg.Go(func() { refreshRates(workers) })
	}
	// Singleton jobs run under leases (the queues' claims already split their
	// items among instances): docs/operations.md, "Several instances".
	wg.Go(func() {
		worker.Prune(workers, db, store.CheckoutRetention,
			&worker.Lease{Leaser: db, Name: worker.PruneLease, Holder: holder, TTL: 2 * worker.PruneInterval}, log)
	})
	wg.Go(func() {
		worker.Expiry(workers, db, &worker.Lease{Leaser: db, Name: worker.ExpiryLease, Holder: holder, TTL: 30 * time.Second}, log)
	})
	if db.Engine() == store.EngineSQLite { // PostgreSQL's trigram index is kept with each write
		wg.Go(func() { worker.DescriptionIndex(workers, db, log) })
	}
	wg.Go(func() { chains.watchers.Run(workers, log) })
	chains.run(workers, &wg)
	settler := &settlement.Worker{Store: db, Registry: reg, Log: log,
		Executors: map[kassa.Environment]settlement.SettlementExecutor{kassa.Devnet: settlement.Devnet{}},
		OnChain:   chains.watchers.Watched, Payouts: db, Refunds: db}
	wg.Go(func() { settler.Run(workers, 2*time.Second) })
	wg.Go(func() { shop.RunPlacer(workers, 5*time.Second, log) })
	if f.webhookWorkers > 0 {
		deliverer := &webhook.Worker{Queue: db, Log: log, Wake: db.Deliveries(), Workers: f.webhookWorkers,
			Batch: 2 * f.webhookWorkers, Targets: f.webhookTargets()}
		if meters != nil {
			deliverer.Metrics = meters
		}
		wg.Go(func() { deliverer.Run(workers) })
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(serverListener(ln, serverLimits, f.maxConnsPerAddress, log)) }()
	fmt.Fprintf(&banner, "kassa listening on %s (public URL %s, store %s)\n", ln.Addr(), publicURL, db.Engine())
	logs.Flush()
	_, _ = stdout.Write(banner.Bytes())

	select {
	case err = <-served:
	case <-ctx.Done():
		err = drain.stop(srv, f.drain.on(db.Engine()), log)
	}
	stopStreams()
	stopWorkers()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("stopped")
	return err
}

// sharedRates is where the rate budgets live (--rate-limit-store): by default in
// the store on PostgreSQL, which several instances may share, so a key's limit
// holds whatever their number; in memory on SQLite, which serves one instance.
func sharedRates(where string, db *store.DB) httpx.RateStore {
	if where == "database" || where == "auto" && db.Engine() == store.EnginePostgres {
		return db
	}
	return nil
}

// newCatalog builds the retailers: the built-in catalogs on devnet, the upstream
// retailer API on mainnet when one is configured.
func newCatalog(f *serveFlags) *commerce.CachedCatalog {
	rs := map[kassa.Environment][]commerce.Retailer{}
	for _, name := range commerce.Retailers {
		rs[kassa.Devnet] = append(rs[kassa.Devnet], commerce.NewBuiltin(name))
	}
	if f.retailerURL != "" {
		rs[kassa.Mainnet] = []commerce.Retailer{commerce.NewUpstream(commerce.UpstreamConfig{
			Name: f.retailerName, BaseURL: f.retailerURL, APIKey: f.retailerKey})}
	}
	return commerce.NewCatalog(commerce.CatalogConfig{Retailers: rs})
}
