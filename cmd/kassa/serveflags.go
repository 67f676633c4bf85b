package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/kassapay/kassa/delivery"

	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/webhook"
)

// serveFlags are the flags of `kassa serve`, as parseServeFlags reads them.
type serveFlags struct {
	storeFlags
	chainFlags
	secrets   secretsFlags
	addr      string
	publicURL string
	secret    string
	dev       bool
	limits    httpx.RateLimits
	// rateStore is where rate budgets live: auto, memory or database.
	rateStore string
	registry  string
	rates     rateFlags
	// webhookWorkers is how many webhook deliveries this instance sends at once;
	// 0 leaves delivery to other instances.
	webhookWorkers int
	// webhookAllowPrivate lets devnet webhooks reach loopback and private
	// addresses (delivery.Targets), never mainnet ones; --dev turns it on
	// unless it was given.
	webhookAllowPrivate bool
	// retailerURL and retailerKey configure the mainnet upstream retailer API.
	retailerURL, retailerKey, retailerName string
	// logLevel is the least level logged; access is how requests are logged.
	logLevel slog.Level
	access   httpx.AccessLog
	// drain is how long a stopping instance reports not ready while still serving.
	drain   drainFlag
	metrics metricsFlags
	// pprofAddr, when set, serves net/http/pprof there (loopback only).
	pprofAddr string
	// maxConnsPerAddress caps the connections of one client address.
	maxConnsPerAddress connCap
	// trustedProxies may name the client in X-Forwarded-For (per-address limits).
	trustedProxies httpx.Proxies
}

