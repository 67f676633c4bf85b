package main

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// stallLimits keep the spec's whole-response write limit and shorten the stall
// limit: a client is cut for not reading long before the write limit, and one
// that reads slowly keeps its answer for longer than the stall limit.
var stallLimits = httpLimits{Header: 10 * time.Second, Request: 60 * time.Second, Write: 60 * time.Second,
	Stall: 2 * time.Second, Idle: 120 * time.Second}

// answerSize is the answer of the stall test: far more than the kernel's
// buffers hold, with a 4 KiB receive window at the client and a 16 KiB send
// buffer at the server (smallSendBuffers; on loopback the kernel would otherwise
// let it grow to megabytes and take the whole answer at once).
const answerSize = 2 << 20

// TestWriteStallLimit runs the server as serve does (serverListener) with real
// HTTP on loopback: a client that asks for a large answer and reads nothing is
// cut after the stall limit, long before the write limit; a client that reads it
// slowly, taking longer in total than the stall limit, gets all of it.
func TestWriteStallLimit(t *testing.T) {
	for _, tt := range []struct {
		name     string
		read     func(*bufio.Reader) (int64, error) // the client; nil reads nothing
		wantCut  bool
		waitUpTo time.Duration
	}{
		{name: "reads nothing", wantCut: true, waitUpTo: stallLimits.Write / 2},
		{name: "reads slowly", read: readSlowly, waitUpTo: stallLimits.Write},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base, wrote := stallServer(t)
			c, err := slowReaderDialer("127.0.0.1").Dial("tcp", base)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, "GET /big HTTP/1.1\r\nHost: kassa\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			got := make(chan error, 1)
			if tt.read != nil {
				go func() {
					br := bufio.NewReader(c)
					n, err := tt.read(br)
					if err == nil && n != answerSize {
						err = io.ErrUnexpectedEOF
					}
					got <- err
				}()
			}
			select {
			case err := <-wrote:
				if cut := err != nil; cut != tt.wantCut {
					t.Fatalf("the handler's write: %v; want cut %v", err, tt.wantCut)
				}
			case <-time.After(tt.waitUpTo):
				t.Fatalf("the handler is still writing after %v (stall limit %v, write limit %v)",
					tt.waitUpTo, stallLimits.Stall, stallLimits.Write)
			}
			if tt.read != nil {
				if err := <-got; err != nil {
					t.Fatalf("the slow reader: %v", err)
				}
			}
		})
	}
}

// stallServer serves an answer of answerSize bytes under stallLimits and
// returns its address and the outcome of the handler's write.
func stallServer(t *testing.T) (string, chan error) {
	t.Helper()
	wrote := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(answerSize))
		_, err := w.Write(make([]byte, answerSize))
		if err == nil {
			err = http.NewResponseController(w).Flush()
		}
		wrote <- err
	}), stallLimits, log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(serverListener(smallSendBuffers{ln}, stallLimits, connCap{}, log))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), wrote
}

// readSlowly reads an answer's headers, then its body 4 KiB every 10 ms: about
// 400 KiB/s, so the 2 MiB answer takes some 5 s, more than twice the stall limit.
func readSlowly(br *bufio.Reader) (int64, error) {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var n int64
	buf := make([]byte, 4096)
	for {
		k, err := resp.Body.Read(buf)
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// smallSendBuffers gives each accepted connection a 16 KiB send buffer.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetWriteBuffer(16 << 10)
	}
	return c, err
}
