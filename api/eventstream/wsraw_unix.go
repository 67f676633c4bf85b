//go:build unix

package eventstream

import (
	"net"
	"syscall"
)

// rawConn writes to a connection's socket without blocking: what the socket
// buffer takes at once, no more. Its fields are guarded by the sink's mutex.
type rawConn struct {
	rc  syscall.RawConn
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool // try, bound once: no allocation per write
}

// newRawConn returns c's non-blocking writer, or nil when c has no socket.
func newRawConn(c net.Conn) *rawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &rawConn{rc: rc}
	r.fn = r.try
	return r
}

func (r *rawConn) try(fd uintptr) bool {
	for {
		r.n, r.err = syscall.Write(int(fd), r.b)
		if r.err != syscall.EINTR {
			return true // never wait for the socket to become writable
		}
	}
}

// write writes what of b the socket takes now: n < len(b) with a nil error when
// its buffer is full.
func (r *rawConn) write(b []byte) (int, error) {
	r.b = b
	err := r.rc.Write(r.fn)
	n := max(r.n, 0)
	if err == nil && r.err != syscall.EAGAIN {
		err = r.err
	}
	r.b, r.n, r.err = nil, 0, nil
	return n, err
}