func parseServeFlags(args []string, stderr io.Writer) (*serveFlags, error) {
	var err error
	f := &serveFlags{}
	d := httpx.DefaultRateLimits()
	fs := newFlagSet("kassa serve", stderr)
	f.storeFlags.register(fs)
	f.chainFlags.register(fs)
	f.secrets.register(fs)
	fs.StringVar(&f.addr, "addr", envOr("KASSA_ADDR", "127.0.0.1:8080"), "listen address; port 0 picks a free port (env KASSA_ADDR)")
	fs.StringVar(&f.publicURL, "public-url", envOr("KASSA_PUBLIC_URL", ""), "base URL payors and clients reach; default http://<addr> (env KASSA_PUBLIC_URL)")
	fs.StringVar(&f.secret, "secret", envOr("KASSA_SECRET", ""), "server secret for JWT and session signatures; default: generated and kept in the data dir (env KASSA_SECRET)")
	fs.StringVar(&f.registry, "registry-file", envOr("KASSA_REGISTRY_FILE", ""), "JSON file of networks and tokens replacing the built-in registry (env KASSA_REGISTRY_FILE)")
	f.rates.register(fs)
	f.metrics.register(fs)
	fs.StringVar(&f.pprofAddr, "pprof-addr", envOr("KASSA_PPROF_ADDR", ""), "serve Go's profiler (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060; empty: off (env KASSA_PPROF_ADDR)")
	fs.BoolVar(&f.dev, "dev", envBool("KASSA_DEV"), "seed a demo merchant and print its login and keys, the same keys at each start on one data dir (env KASSA_DEV)")
	fs.Float64Var(&f.limits.Rate, "rate-limit", envFloat("KASSA_RATE_LIMIT", d.Rate), "requests per second per API key (env KASSA_RATE_LIMIT)")
	fs.IntVar(&f.limits.Burst, "rate-burst", envInt("KASSA_RATE_BURST", d.Burst), "burst per API key (env KASSA_RATE_BURST)")
	fs.Float64Var(&f.limits.CreateRate, "create-rate-limit", envFloat("KASSA_CREATE_RATE_LIMIT", d.CreateRate), "invoice creates per second per API key (env KASSA_CREATE_RATE_LIMIT)")
	fs.IntVar(&f.limits.CreateBurst, "create-rate-burst", envInt("KASSA_CREATE_RATE_BURST", d.CreateBurst), "invoice create burst per API key (env KASSA_CREATE_RATE_BURST)")
	fs.StringVar(&f.rateStore, "rate-limit-store", envOr("KASSA_RATE_LIMIT_STORE", "auto"), "where rate budgets live: database (shared by every instance), memory (this instance's own), or auto: database on PostgreSQL, memory on SQLite (env KASSA_RATE_LIMIT_STORE)")
	fs.IntVar(&f.webhookWorkers, "webhook-workers", envInt("KASSA_WEBHOOK_WORKERS", webhook.DefaultWorkers), "concurrent webhook deliveries of this instance; 0 sends none (env KASSA_WEBHOOK_WORKERS)")
	fs.BoolVar(&f.webhookAllowPrivate, "webhook-allow-private", envBool(webhookAllowPrivateEnv), "let devnet webhook endpoints target loopback, private (RFC 1918, IPv6 ULA) and carrier-grade NAT addresses, plain http to loopback included; mainnet endpoints reach public addresses only whatever this flag, and link-local (cloud metadata), multicast and reserved addresses stay refused. Off by default; on with --dev unless given (env "+webhookAllowPrivateEnv+")")
	fs.StringVar(&f.retailerURL, "retailer-url", envOr("KASSA_RETAILER_URL", ""), "base URL of the upstream retailer API serving mainnet commerce; empty: no mainnet retailer (env KASSA_RETAILER_URL)")
	fs.StringVar(&f.retailerKey, "retailer-key", envOr("KASSA_RETAILER_KEY", ""), "API key of the upstream retailer (env KASSA_RETAILER_KEY)")
	fs.StringVar(&f.retailerName, "retailer-name", envOr("KASSA_RETAILER_NAME", commerce.DefaultRetailer), "which retailer the upstream API is (env KASSA_RETAILER_NAME)")
	proxies := fs.String("trusted-proxies", envOr("KASSA_TRUSTED_PROXIES", "loopback"), "reverse proxies trusted to name the client in X-Forwarded-For, for per-address limits: addresses and CIDR prefixes by comma, loopback (the default: a proxy on this host) or none (env KASSA_TRUSTED_PROXIES)")
	connsPerAddress := fs.String("max-conns-per-address", envOr("KASSA_MAX_CONNS_PER_ADDRESS", "auto"), "open connections one client address may hold (IPv6: one /64); more are closed at once: a number, 0 (no limit), or auto: 256, loopback clients (a local proxy) not counted (env KASSA_MAX_CONNS_PER_ADDRESS)")
	logLevel := fs.String("log-level", envOr("KASSA_LOG_LEVEL", "info"), "least level logged: debug, info, warn or error (env KASSA_LOG_LEVEL)")
	accessLog := fs.String("access-log", envOr("KASSA_ACCESS_LOG", "on"), "a line per request: on (at info), off, or the level to log them at (env KASSA_ACCESS_LOG)")
	fs.Var(&f.drain, "drain-delay", "on SIGTERM/SIGINT, how long /readyz answers 503 while requests are still served, before the graceful shutdown: a duration, or auto: 5s on PostgreSQL, 0 on SQLite; a second signal stops at once (env KASSA_DRAIN_DELAY)")
	if err := f.drain.Set(envOr("KASSA_DRAIN_DELAY", "auto")); err != nil {
		return nil, fmt.Errorf("KASSA_DRAIN_DELAY: %w", err)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.logLevel, err = httpx.ParseLevel(*logLevel); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	if f.access, err = httpx.ParseAccessLog(*accessLog); err != nil {
		return nil, fmt.Errorf("--access-log: %w", err)
	}
	if err := f.metrics.parse(); err != nil {
		return nil, err
	}
	if err := commerce.CheckRetailer("--retailer-name", f.retailerName); err != nil {
		return nil, err
	}
	if f.rateStore != "auto" && f.rateStore != "memory" && f.rateStore != "database" {
		return nil, fmt.Errorf("--rate-limit-store must be auto, memory or database")
	}
	if f.webhookWorkers < 0 {
		return nil, fmt.Errorf("--webhook-workers must be 0 or more")
	}
	if f.mmapMiB < 0 {
		return nil, fmt.Errorf("--sqlite-mmap-mib must be 0 or more")
	}
	if f.maxConnsPerAddress, err = parseConnCap(*connsPerAddress); err != nil {
		return nil, err
	}
	if f.trustedProxies, err = parseTrustedProxies(*proxies); err != nil {
		return nil, err
	}
	if f.dev && !given(fs, "webhook-allow-private", webhookAllowPrivateEnv) {
		f.webhookAllowPrivate = true // the demo's receivers run on the same machine
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return f, nil
}

// webhookAllowPrivateEnv is --webhook-allow-private's environment twin.
const webhookAllowPrivateEnv = "KASSA_WEBHOOK_ALLOW_PRIVATE"

// webhookTargets is where this instance's webhooks may go, for the endpoints
// service's url checks and the delivery worker.
func (f *serveFlags) webhookTargets() delivery.Targets {
	return delivery.Targets{AllowPrivate: f.webhookAllowPrivate}
}

// given reports whether the flag name was set on the command line or its
// environment twin env is set.
func given(fs *flag.FlagSet, name, env string) bool {
	_, set := os.LookupEnv(env)
	fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// parseTrustedProxies reads --trusted-proxies: "loopback" is httpx.DefaultProxies,
// and may stand in a list beside addresses and prefixes.
func parseTrustedProxies(v string) (httpx.Proxies, error) {
	var out httpx.Proxies
	var rest []string
	for _, part := range strings.Split(v, ",") {
		if strings.TrimSpace(part) == "loopback" {
			out = append(out, httpx.DefaultProxies...)
			continue
		}
		rest = append(rest, part)
	}
	more, err := httpx.ParseProxies(strings.Join(rest, ","))
	if err != nil {
		return nil, fmt.Errorf("--trusted-proxies: %w", err)
	}
	return append(out, more...), nil
}
