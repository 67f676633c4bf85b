package eventstream

import (
	"bufio"
	"encoding/binary"
	"net"
	"net/http"

	"github.com/kassapay/kassa"
)

// maxFrameHeader is the longest header of an unmasked frame.
const maxFrameHeader = 10

// eventFrames renders events as WebSocket text frames, one per event, back to
// back. Frames from a server are not masked (RFC 6455 5.1) and streams do not
// compress, so every client of a stream gets these very bytes.
func eventFrames(events []*kassa.Event) ([]byte, error) {
	n := 0
	for _, e := range events {
		b, err := e.Encode()
		if err != nil {
			return nil, err
		}
		n += maxFrameHeader + len(b)
	}
	out := make([]byte, 0, n)
	for _, e := range events {
		b, _ := e.Encode()
		out = appendTextFrame(out, b)
	}
	return out, nil
}

// appendTextFrame appends one final, unmasked text frame holding payload.
func appendTextFrame(dst, payload []byte) []byte {
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

// hijackWriter hands websocket.Accept the connection wrapped in a sinkConn, and
// the sink the connection itself.
type hijackWriter struct {
	http.ResponseWriter
	sink *wsSink
}

// Hijack implements http.Hijacker.
func (w hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.sink.attach(conn)
	c := &sinkConn{Conn: conn, s: w.sink}
	// The handshake's answer is on the wire already (Hijack flushes it).
	return c, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(c, 4096)), nil
}

// subscribe follows p's events with sink: the stream pushes to it when it is a
// kassa.PushStream; otherwise a goroutine reads a channel subscription and pushes.
func subscribe(st kassa.EventStream, p kassa.Principal, sink kassa.EventSink) (cancel func()) {
	if ps, ok := st.(kassa.PushStream); ok {
		return ps.SubscribeSink(p.MerchantID, p.Environment, p.Scope, sink)
	}
	sub := st.Subscribe(p.MerchantID, p.Environment, p.Scope)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range sub.Events() {
			if !sink.Push(&kassa.EventBatch{Events: []*kassa.Event{e}}, max(cap(sub.Events()), 1)) {
				sub.Close()
				sink.End(kassa.ErrSlowConsumer)
				return
			}
		}
		if err := sub.Err(); err != nil {
			sink.End(err)
		}
	}()
	return func() { sub.Close(); <-done }
}
