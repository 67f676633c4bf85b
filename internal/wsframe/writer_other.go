//go:build !unix

package wsframe

import "net"

// Writer would write without blocking; on this system NewWriter returns nil and
// every frame goes through the stream's own blocking writes.
type Writer struct{}

// NewWriter returns nil: no non-blocking writes on this system.
func NewWriter(net.Conn) *Writer { return nil }

// Write is never called on this system.
func (*Writer) Write(b []byte) (int, error) { return 0, nil }
