package main

import (
	"net"
	"sync"
	"time"
)

// stallChunk is how much of a response a client must take in within the stall
// limit to keep its connection: 16 KiB, so the slowest client kept reads about
// 1 KiB/s at the default limit, and a large answer costs a write call every
// 16 KiB (a few microseconds each).
const stallChunk = 16 << 10

// stallListener makes the write deadline of each accepted connection a
// progress deadline: a write that makes no progress for stall fails, however
// far the deadline the server set (its whole-response limit) is. A connection
// whose write deadline is cleared (a stream, httpx.Streaming) has no limit.
type stallListener struct {
	net.Listener
	stall time.Duration
}

// limitStalls wraps ln so that writes stall at most stall; 0 is ln itself.
func limitStalls(ln net.Listener, stall time.Duration) net.Listener {
	if stall <= 0 {
		return ln
	}
	return &stallListener{Listener: ln, stall: stall}
}

// Accept wraps the next connection.
func (l *stallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &stallConn{Conn: c, stall: l.stall}, nil
}

// stallConn writes in chunks of stallChunk, each within the stall limit and
// within the deadline the server set.
type stallConn struct {
	net.Conn
	stall time.Duration

	mu       sync.Mutex
	deadline time.Time // the write deadline the server set; zero: none
}

// SetDeadline sets the read deadline and the server's write deadline.
func (c *stallConn) SetDeadline(t time.Time) error {
	c.setWriteDeadline(t)
	return c.Conn.SetDeadline(t)
}

// SetWriteDeadline sets the server's write deadline.
func (c *stallConn) SetWriteDeadline(t time.Time) error {
	c.setWriteDeadline(t)
	return c.Conn.SetWriteDeadline(t)
}

func (c *stallConn) setWriteDeadline(t time.Time) {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
}

// Write writes b a chunk at a time, each chunk before the server's deadline and
// within the stall limit from its start; with no server deadline, at once.
func (c *stallConn) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		c.mu.Lock()
		deadline := c.deadline
		c.mu.Unlock()
		if deadline.IsZero() {
			n, err := c.Conn.Write(b)
			return written + n, err
		}
		if by := time.Now().Add(c.stall); by.Before(deadline) {
			deadline = by
		}
		if err := c.Conn.SetWriteDeadline(deadline); err != nil {
			return written, err
		}
		n, err := c.Conn.Write(b[:min(len(b), stallChunk)])
		written += n
		b = b[n:]
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// CloseWrite half-closes the connection when it can, as net/http does before
// closing one (so a client still sending gets the answer, not a reset).
func (c *stallConn) CloseWrite() error {
	return closeWrite(c.Conn)
}

// closeWrite half-closes c when it can.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
