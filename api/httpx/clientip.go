package httpx

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the peers trusted to name the client in X-Forwarded-For: the
// reverse proxies in front of Kassa. Every per-address limit (sign-in, the payor
// API) keys the client they name, not the proxy: behind a proxy every request
// comes from the proxy's address, and one bucket for all clients would let one
// client's burst refuse everyone.
type Proxies Networks

// DefaultProxies trusts loopback only: a proxy on the same host, as
// docs/operations.md sets Kassa up. A proxy on another host is named with
// --trusted-proxies.
var DefaultProxies = Proxies(LoopbackNetworks)

// ParseProxies reads a comma-separated list of addresses and CIDR prefixes as
// ParseNetworks does; "none" (or empty) trusts no proxy.
func ParseProxies(v string) (Proxies, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "none" {
		return Proxies{}, nil
	}
	n, err := ParseNetworks(v)
	return Proxies(n), err
}

// trusts reports whether a is one of the proxies.
func (p Proxies) trusts(a netip.Addr) bool { return Networks(p).Contains(a) }

// ClientIP is the address of the request's client. It is the peer, unless the
// peer is a trusted proxy: then X-Forwarded-For is read from the right, skipping
// the trusted proxies' own hops, and the first address that is not one of them
// is the client, the one the nearest untrusted hop was seen from. Entries further
// left are the client's own claims and are never read; a header that does not
// parse leaves the peer.
func (p Proxies) ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !p.trusts(peer) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			if strings.TrimSpace(hops[i]) == "" && len(hops) == 1 {
				break // no header
			}
			return host
		}
		client = a
		if !p.trusts(a) {
			break
		}
	}
	return client.Unmap().WithZone("").String()
}
