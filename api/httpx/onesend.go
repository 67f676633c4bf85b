package httpx

import (
	"context"
	"net"
	"net/http"
	"syscall"
)

// oneSendMin is the smallest body WriteRawOnce holds back for: net/http buffers 4
// KB of a response, headers included, so a smaller body leaves in one write
// anyway.
const oneSendMin = 3 << 10

type connKey struct{}

// ConnContext is an http.Server's ConnContext: it keeps each request's connection
// in its context, for WriteRawOnce.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// WriteRawOnce writes an encoded JSON body as WriteRaw does, and on a TCP
// connection (ConnContext) hands the kernel the whole response before it sends
// any of it. net/http writes a response larger than its 4 KB buffer in two
// system calls, and without Nagle's delay each becomes its own segment on the
// wire: on loopback two trips through TCP's receive path and two wake-ups of the
// reader. Corking the socket around the write makes it one (issue 17: a page of
// ten invoices is about 9 KB; performance.md "twelfth session").
func WriteRawOnce(ctx context.Context, w http.ResponseWriter, status int, body []byte) {
	c, ok := ctx.Value(connKey{}).(syscall.Conn)
	if !ok || len(body) < oneSendMin {
		WriteRaw(w, status, body)
		return
	}
	raw, err := c.SyscallConn()
	if err != nil || !setCork(raw, true) {
		WriteRaw(w, status, body)
		return
	}
	WriteRaw(w, status, body)
	_ = http.NewResponseController(w).Flush()
	setCork(raw, false)
}
