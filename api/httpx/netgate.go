package httpx

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Networks is a list of IP networks, such as those allowed to read /metrics.
type Networks []netip.Prefix

// LoopbackNetworks is 127.0.0.0/8 and ::1/128: clients on the same machine.
var LoopbackNetworks = Networks{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// ParseNetworks reads a comma-separated list of CIDR prefixes ("10.0.0.0/8") or
// single addresses ("192.0.2.7", which is "192.0.2.7/32"). An empty list is an
// error: a list that lets nobody in is a mistake, not a setting.
func ParseNetworks(s string) (Networks, error) {
	var out Networks
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			a, aerr := netip.ParseAddr(part)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is neither a CIDR prefix nor an IP address", part)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		out = append(out, p.Masked())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no network given")
	}
	return out, nil
}

// String lists the networks as ParseNetworks reads them.
func (n Networks) String() string {
	parts := make([]string, len(n))
	for i, p := range n {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

// Contains reports whether a is in one of the networks. An IPv4 address mapped
// into IPv6 (a dual-stack listener's "::ffff:127.0.0.1") is taken as the IPv4
// address, and a link-local zone is ignored.
func (n Networks) Contains(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	for _, p := range n {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardingHeaders are set by reverse proxies and CDNs: a request carrying one
// came through a proxy on behalf of some other client. Besides the standard ones
// the list has the client-IP headers of CDNs and load balancers (Cloudflare's
// CF-Connecting-IP, Akamai's and Cloudflare's True-Client-IP, Fastly's, and the
// generic X-Client-IP, X-Cluster-Client-IP and Client-IP). Via and the
// X-Forwarded-Proto/Host pair are in it because some proxies set only those (and
// open-source nginx sets none by default: docs/operations.md tells its users to
// keep /metrics out of the proxy, or to serve it on --metrics-addr).
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip", "Via", "X-Forwarded-Proto", "X-Forwarded-Host",
	"Cf-Connecting-Ip", "True-Client-Ip", "X-Client-Ip", "Fastly-Client-Ip", "X-Cluster-Client-Ip", "Client-Ip"}

// OnlyFrom serves h to clients whose TCP peer address (r.RemoteAddr) is in nets
// and whose request did not come through a reverse proxy (no Forwarded,
// X-Forwarded-For, X-Real-IP or other client-IP header); every other client gets NotFound, the
// answer of an unknown URL, so the route's existence is not revealed. The peer
// address is used, never a forwarding header: those are written by the client
// unless a trusted proxy rewrites them, and anyone could claim 127.0.0.1. A
// proxy on the same machine makes every client's peer address loopback, which is
// why a proxied request is refused whatever its peer.
//
// Register it for every method: the gate answers first, so a refused client gets
// the 404 for any method, and only an allowed one learns that a method other
// than GET or HEAD is 405.
func OnlyFrom(nets Networks, h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !allowedPeer(nets, r) {
			NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteErrorStatus(w, r, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed",
				"Method "+r.Method+" is not allowed on "+r.URL.Path+".")
			return
		}
		h.ServeHTTP(w, r)
	}
}

// allowedPeer reports whether r comes straight from an address in nets.
func allowedPeer(nets Networks, r *http.Request) bool {
	for _, h := range forwardingHeaders {
		if len(r.Header.Values(h)) > 0 {
			return false
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && nets.Contains(a)
}
