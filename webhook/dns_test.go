package webhook

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// fakeDNS is a DNS server on loopback UDP that answers every A question with one
// address: names the tests make up resolve, over the wire, to where they say.
type fakeDNS struct {
	conn    net.PacketConn
	answer  atomic.Pointer[net.IP] // the A record's address
	queries atomic.Int32           // A questions answered
}

// newFakeDNS serves DNS on a loopback port until the test ends, answering ip.
func newFakeDNS(t *testing.T, ip string) *fakeDNS {
	t.Helper()
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDNS{conn: conn}
	d.set(ip)
	done := make(chan struct{})
	t.Cleanup(func() { conn.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 1500)
		for {
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply := d.reply(buf[:n]); reply != nil {
				_, _ = conn.WriteTo(reply, from)
			}
		}
	}()
	return d
}

// set changes the address the server answers.
func (d *fakeDNS) set(ip string) {
	a := net.ParseIP(ip).To4()
	d.answer.Store(&a)
}

// resolver resolves through the server only.
func (d *fakeDNS) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp4", d.conn.LocalAddr().String())
	}}
}

// reply answers a query of one question: its A record for type A, no records
// (NODATA) for any other type; nil for what is not a query.
func (d *fakeDNS) reply(q []byte) []byte {
	if len(q) < 12 || q[2]&0x80 != 0 || binary.BigEndian.Uint16(q[4:6]) != 1 {
		return nil
	}
	end := 12 // past the question's name, then its type and class
	for end < len(q) && q[end] != 0 {
		end += int(q[end]) + 1
	}
	end += 5
	if end > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[end-4 : end-2])
	out := append([]byte{}, q[:2]...)                     // id
	out = append(out, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0) // response, RD, RA; one question
	out = append(out, q[12:end]...)
	if qtype == 1 {
		d.queries.Add(1)
		out[7] = 1                                                // one answer
		out = append(out, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4) // the question's name, A, IN, TTL 0
		out = append(out, *d.answer.Load()...)
	}
	return out
}

// TestClientResolvesNameAtDial: a name is checked on the address it resolves to
// when the request is made, over a real DNS exchange. A name that resolves to
// loopback is refused without the flag (no packet reaches the server, and the
// error does not say the address), and delivered with it on devnet only: a
// mainnet client refuses it whatever the flag; a name that resolved to a public
// address and then to loopback (DNS rebinding) is refused at the dial after the
// change.
func TestClientResolvesNameAtDial(t *testing.T) {
	srv, hits := countingServer(t, false)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	dns := newFakeDNS(t, "127.0.0.1")
	url := "http://hooks.kassa.test" + port + "/hook"

	_, err := testClient(t, publicOnly, kassa.Devnet, nil, dns.resolver()).Post(url, "application/json", strings.NewReader("{}"))
	var refused *refusedError
	if !errors.As(err, &refused) || refused.class != "loopback" {
		t.Fatalf("error %v, want the guard's refusal (loopback)", err)
	}
	if msg := describe(err, 0); strings.Contains(msg, "127.0.0.1") || !strings.Contains(msg, "not allowed (loopback)") {
		t.Fatalf("delivery log error %q: want the class and not the address", msg)
	}
	if dns.queries.Load() == 0 || hits.Load() != 0 {
		t.Fatalf("%d DNS answers, %d requests: want the name resolved and nothing sent", dns.queries.Load(), hits.Load())
	}

	queried := dns.queries.Load()
	_, err = testClient(t, allowPrivate, kassa.Mainnet, nil, dns.resolver()).Post(url, "application/json", strings.NewReader("{}"))
	if !errors.As(err, &refused) || refused.class != "loopback" {
		t.Fatalf("mainnet with private targets allowed: error %v, want the guard's refusal (loopback)", err)
	}
	if dns.queries.Load() == queried || hits.Load() != 0 {
		t.Fatalf("mainnet: %d DNS answers, %d requests: want the name resolved and nothing sent", dns.queries.Load()-queried, hits.Load())
	}

	resp, err := testClient(t, allowPrivate, kassa.Devnet, nil, dns.resolver()).Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("with private targets allowed: %v", err)
	}
	resp.Body.Close()
	if hits.Load() != 1 {
		t.Fatalf("%d requests, want 1", hits.Load())
	}

	// Rebinding: the name first resolves to a public address (not listening: the
	// dial is let through and times out or is refused), then to loopback. The
	// client keeps no verdict on the name.
	c := testClient(t, publicOnly, kassa.Devnet, nil, dns.resolver())
	dns.set("192.0.2.1") // TEST-NET-1: public to the guard, routed nowhere
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	req, _ := newPost(ctx, url)
	if _, err := c.Do(req); errors.As(err, &refused) {
		t.Fatalf("public answer refused: %v", err)
	}
	dns.set("127.0.0.1")
	req, _ = newPost(t.Context(), url)
	if _, err := c.Do(req); !errors.As(err, &refused) {
		t.Fatalf("after rebinding to loopback: %v, want the guard's refusal", err)
	}
	if hits.Load() != 1 {
		t.Fatalf("%d requests, want 1", hits.Load())
	}
}

// newPost is a webhook-like POST of an empty object to url.
func newPost(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
}
