package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"kassa"
)

// clientOptions are the knobs of newClient; tests shorten the timeouts and trust a
// test certificate.
type clientOptions struct {
	dialTimeout time.Duration // connecting, TLS handshake included
	timeout     time.Duration // the whole request
	rootCAs     *x509.CertPool
}

// NewClient returns the HTTP client that delivers env's webhooks. It connects only
// to addresses the dial guard allows, checked on the resolved IP at every dial so a
// name that resolves (or rebinds) to an internal address is refused: on mainnet only
// public addresses (kassa.PublicIP), on devnet also loopback. Connecting and the TLS
// handshake must finish within kassa.WebhookDialTimeout and the whole request within
// kassa.WebhookTimeout. Redirects are not followed, so a 3xx is a failed attempt,
// and no proxy from the environment is used.
func NewClient(env kassa.Environment) *http.Client {
	return newClient(env, clientOptions{dialTimeout: kassa.WebhookDialTimeout, timeout: kassa.WebhookTimeout})
}

func newClient(env kassa.Environment, o clientOptions) *http.Client {
	g := &guard{env: env, rootCAs: o.rootCAs, timeout: o.dialTimeout}
	g.dialer = &net.Dialer{Timeout: o.dialTimeout, KeepAlive: 30 * time.Second, Control: g.control}
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

// guard dials for one environment and refuses addresses it must not reach.
type guard struct {
	env     kassa.Environment
	dialer  *net.Dialer
	rootCAs *x509.CertPool
	timeout time.Duration
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
	if class := g.refuse(ip); class != "" {
		return fmt.Errorf("address %s is not allowed (%s)", ip, class)
	}
	return nil
}

// refuse returns why ip may not be dialled, or "" when it may: on devnet loopback
// and public addresses are allowed, on mainnet (and any other value) only public
// ones.
func (g *guard) refuse(ip net.IP) string {
	if kassa.PublicIP(ip) || (g.env == kassa.Devnet && ip.IsLoopback()) {
		return ""
	}
	return classify(ip)
}

// classify names the kind of a non-public address for error messages.
func classify(ip net.IP) string {
	v4 := ip.To4()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case v4 != nil && v4[0] == 100 && v4[1]&0xc0 == 64:
		return "carrier-grade NAT"
	default:
		return "reserved"
	}
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
