package eventstream

import (
	"bytes"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// Who may write to a stream's socket. Only the owner writes, blocking, and it
// writes out everything queued before it lets go; while nobody owns the socket,
// the hub's fan-out (Push) writes to it directly, without blocking, and hands
// what the socket did not take to the stream's goroutine.
const (
	ownerNone    = iota
	ownerStream  // the stream's goroutine: from the start through the replay, and when a Push could not write all
	ownerControl // a frame of the WebSocket library's own (pong, ping, close), written by whoever sent it
)

// errEncoding ends a stream whose event could not be encoded.
var errEncoding = errors.New("encoding an event failed")

// outItem is one piece of a stream's queue.
type outItem struct {
	batch *kassa.EventBatch // live events, or nil
	raw   []byte            // else bytes sent as they are: the rest of a frame, or a control frame
}

// wsSink is a stream's socket as the hub's fan-out sees it (a kassa.EventSink).
// A live event whose frames the socket takes at once costs one non-blocking write
// from the fan-out, with the frames every client shares (kassa.EventBatch.Bytes):
// no goroutine wakes up. What the socket does not take waits in the queue for
// the stream's goroutine, which writes it with the usual timeout; a stream whose
// queue would hold more events than the hub's buffer is dropped as a slow consumer.
type wsSink struct {
	hook func() // tests: runs before each live event is written; live events then always queue

	mu      sync.Mutex
	conn    net.Conn // the hijacked connection; nil until the upgrade
	raw     *rawConn // non-blocking writes to conn; nil: none, everything queues
	queue   []outItem
	queued  int // live events in queue
	owner   int
	replay  *kassa.Replay // after a replay, live events pass through its Fresh until one is new
	closing bool          // the stream is closing: live events are no longer taken
	failed  bool          // a write failed and the connection was closed
	ended   error         // why the subscription ended (kassa.ErrSlowConsumer, ErrStreamStopped, errEncoding)
	kick    chan struct{} // wakes the stream's goroutine: it owns the socket, or the subscription ended
}

// newWSSink returns a sink owned by the stream's goroutine, which lets go of it
// (drain) once the connection is upgraded and any replay written: events pushed
// before then wait in the queue.
func newWSSink(hook func()) *wsSink {
	return &wsSink{hook: hook, owner: ownerStream, kick: make(chan struct{}, 1)}
}

// attach gives the sink the hijacked connection.
func (s *wsSink) attach(conn net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn, s.raw = conn, newRawConn(conn)
}

// Push implements kassa.EventSink.
func (s *wsSink) Push(b *kassa.EventBatch, buffer int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.failed {
		return true // the stream is ending anyway
	}
	if s.owner == ownerNone && s.raw != nil && s.hook == nil {
		if b = s.fresh(b); b == nil {
			return true
		}
		frames, err := b.Bytes(eventFrames)
		if err != nil {
			s.end(errEncoding)
			return true
		}
		n, err := s.raw.write(frames)
		switch {
		case err != nil:
			s.failLocked()
		case n < len(frames):
			s.queue = append(s.queue, outItem{raw: frames[n:]})
			s.handOff()
		}
		return true
	}
	if s.queued+len(b.Events) > buffer {
		return false
	}
	s.queue = append(s.queue, outItem{batch: b})
	s.queued += len(b.Events)
	if s.owner == ownerNone {
		s.handOff()
	}
	return true
}

// End implements kassa.EventSink.
func (s *wsSink) End(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end(err)
}

func (s *wsSink) end(err error) {
	if s.ended == nil {
		s.ended = err
	}
	s.signal()
}

// endErr is why the subscription ended, or nil.
func (s *wsSink) endErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// handOff makes the stream's goroutine the owner; the queue is not empty.
func (s *wsSink) handOff() {
	s.owner = ownerStream
	s.signal()
}

func (s *wsSink) signal() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// fresh returns what of b is new to the client: b, or while a replay's last
// events may still come live, the part after them (nil: nothing).
func (s *wsSink) fresh(b *kassa.EventBatch) *kassa.EventBatch {
	if s.replay == nil {
		return b
	}
	for i, e := range b.Events {
		if s.replay.Fresh(e) {
			s.replay = nil // events come in feed order: every later one is new too
			if i == 0 {
				return b
			}
			return &kassa.EventBatch{Events: b.Events[i:]}
		}
	}
	return nil
}

// failLocked marks the socket failed and closes it; s.mu is held.
func (s *wsSink) failLocked() {
	s.failed = true
	s.queue, s.queued = nil, 0
	if s.conn != nil {
		s.conn.Close()
	}
}

func (s *wsSink) fail() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked()
}

