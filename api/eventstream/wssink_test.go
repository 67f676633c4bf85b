package eventstream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t testing.TB) (server, client *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return s.(*net.TCPConn), c.(*net.TCPConn)
}

// testEvents returns n encoded events of about size bytes each.
func testEvents(t testing.TB, n, size int) []*kassa.Event {
	t.Helper()
	out := make([]*kassa.Event, n)
	for i := range out {
		out[i] = &kassa.Event{ID: fmt.Sprintf("evt_%d", i), MerchantID: 1, Environment: kassa.Devnet,
			Type: kassa.EventInvoiceCreated, Created: time.Unix(1e9, 0),
			Data: []byte(fmt.Sprintf(`{"id":"inv_%d","pad":"%s"}`, i, strings.Repeat("x", size)))}
		if _, err := out[i].Encode(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// runOwner stands in for the stream's goroutine: it drains the sink whenever it
// is handed the socket, until stop is closed.
func runOwner(s *wsSink, stop <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-s.kick:
				if !s.drainIfOwner() {
					return
				}
			}
		}
	}()
	return done
}

// frame is one WebSocket frame as read back by readFrames.
type frame struct {
	opcode  byte
	payload []byte
}

// readFrames reads n unmasked frames off r.
func readFrames(r io.Reader, n int) ([]frame, error) {
	br := bufio.NewReader(r)
	out := make([]frame, 0, n)
	for len(out) < n {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return out, fmt.Errorf("frame %d: %w", len(out), err)
		}
		if h[0]&0x80 == 0 || h[1]&0x80 != 0 {
			return out, fmt.Errorf("frame %d: header %x: not final, or masked", len(out), h)
		}
		size := uint64(h[1])
		var ext []byte
		switch size {
		case 126:
			ext = make([]byte, 2)
		case 127:
			ext = make([]byte, 8)
		}
		if ext != nil {
			if _, err := io.ReadFull(br, ext); err != nil {
				return out, err
			}
			size = 0
			for _, b := range ext {
				size = size<<8 | uint64(b)
			}
		}
		p := make([]byte, size)
		if _, err := io.ReadFull(br, p); err != nil {
			return out, fmt.Errorf("frame %d: %w", len(out), err)
		}
		out = append(out, frame{h[0] & 0x0f, p})
	}
	return out, nil
}

// mustReadFrames is readFrames for the test's goroutine.
func mustReadFrames(t *testing.T, r io.Reader, n int) []frame {
	t.Helper()
	got, err := readFrames(r, n)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSinkWholeFramesInOrder pushes far more than the socket buffers hold, while
// the WebSocket library's own frames go through the same socket: the fan-out's
// writes fall short, the rest queues for the owner, and the client reads every
// event, once, in order, and every control frame, none inside another frame.
func TestSinkWholeFramesInOrder(t *testing.T) {
	server, client := tcpPair(t)
	server.SetWriteBuffer(64 << 10) // small, so that the writes fall short
	s := newWSSink(nil)
	s.attach(server)
	if !s.drain() { // the stream goes live
		t.Fatal("drain failed")
	}
	stop := make(chan struct{})
	done := runOwner(s, stop)
	defer func() { close(stop); <-done }()

	events := testEvents(t, 300, 3000)
	const pings = 50
	type result struct {
		frames []frame
		err    error
	}
	read := make(chan result, 1)
	go func() {
		f, err := readFrames(client, len(events)+pings)
		read <- result{f, err}
	}()
	lib := &sinkConn{Conn: server, s: s}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range pings {
			ping := []byte{0x89, 3, 'p', byte('0' + i/10), byte('0' + i%10)}
			if _, err := lib.Write(ping); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for i := 0; i < len(events); {
		n := min(1+i%3, len(events)-i) // batches of 1 to 3
		if !s.Push(&kassa.EventBatch{Events: events[i : i+n]}, 1<<20) {
			t.Fatal("push refused")
		}
		i += n
	}
	wg.Wait()
	s.mu.Lock()
	queued := len(s.queue)
	s.mu.Unlock()
	t.Logf("%d pieces queued when the pushes were done", queued)

	res := <-read
	if res.err != nil {
		t.Fatal(res.err)
	}
	var texts [][]byte
	nping := 0
	for _, f := range res.frames {
		switch f.opcode {
		case 0x1:
			texts = append(texts, f.payload)
		case 0x9:
			if want := fmt.Sprintf("p%02d", nping); string(f.payload) != want {
				t.Fatalf("ping %q, want %q", f.payload, want)
			}
			nping++
		default:
			t.Fatalf("frame opcode %x", f.opcode)
		}
	}
	for i, e := range events {
		want, _ := e.Encode()
		if !bytes.Equal(texts[i], want) {
			t.Fatalf("event frame %d is not event %s", i, e.ID)
		}
	}
}

// TestSinkBufferAndReplay: a sink queues live events while its stream owns the
// socket, refuses a batch that would take it past the buffer, and after a replay
// drops the live events the replay covered.
func TestSinkBufferAndReplay(t *testing.T) {
	server, client := tcpPair(t)
	s := newWSSink(nil)
	s.attach(server)
	events := testEvents(t, 6, 10)
	for i, e := range events {
		e.Pos = kassa.FeedPos{Seq: int64(i + 1)}
	}
	batch := func(es ...*kassa.Event) *kassa.EventBatch { return &kassa.EventBatch{Events: es} }
	if !s.Push(batch(events[0], events[1]), 3) || !s.Push(batch(events[2]), 3) {
		t.Fatal("a push within the buffer was refused")
	}
	if s.Push(batch(events[3]), 3) {
		t.Fatal("a push past the buffer was taken")
	}
	// The replay (written by the owner) went up to event 1; events 0 and 1 came
	// live too and are dropped.
	frames, _ := eventFrames(events[:2])
	if s.writeOwned(frames) != nil {
		t.Fatal("replay write failed")
	}
	s.replay = kassa.ResumeAfter(nil, 1, kassa.Devnet, kassa.ScopeMerchant, events[1].Pos)
	if !s.drain() {
		t.Fatal("drain failed")
	}
	if !s.Push(batch(events[4], events[5]), 3) {
		t.Fatal("push refused")
	}
	got := mustReadFrames(t, client, 5)
	for i, want := range []*kassa.Event{events[0], events[1], events[2], events[4], events[5]} {
		b, _ := want.Encode()
		if !bytes.Equal(got[i].payload, b) {
			t.Errorf("frame %d: %s, want event %s", i, got[i].payload, want.ID)
		}
	}
}
