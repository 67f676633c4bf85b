//go:build !unix

package eventstream

import "net"

// rawConn would write without blocking; on this system every event frame goes
// through the stream's goroutine instead.
type rawConn struct{}

func newRawConn(net.Conn) *rawConn { return nil }

func (*rawConn) write(b []byte) (int, error) { return 0, nil }