// drainIfOwner drains the queue when the stream's goroutine owns the socket.
func (s *wsSink) drainIfOwner() bool {
	s.mu.Lock()
	mine := s.owner == ownerStream
	s.mu.Unlock()
	return !mine || s.drain()
}

// drain writes the queue out as the socket's owner, blocking, then lets go of the
// socket. It reports false when a write failed (the connection is closed then).
func (s *wsSink) drain() bool {
	for {
		s.mu.Lock()
		if failed := s.failed; failed || len(s.queue) == 0 {
			if !failed {
				s.owner = ownerNone
			}
			s.queue = s.queue[:0]
			s.mu.Unlock()
			return !failed
		}
		it := s.queue[0]
		s.queue[0] = outItem{}
		s.queue = s.queue[1:]
		if it.batch != nil {
			s.queued -= len(it.batch.Events)
			it.batch = s.fresh(it.batch)
		}
		s.mu.Unlock()
		var err error
		if it.batch != nil {
			err = s.writeEvents(it.batch)
		} else if it.raw != nil {
			err = s.writeOwned(it.raw)
		}
		if errors.Is(err, errEncoding) {
			s.End(errEncoding)
		} else if err != nil {
			return false
		}
	}
}

// writeEvents writes a batch's frames as the owner (one by one after the hook
// when a test set one).
func (s *wsSink) writeEvents(b *kassa.EventBatch) error {
	if s.hook == nil {
		frames, err := b.Bytes(eventFrames)
		if err != nil {
			return errEncoding
		}
		return s.writeOwned(frames)
	}
	for _, e := range b.Events {
		s.hook()
		frame, err := eventFrames([]*kassa.Event{e})
		if err != nil {
			return errEncoding
		}
		if err := s.writeOwned(frame); err != nil {
			return err
		}
	}
	return nil
}

// writeOwned writes b as the socket's owner, within writeTimeout; a failure
// closes the connection.
func (s *wsSink) writeOwned(b []byte) error {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	err := conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	if err == nil {
		_, err = conn.Write(b)
	}
	if err == nil {
		err = conn.SetWriteDeadline(time.Time{}) // the fan-out's writes have no deadline
	}
	if err != nil {
		s.fail()
	}
	return err
}

// sinkConn is the hijacked connection as the WebSocket library sees it: its own
// frames (pongs, pings, close frames) pass through the sink, in order with the
// event frames. The library flushes each frame in one Write (through a
// bufio.Writer larger than any control frame) and writes no data frames here.
type sinkConn struct {
	net.Conn
	s *wsSink
}

// Write sends one library frame: at once when nobody owns the socket, else after
// what is queued before it (the owner writes it; Write does not wait).
func (c *sinkConn) Write(p []byte) (int, error) {
	s := c.s
	s.mu.Lock()
	if s.failed {
		s.mu.Unlock()
		return 0, net.ErrClosed
	}
	if s.owner != ownerNone {
		s.queue = append(s.queue, outItem{raw: bytes.Clone(p)})
		s.mu.Unlock()
		return len(p), nil
	}
	s.owner = ownerControl
	s.mu.Unlock()
	if err := s.writeOwned(p); err != nil {
		return 0, err
	}
	s.drain() // what was pushed meanwhile
	return len(p), nil
}
