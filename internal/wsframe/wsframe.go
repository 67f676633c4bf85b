// Package wsframe renders WebSocket text frames by hand and writes them to a
// socket without blocking, so that the hub's fan-out can write one event to
// thousands of streams itself, the same bytes for every stream, without waking a
// goroutine per stream.
//
// Why not github.com/coder/websocket, which serves the streams' handshakes and
// control frames: its Conn.Write blocks until the socket took the whole message
// (so it needs a goroutine per stream, woken for every event) and renders the
// frame again for every connection. Measured side by side end to end
// (scripts/bench-events.sh --ws-only, alternating rounds; docs/performance.md,
// "Fast paths"), writing every event through the library cost the server more
// CPU per frame and a higher p99 than these writes.
//
// A frame from AppendText is byte for byte the frame the library writes for the
// same text message with compression off (the package's tests check it, and that
// the library's client reads what Writer writes).
package wsframe

import "encoding/binary"

// MaxHeader is the longest header of an unmasked frame.
const MaxHeader = 10

// AppendText appends one final, unmasked text frame holding payload to dst.
// Frames from a server are not masked (RFC 6455 5.1).
func AppendText(dst, payload []byte) []byte {
	const finText = 0x81
	switch n := len(payload); {
	case n < 126:
		dst = append(dst, finText, byte(n))
	case n <= 0xffff:
		dst = append(dst, finText, 126)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, finText, 127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	return append(dst, payload...)
}
