package wsframe

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// BenchmarkFanOut writes one text message of 1,700 bytes (an invoice.created
// event) to each of n loopback WebSocket connections whose clients read in their
// own goroutines: "frames" renders the frame once and writes it to every socket
// with Writer (what queues when a socket is full is written again, as the
// streams' own goroutines would), "library" calls the library's Conn.Write on
// every connection, as a goroutine per stream would.
func BenchmarkFanOut(b *testing.B) {
	msg := payload(1700)
	for _, n := range []int{100, 1000} {
		conns, raws := benchConns(b, n)
		b.Run(fmt.Sprintf("frames/clients=%d", n), func(b *testing.B) {
			ws := make([]*Writer, n)
			for i, r := range raws {
				ws[i] = NewWriter(r)
			}
			b.SetBytes(int64(n * len(msg)))
			for b.Loop() {
				frame := AppendText(make([]byte, 0, MaxHeader+len(msg)), msg)
				for _, w := range ws {
					for rest := frame; len(rest) > 0; {
						m, err := w.Write(rest)
						if err != nil {
							b.Fatal(err)
						}
						rest = rest[m:]
					}
				}
			}
		})
		b.Run(fmt.Sprintf("library/clients=%d", n), func(b *testing.B) {
			ctx := context.Background()
			b.SetBytes(int64(n * len(msg)))
			for b.Loop() {
				for _, c := range conns {
					if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// benchConns opens n WebSocket connections whose clients discard what they read,
// and returns the server ends: the library's and the sockets beneath them.
func benchConns(b *testing.B, n int) ([]*websocket.Conn, []net.Conn) {
	b.Helper()
	type pair struct {
		c   *websocket.Conn
		raw net.Conn
	}
	pairs := make(chan pair, n)
	done := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raws := make(chan net.Conn, 1)
		c, err := websocket.Accept(hijacked{w, raws}, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			return
		}
		pairs <- pair{c, <-raws}
		<-done
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() { close(done); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conns, raws := make([]*websocket.Conn, n), make([]net.Conn, n)
	for i := range n {
		cc, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String(), nil)
		if err != nil {
			b.Fatal(err)
		}
		cc.SetReadLimit(-1)
		go func() {
			for {
				_, r, err := cc.Reader(context.Background())
				if err != nil {
					return
				}
				io.Copy(io.Discard, r)
			}
		}()
		p := <-pairs
		conns[i], raws[i] = p.c, p.raw
	}
	return conns, raws
}
