package main

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// capServer accepts from serve's listener with limit on host and,
// for each connection it is given, writes "k" and keeps it until the client
// closes it; closed receives one value each time it has closed one.
type capServer struct {
	addr   string
	closed chan struct{}
}

func startCapServer(t *testing.T, network, host string, limit connCap) capServer {
	t.Helper()
	ln, err := net.Listen(network, net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("no %s loopback: %v", network, err)
	}
	ln = serverListener(ln, httpLimits{}, limit, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { ln.Close() })
	s := capServer{addr: ln.Addr().String(), closed: make(chan struct{}, 100)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				c.Write([]byte("k"))
				io.Copy(io.Discard, c)
				c.Close()
				s.closed <- struct{}{}
			}()
		}
	}()
	return s
}

// dialFrom connects to s from the local address from and reports whether the
// server took the connection (it wrote "k") rather than closing it at once.
func (s capServer) dialFrom(t *testing.T, from string) (net.Conn, bool) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", s.addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(time.Minute))
	b := make([]byte, 1)
	_, err = io.ReadFull(c, b)
	return c, err == nil
}

// TestPerAddressCap: a client address holds at most the cap of connections; the
// next one is closed at once while other addresses are not affected, and a
// closed connection frees its place. Under auto, loopback clients (a local
// proxy) are not counted. Real TCP on loopback (127.0.0.0/8 and ::1).
func TestPerAddressCap(t *testing.T) {
	const limit = 3
	for _, tt := range []struct {
		name, network, host, from, other string
		skipLoopback                     bool
	}{
		{name: "IPv4", network: "tcp4", host: "127.0.0.1", from: "127.0.0.2", other: "127.0.0.3"},
		{name: "IPv6", network: "tcp6", host: "::1", from: "::1"},
		{name: "loopback under auto", network: "tcp4", host: "127.0.0.1", from: "127.0.0.2", skipLoopback: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startCapServer(t, tt.network, tt.host, connCap{max: limit, skipLoopback: tt.skipLoopback})
			var first net.Conn
			for i := range limit {
				c, ok := s.dialFrom(t, tt.from)
				if !ok {
					t.Fatalf("connection %d of %d from %s was closed", i+1, limit, tt.from)
				}
				if i == 0 {
					first = c
				}
			}
			if _, ok := s.dialFrom(t, tt.from); ok != tt.skipLoopback {
				t.Fatalf("connection %d from %s taken: %v; the cap is %d, loopback skipped: %v", limit+1, tt.from, ok, limit, tt.skipLoopback)
			}
			if tt.skipLoopback {
				return
			}
			if tt.other != "" {
				if _, ok := s.dialFrom(t, tt.other); !ok {
					t.Fatalf("a connection from %s was closed: %s's cap counted it", tt.other, tt.from)
				}
			}
			first.Close()
			<-s.closed
			if _, ok := s.dialFrom(t, tt.from); !ok {
				t.Fatalf("after one of its connections closed, %s still had no place", tt.from)
			}
		})
	}
}

// TestParseConnCap: --max-conns-per-address takes auto, 0 or a number.
func TestParseConnCap(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want connCap
		err  bool
	}{
		{in: "auto", want: connCap{max: 256, skipLoopback: true}},
		{in: "0", want: connCap{}},
		{in: "64", want: connCap{max: 64}},
		{in: "-1", err: true},
		{in: "many", err: true},
	} {
		got, err := parseConnCap(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("parseConnCap(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestAddressKey: IPv4 addresses count one by one (an IPv4-mapped IPv6 address
// as its IPv4 one), IPv6 addresses by their /64.
func TestAddressKey(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"::1", "::2"},
	} {
		if ka, kb := addressKey(&net.TCPAddr{IP: net.ParseIP(tt.a)}), addressKey(&net.TCPAddr{IP: net.ParseIP(tt.b)}); ka != kb {
			t.Errorf("%s counts as %s, %s as %s: want the same", tt.a, ka, tt.b, kb)
		}
	}
	for _, tt := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"192.0.2.7", "192.0.2.8"},
	} {
		if ka, kb := addressKey(&net.TCPAddr{IP: net.ParseIP(tt.a)}), addressKey(&net.TCPAddr{IP: net.ParseIP(tt.b)}); ka == kb {
			t.Errorf("%s and %s both count as %s: want apart", tt.a, tt.b, ka)
		}
	}
}
