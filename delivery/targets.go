package delivery

import (
	"github.com/kassapay/kassa"

	"net"
	"net/url"
	"strings"
)

// Targets is the operator's rule on where webhooks may go, the one place
// that decides it. By default only public addresses: a merchant's endpoint must not
// reach the host Kassa runs on or its network. AllowPrivate (serve
// --webhook-allow-private, turned on by --dev) also lets devnet endpoints reach
// loopback, private (RFC 1918, IPv6 ULA) and carrier-grade NAT addresses; mainnet
// ones reach public addresses only, whatever the flag. Link-local addresses (the
// cloud metadata service), unspecified, multicast and reserved ones are never
// reached. The environment is part of the rule: the sender applies Refuse, for the
// delivery's environment, to every address it dials, after resolution; endpoint
// create and update apply ValidateURL, which checks hosts that are IP literals or
// localhost.
type Targets struct {
	// AllowPrivate lets devnet webhooks reach loopback, private and carrier-grade
	// NAT addresses, and devnet endpoints use plain http to loopback. It does
	// nothing for mainnet.
	AllowPrivate bool
}

// PrivateAllowed reports whether env's webhooks may reach loopback, private and
// carrier-grade NAT addresses: on devnet, when the operator allows it; never on
// mainnet (nor on an unknown environment).
func (t Targets) PrivateAllowed(env kassa.Environment) bool {
	return t.AllowPrivate && env == kassa.Devnet
}

// Address classes, as AddressClass names them; AddressPublic is "".
const (
	AddressPublic      = ""
	AddressLoopback    = "loopback"
	AddressPrivate     = "private"
	AddressCGNAT       = "carrier-grade NAT"
	AddressLinkLocal   = "link-local"
	AddressUnspecified = "unspecified"
	AddressMulticast   = "multicast"
	AddressReserved    = "reserved"
)

// Refuse returns the class of ip when env's webhooks may not reach it, "" when
// they may.
func (t Targets) Refuse(ip net.IP, env kassa.Environment) string {
	switch c := AddressClass(ip); c {
	case AddressLoopback, AddressPrivate, AddressCGNAT:
		if t.PrivateAllowed(env) {
			return ""
		}
		return c
	default:
		return c
	}
}

// AddressClass names the kind of ip: AddressPublic ("") for a globally routable
// unicast address, else loopback, private (RFC 1918, IPv6 ULA fc00::/7 and the old
// site-local fec0::/10), carrier-grade NAT (100.64.0.0/10), link-local
// (169.254.0.0/16, fe80::/10, link-local multicast), unspecified, multicast or
// reserved (0.0.0.0/8, 240.0.0.0/4, IPv4-compatible ::/96, an address of no known
// length). An IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address has
// the class of the IPv4 address inside it.
func AddressClass(ip net.IP) string {
	if len(ip) == net.IPv6len && ip.To4() == nil {
		switch {
		case ip[0] == 0 && ip[1] == 0x64 && ip[2] == 0xff && ip[3] == 0x9b && allZero(ip[4:12]):
			return AddressClass(net.IP(ip[12:16]))
		case ip[0] == 0x20 && ip[1] == 0x02:
			return AddressClass(net.IP(ip[2:6]))
		}
	}
	v4 := ip.To4()
	switch {
	case len(ip) != net.IPv4len && len(ip) != net.IPv6len:
		return AddressReserved
	case ip.IsUnspecified():
		return AddressUnspecified
	case ip.IsLoopback():
		return AddressLoopback
	case v4 != nil && (v4[0] == 0 || v4[0] >= 240):
		return AddressReserved
	case v4 != nil && v4[0] == 100 && v4[1]&0xc0 == 64:
		return AddressCGNAT
	case ip.IsPrivate(), v4 == nil && ip[0] == 0xfe && ip[1]&0xc0 == 0xc0:
		return AddressPrivate
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return AddressLinkLocal
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return AddressMulticast
	case v4 == nil && allZero(ip[:12]):
		return AddressReserved // IPv4-compatible (deprecated)
	}
	return AddressPublic
}

// PublicIP reports whether ip is a globally routable unicast address
// (AddressClass is AddressPublic).
func PublicIP(ip net.IP) bool { return AddressClass(ip) == AddressPublic }

// ValidateURL checks a webhook URL for an endpoint in env: absolute, at most
// MaxWebhookURLLength bytes, no fragment, https (plain http only to a loopback
// host on devnet, and only when private targets are allowed). A host that is an
// IP literal, or localhost, must be one Refuse allows in env (code
// private_url_not_allowed); a name is checked again, resolved, on every delivery.
func (t Targets) ValidateURL(raw string, env kassa.Environment) error {
	bad := func(format string, args ...any) error {
		return kassa.Invalidf("url", "invalid_url", format, args...)
	}
	if len(raw) > kassa.MaxWebhookURLLength {
		return bad("url must be at most %d characters.", kassa.MaxWebhookURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return bad("url must be an absolute https URL.")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return bad("url must not have a fragment.")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	ip := hostIP(host)
	if ip == nil && numericHost(host) {
		return bad("url's host must be a name or an IP address in standard form.")
	}
	if refused := t.Refuse(ip, env); ip != nil && refused != "" {
		return kassa.Invalidf("url", "private_url_not_allowed",
			"url points at a %s address; webhooks go to public addresses only%s.", refused, allowHint(refused, env))
	}
	if u.Scheme == "http" && !(IsLoopbackHost(host) && t.PrivateAllowed(env)) {
		return bad("url must use https (plain http only to loopback on devnet, where the operator allows private targets).")
	}
	return nil
}

// allowHint says what an operator can do about a refused class in env: on devnet,
// allow private targets; on mainnet nothing.
func allowHint(class string, env kassa.Environment) string {
	switch class {
	case AddressLoopback, AddressPrivate, AddressCGNAT:
		if env == kassa.Devnet {
			return " unless the operator allows private targets (devnet only)"
		}
		return " on mainnet"
	}
	return ""
}

// numericHost reports whether a host name's last label is a number (decimal, or
// hex after 0x): a non-standard IPv4 form such as 2130706433, 0x7f000001 or 127.1,
// which resolvers may read as an address. No top-level domain is numeric.
func numericHost(host string) bool {
	last := host[strings.LastIndex(host, ".")+1:]
	digits := "0123456789"
	if rest, ok := strings.CutPrefix(last, "0x"); ok {
		last, digits = rest, "0123456789abcdef"
	}
	return strings.Trim(last, digits) == ""
}

// hostIP is the address of an IP literal host (an IPv6 zone, "fe80::1%eth0",
// ignored), 127.0.0.1 for localhost names, nil for other names.
func hostIP(host string) net.IP {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return net.IPv4(127, 0, 0, 1)
	}
	addr, _, _ := strings.Cut(host, "%")
	return net.ParseIP(addr)
}

// IsLoopbackHost reports whether host is "localhost" (or a name under it) or a
// loopback IP address.
func IsLoopbackHost(host string) bool {
	ip := hostIP(strings.TrimSuffix(strings.ToLower(host), "."))
	return ip != nil && ip.IsLoopback()
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
