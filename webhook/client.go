package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
)

// clientOptions are the knobs of newClient; tests shorten the timeouts, trust a
// test certificate and answer names with a DNS server of their own.
type clientOptions struct {
	dialTimeout time.Duration // connecting, TLS handshake included
	timeout     time.Duration // the whole request
	rootCAs     *x509.CertPool
	resolver    *net.Resolver // nil: the system's
}

// newClient returns the HTTP client that delivers env's webhooks. It connects only
// to addresses targets allows in env (delivery.Targets.Refuse), checked on the
// resolved IP at every dial, so a name that resolves (or rebinds) to an internal
// address is refused; a mainnet client refuses every non-public address whatever
// the operator's flag. Connecting and the TLS handshake must finish within
// o.dialTimeout (the worker: kassa.WebhookDialTimeout) and the whole request within
// o.timeout (kassa.WebhookTimeout). Redirects are not followed, so a 3xx is a
// failed attempt (and a redirect cannot lead past the guard), and no proxy from the
// environment is used.
func newClient(targets delivery.Targets, env kassa.Environment, o clientOptions) *http.Client {
	g := &guard{targets: targets, env: env, rootCAs: o.rootCAs, timeout: o.dialTimeout}
	g.dialer = &net.Dialer{Timeout: o.dialTimeout, KeepAlive: 30 * time.Second, Control: g.control, Resolver: o.resolver}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            g.dialer.DialContext,
			DialTLSContext:         g.dialTLS,
			MaxIdleConns:           64,
			MaxIdleConnsPerHost:    4,
			IdleConnTimeout:        90 * time.Second,
			ResponseHeaderTimeout:  o.timeout,
			MaxResponseHeaderBytes: 64 << 10,
		},
		Timeout: o.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// guard dials for one environment and refuses the addresses its targets do not
// allow there.
type guard struct {
	targets delivery.Targets
	env     kassa.Environment
	dialer  *net.Dialer
	rootCAs *x509.CertPool
	timeout time.Duration
}

// refusedError is the guard's refusal of an address. Its text, which the delivery
// log shows the merchant, names the class of the address but not the address, so
// the log does not tell what internal names resolve to.
type refusedError struct{ class string }

func (e *refusedError) Error() string {
	return "address is not allowed (" + e.class + "): webhooks reach public addresses only"
}

// control runs after DNS resolution and before the connection is attempted, so a
// refused address never sees a packet.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("network %s is not allowed", network)
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("address %s is not allowed (unparsable)", address)
	}
	host, _, _ = strings.Cut(host, "%") // an IPv6 zone
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("address %s is not allowed (unparsable)", address)
	}
	if class := g.targets.Refuse(ip, g.env); class != "" {
		return &refusedError{class}
	}
	return nil
}

// dialTLS connects and completes the TLS handshake within one dial timeout. Only
// HTTP/1.1 is offered: a webhook is one request.
func (g *guard) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	raw, err := g.dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	conn := tls.Client(raw, &tls.Config{
		ServerName: host,
		RootCAs:    g.rootCAs,
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
	})
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return conn, nil
}

// public reports whether a delivery's connection went to a public address, whose
// answer the delivery log may keep. An answer from anywhere else (loopback or a
// private network, reached because the operator allows it) is the host's or its
// network's, and the merchant reads the log: it keeps no body of it. An address
// that cannot be read counts as not public.
func public(remote net.Addr) bool {
	if remote == nil {
		return false
	}
	ap, err := netip.ParseAddrPort(remote.String())
	return err == nil && delivery.PublicIP(net.IP(ap.Addr().Unmap().AsSlice()))
}
