package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/kassapay/kassa"
)

// slowKind is one kind of slow client: open connects and starts it; watch
// keeps it slow until the server closes it (true) or until the deadline (false).
type slowKind struct {
	name        string
	open        func() (net.Conn, func(net.Conn, time.Time) bool, error)
	closedAfter []time.Duration // per connection; 0: not closed by the server
	atCheck     bool            // the close is seen only when drained near the end
}

// closedByServer reads c for up to d and reports whether the server closed it
// (having answered or not) rather than the time running out.
func closedByServer(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return !isTimeout(err)
}

// slowReader asks for a 100-invoice list through a 4 KiB receive window and
// reads at most 4 KiB every 5 s. The server's close (its write limit, or its idle
// limit once the whole answer is in the kernel's buffers) queues behind the
// unread answer, so near the deadline the reader drains what is left: an EOF or
// a reset then means the server had closed the connection.
func slowReader(host, key string) func() (net.Conn, func(net.Conn, time.Time) bool, error) {
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
	}}
	req := "GET /api/v1/invoices?limit=100 HTTP/1.1\r\nHost: kassa\r\nX-Api-Key: " + key + "\r\n\r\n"
	return func() (net.Conn, func(net.Conn, time.Time) bool, error) {
		c, err := dialer.Dial("tcp", host)
		if err != nil {
			return nil, nil, err
		}
		if _, err := io.WriteString(c, req); err != nil {
			return nil, nil, err
		}
		return c, func(c net.Conn, deadline time.Time) bool {
			buf := make([]byte, 4096)
			for time.Until(deadline) > readerCheck {
				time.Sleep(5 * time.Second)
				c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
				if _, err := c.Read(buf); err != nil && !isTimeout(err) {
					return true
				}
			}
			return closedByServer(c, 3*time.Second)
		}, nil
	}
}

// readerCheck is how long before the end of slowWindow the slow readers drain.
const readerCheck = 10 * time.Second

// slowWriter sends a request whose body (body true: an invoice create with a
// 100,000-byte Content-Length) or headers come one piece every 2 s.
func slowWriter(host, key string, body bool) func() (net.Conn, func(net.Conn, time.Time) bool, error) {
	head, piece := "GET /healthz HTTP/1.1\r\nHost: kassa\r\n", "X-Slow: 1\r\n"
	if body {
		head = "POST /api/v1/invoices HTTP/1.1\r\nHost: kassa\r\nX-Api-Key: " + key +
			"\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nIdempotency-Key: %s\r\n\r\n{"
		piece = " "
	}
	return func() (net.Conn, func(net.Conn, time.Time) bool, error) {
		c, err := net.Dial("tcp", host)
		if err != nil {
			return nil, nil, err
		}
		if _, err := io.WriteString(c, strings.Replace(head, "%s", kassa.NewUUID(), 1)); err != nil {
			return nil, nil, err
		}
		return c, func(c net.Conn, deadline time.Time) bool {
			for time.Now().Before(deadline) {
				if closedByServer(c, 2*time.Second) {
					return true
				}
				if _, err := io.WriteString(c, piece); err != nil {
					return true
				}
			}
			return false
		}, nil
	}
}

// idleClient sends one request on a keep-alive connection, reads the answer
// and then waits in silence.
func idleClient(host string) func() (net.Conn, func(net.Conn, time.Time) bool, error) {
	return func() (net.Conn, func(net.Conn, time.Time) bool, error) {
		c, err := net.Dial("tcp", host)
		if err != nil {
			return nil, nil, err
		}
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: kassa\r\n\r\n"); err != nil {
			return nil, nil, err
		}
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("the first answer: %w", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return c, func(c net.Conn, deadline time.Time) bool {
			return closedByServer(c, time.Until(deadline))
		}, nil
	}
}
