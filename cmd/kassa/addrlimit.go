package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/kassapay/kassa/api/httpx"
)

// defaultMaxConnsPerAddress is the cap of --max-conns-per-address auto: far
// above what one browser or merchant backend opens (a browser keeps 6 a host; a
// backend's pool is tens), far below what a slow-reader attack needs to hurt.
const defaultMaxConnsPerAddress = 256

// connCap is --max-conns-per-address: how many connections one client address
// may hold, and whether loopback clients count.
type connCap struct {
	max          int  // 0: no cap
	skipLoopback bool // loopback clients (a local proxy) are not counted
}

// parseConnCap reads --max-conns-per-address: auto is 256 for every client but
// a loopback one (a local reverse proxy is every client at once: capping it would
// cap the service; the proxy must cap its own clients); a number caps every
// client address, loopback included; 0 is no cap.
func parseConnCap(s string) (connCap, error) {
	if s == "auto" {
		return connCap{max: defaultMaxConnsPerAddress, skipLoopback: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return connCap{}, fmt.Errorf("--max-conns-per-address must be auto, 0 (no limit) or a number of connections, not %q", s)
	}
	return connCap{max: n}, nil
}

// perAddressListener caps the connections one client address holds at once: a
// connection over the cap is closed as soon as it is accepted, before the server
// reads a byte of it. IPv4 addresses count one by one, IPv6 ones by their /64
// (one host's usual allocation, in which it can pick any address).
type perAddressListener struct {
	net.Listener
	connCap
	log *slog.Logger

	mu      sync.Mutex
	open    map[string]int
	refused int       // since the last warning
	warned  time.Time // when the last warning was logged
}

// limitPerAddress wraps ln with the cap per client address; no cap is ln itself.
func limitPerAddress(ln net.Listener, limit connCap, log *slog.Logger) net.Listener {
	if limit.max <= 0 {
		return ln
	}
	return &perAddressListener{Listener: ln, connCap: limit, log: log, open: map[string]int{}}
}

// refusalWarnEvery is how often, at most, refused connections are logged: an
// attack does not flood the log.
const refusalWarnEvery = time.Minute

// Accept returns the next connection whose address is under the cap, closing
// the ones over it.
func (l *perAddressListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.skipLoopback && isLoopback(c.RemoteAddr()) {
			return c, nil
		}
		key := addressKey(c.RemoteAddr())
		if l.admit(key) {
			return &countedConn{Conn: c, release: sync.OnceFunc(func() { l.release(key) })}, nil
		}
		c.Close()
	}
}

// admit counts a connection of key, or reports false when key is at the cap.
func (l *perAddressListener) admit(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key] < l.max {
		l.open[key]++
		return true
	}
	l.refused++
	if now := time.Now(); now.Sub(l.warned) >= refusalWarnEvery {
		l.log.Warn("connections refused: the client address is at --max-conns-per-address",
			"address", key, "max", l.max, "refused", l.refused)
		l.warned, l.refused = now, 0
	}
	return false
}

// release uncounts a closed connection of key.
func (l *perAddressListener) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

// addressKey is what a connection from addr counts against: httpx.HostKey of
// its IP address (IPv4 by address, IPv6 by /64), the rule every per-address
// limit shares.
func addressKey(addr net.Addr) string {
	host := addr.String()
	if ta, ok := addr.(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(ta.IP); ok {
			return httpx.HostKey(ip.String())
		}
	} else if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return httpx.HostKey(host)
}

// isLoopback reports whether addr is a loopback address (127.0.0.0/8, ::1).
func isLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// countedConn is a connection perAddressListener counts until it is closed
// (by the server, or by whoever hijacked it).
type countedConn struct {
	net.Conn
	release func()
}

// Close closes the connection and uncounts it, once.
func (c *countedConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// CloseWrite half-closes the connection when it can (net/http's graceful close).
func (c *countedConn) CloseWrite() error {
	return closeWrite(c.Conn)
}
