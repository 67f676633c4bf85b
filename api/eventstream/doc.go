// Package eventstream serves Kassa's live event streams over WebSocket (docs/api.md
// 2.7): POST /api/v1/ws/token mints a short-lived token for the caller's scope, and
// GET /ws/merchant/events and /ws/commerce/events stream that scope's events, one
// JSON text frame each, optionally resuming after ?since=<event id>.
//
//   - ws.go: API, Config, New; token minting and stream addresses;
//   - streamauth.go: stream credentials (token or API key) and the rechecks of
//     the key behind an open stream, shared by the streams of one key;
//   - wsstream.go: the upgrade and the stream loop (replay, pings, expiry and
//     revocation, closing);
//   - wssink.go: the socket as the hub's fan-out sees it (a stream.EventSink):
//     live events are written from the fan-out with one non-blocking write of
//     frames every client shares, and what the socket does not take waits for
//     the stream's goroutine; the hijack that routes the WebSocket library's own
//     frames through the sink, and subscribing.
//
// The frames and the non-blocking write are package internal/wsframe's.
package eventstream
