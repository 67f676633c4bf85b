//go:build unix

package wsframe

import (
	"net"
	"syscall"
)

// Writer writes to a connection's socket without blocking: what the socket
// buffer takes at once, no more. It is not safe for concurrent use.
type Writer struct {
	rc  syscall.RawConn
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool // try, bound once: no allocation per write
}

// NewWriter returns c's non-blocking writer, or nil when c has no socket.
func NewWriter(c net.Conn) *Writer {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &Writer{rc: rc}
	w.fn = w.try
	return w
}

func (w *Writer) try(fd uintptr) bool {
	for {
		w.n, w.err = syscall.Write(int(fd), w.b)
		if w.err != syscall.EINTR {
			return true // never wait for the socket to become writable
		}
	}
}

// Write writes what of b the socket takes now: n < len(b) with a nil error when
// its buffer is full.
func (w *Writer) Write(b []byte) (int, error) {
	w.b = b
	err := w.rc.Write(w.fn)
	n := max(w.n, 0)
	if err == nil && w.err != syscall.EAGAIN {
		err = w.err
	}
	w.b, w.n, w.err = nil, 0, nil
	return n, err
}
