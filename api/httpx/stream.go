package httpx

import (
	"errors"
	"net/http"
	"time"
)

// StreamWriteTimeout bounds each write of a long-lived stream: a client that stops
// reading is cut off after it, while one that reads keeps the stream for as long as
// the stream lasts.
const StreamWriteTimeout = 15 * time.Second

// Streaming exempts a long-lived response (Server-Sent Events, a WebSocket before
// its upgrade) from the server's whole-request read and whole-response write
// limits, which would otherwise cut it: it clears both deadlines of the
// connection. It returns the response's controller.
func Streaming(w http.ResponseWriter) *http.ResponseController {
	rc := http.NewResponseController(w)
	// ErrNotSupported (a recorder in a test) means there is no deadline to lift.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	return rc
}

// StreamWrite writes b to a stream Streaming exempted and flushes it, within
// StreamWriteTimeout.
func StreamWrite(w http.ResponseWriter, rc *http.ResponseController, b []byte) error {
	if err := rc.SetWriteDeadline(time.Now().Add(StreamWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	return rc.Flush()
}
