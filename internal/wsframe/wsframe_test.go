package wsframe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// sizes are payload lengths at and around the header's three forms.
var sizes = []int{0, 1, 125, 126, 127, 1700, 65535, 65536, 70000}

// payload returns n bytes of text.
func payload(n int) []byte { return bytes.Repeat([]byte("a"), n) }

// hijacked hands websocket.Accept the connection and keeps it for the test.
type hijacked struct {
	http.ResponseWriter
	conn chan<- net.Conn
}

func (h hijacked) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err == nil {
		h.conn <- c
	}
	return c, brw, err
}

// server starts a WebSocket server whose handler runs serve with the library's
// connection and the hijacked socket beneath it.
func server(t *testing.T, serve func(c *websocket.Conn, raw net.Conn)) string {
	t.Helper()
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		conns := make(chan net.Conn, 1)
		c, err := websocket.Accept(hijacked{w, conns}, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			t.Error(err)
			return
		}
		defer c.CloseNow()
		serve(c, <-conns)
	}))
	t.Cleanup(func() { srv.Close(); wg.Wait() })
	return srv.URL
}

// TestSameBytesAsLibrary: for every size, AppendText's frame is the frame the
// library writes for the same text message.
func TestSameBytesAsLibrary(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			msg := payload(n)
			url := server(t, func(c *websocket.Conn, _ net.Conn) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
					t.Error(err)
				}
			})
			got := libraryFrame(t, url, len(AppendText(nil, msg)))
			if want := AppendText(nil, msg); !bytes.Equal(got, want) {
				t.Errorf("library frame %x…, AppendText %x…", got[:min(len(got), 12)], want[:min(len(want), 12)])
			}
		})
	}
}

// libraryFrame performs a handshake by hand and returns the first n bytes the
// server sends after it.
func libraryFrame(t *testing.T, url string, n int) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n", base64.StdEncoding.EncodeToString(key))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(br, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLibraryReadsWriter: the library's client reads, message by message, the
// frames Writer writes to the socket beneath a library connection.
func TestLibraryReadsWriter(t *testing.T) {
	var all []byte
	for _, n := range sizes {
		all = AppendText(all, payload(n))
	}
	url := server(t, func(c *websocket.Conn, raw net.Conn) {
		w := NewWriter(raw)
		if w == nil {
			t.Error("no non-blocking writer on a TCP connection")
			return
		}
		for rest := all; len(rest) > 0; {
			n, err := w.Write(rest)
			if err != nil {
				t.Error(err)
				return
			}
			rest = rest[n:]
			if len(rest) > 0 {
				time.Sleep(time.Millisecond) // the socket is full: let the client read
			}
		}
		c.Read(context.Background()) // until the client closes
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	for _, n := range sizes {
		typ, got, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("message of %d bytes: %v", n, err)
		}
		if typ != websocket.MessageText || !bytes.Equal(got, payload(n)) {
			t.Errorf("message of %d bytes: got %v of %d bytes", n, typ, len(got))
		}
	}
	c.Close(websocket.StatusNormalClosure, "")
}

// TestWriterDoesNotBlock: a socket whose peer does not read takes what fits and
// Write returns the rest unwritten, without an error.
func TestWriterDoesNotBlock(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	w := NewWriter(server)
	big := make([]byte, 64<<20)
	n, err := w.Write(big)
	if err != nil || n <= 0 || n >= len(big) {
		t.Fatalf("wrote %d of %d bytes (%v), want part of them at once", n, len(big), err)
	}
	// The kernel may grow its buffers while the peer does not read (receive
	// autotuning), so a later write can still take some bytes; it never takes
	// them all, never waits, and the socket fills.
	for i := 0; ; i++ {
		n, err := w.Write(big)
		if err != nil || n >= len(big) {
			t.Fatalf("write %d took %d of %d bytes (%v), want part of them or none", i, n, len(big), err)
		}
		if n == 0 {
			return
		}
		if i == 1000 {
			t.Fatal("the socket never filled")
		}
	}
}
