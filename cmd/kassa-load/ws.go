package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// wsLoad runs "kassa-load ws": it opens -clients WebSocket connections to the
// merchant event stream, waits until all are open, creates -events invoices at
// -rate per second and measures, for every client and every invoice.created frame,
// the time from just before the invoice's POST was sent to the frame's arrival.
// Everything is bounded by -d: connections, creates and the wait for the last
// frames together never take longer.
func wsLoad(args []string) error {
	fs, sf := newStreamFlags("ws", 2, 5*time.Minute, 30*time.Second)
	clients := fs.Int("clients", 1000, "WebSocket connections to open")
	events := fs.Int("events", 100, "invoices to create (each emits invoice.created)")
	rate := fs.Float64("rate", 20, "invoice creates per second")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this tool, from the first create to the end, to this file")
	fs.Parse(args)
	if *clients < 1 || *events < 1 || *rate <= 0 {
		return errors.New("ws: -clients, -events and -rate must be positive")
	}
	ctx, cancel, err := sf.start()
	if err != nil {
		return err
	}
	defer cancel()
	httpBase, key := sf.base, sf.key
	wsURL := strings.Replace(strings.Replace(httpBase, "https://", "wss://", 1), "http://", "ws://", 1) + "/ws/merchant/events"
	httpBase = strings.Replace(strings.Replace(httpBase, "wss://", "https://", 1), "ws://", "http://", 1)
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()

	// Connect, 'ramp' at a time, and start each client's reader at once.
	epoch := time.Now()
	cs := make([]*wsClient, *clients)
	var (
		wg       sync.WaitGroup
		frames   atomic.Int64 // invoice.created frames received, all clients
		dialErrs = map[string]int{}
	)
	dialStart := time.Now()
	for lo := 0; lo < *clients && ctx.Err() == nil; lo += sf.ramp {
		hi := min(lo+sf.ramp, *clients)
		errs := make([]error, hi-lo)
		var dw sync.WaitGroup
		for i := lo; i < hi; i++ {
			dw.Go(func() { cs[i], errs[i-lo] = dialClient(ctx, wsURL, key) })
		}
		dw.Wait()
		for i := lo; i < hi; i++ {
			if errs[i-lo] != nil {
				dialErrs[shortErr(errs[i-lo])]++
				continue
			}
			c := cs[i]
			c.frames = &frames
			c.epoch = epoch
			c.recs = make([]wsRec, 0, *events)
			wg.Go(func() { c.read(readCtx) })
		}
	}
	connected := 0
	for _, c := range cs {
		if c != nil {
			connected++
		}
	}
	fmt.Printf("ws: clients=%d connected=%d dial_failed=%d connect_time=%.1fs\n",
		*clients, connected, *clients-connected, time.Since(dialStart).Seconds())
	for e, n := range dialErrs {
		fmt.Printf("ws: dial error x%d: %s\n", n, e)
	}
	if connected == 0 {
		return errors.New("ws: no connection could be opened")
	}
	time.Sleep(500 * time.Millisecond) // let the last subscriptions register with the hub

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	cr := createInvoices(ctx, httpBase, key, *events, *rate, sf.inflight, epoch)
	want := int64(connected) * int64(cr.ok())

	// Wait for the frames, bounded by -settle after the last create and by -d.
	awaitCount(ctx, &frames, want, sf.settle, func() bool { return openClients(cs) > 0 })
	stopReading()
	for _, c := range cs {
		if c != nil {
			c.conn.CloseNow()
		}
	}
	wg.Wait()
	return wsReport(cs, cr, *clients, connected)
}

// wsClient is one stream connection and what it received. Only its own reader
// goroutine writes to it until the run ends, so recording takes no shared lock.
type wsClient struct {
	conn   *websocket.Conn
	frames *atomic.Int64
	epoch  time.Time
	recs   []wsRec
	other  int          // frames of other types
	bad    int          // frames that could not be parsed
	closed atomic.Bool  // the reader ended before the run did
	end    string       // why the reader ended early (close code and reason)
	endAt  atomic.Int64 // when, since epoch
}

// wsRec is one invoice.created frame: the invoice and when its frame arrived.
type wsRec struct {
	id string
	at time.Duration // since epoch
}

func dialClient(ctx context.Context, url, key string) (*wsClient, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var c *websocket.Conn
		var resp *http.Response
		c, resp, err = websocket.Dial(dctx, url, &websocket.DialOptions{
			HTTPHeader: http.Header{"X-Api-Key": {key}},
		})
		if err == nil {
			c.SetReadLimit(1 << 20)
			return &wsClient{conn: c}, nil
		}
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
			if resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusTooManyRequests {
				return nil, err
			}
		}
		if dctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
	return nil, err
}

// read records frames until the connection ends; the run closes every connection
// when it is over (ctx then tells a closed stream from the end of the run). The
// reads themselves take no context: one with a Done channel costs a timer hook per
// frame, and this tool shares the cores with the server it measures.
func (c *wsClient) read(ctx context.Context) {
	var buf bytes.Buffer
	for {
		_, r, err := c.conn.Reader(context.Background())
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(r)
		}
		if err != nil {
			if ctx.Err() == nil {
				c.end = closeReason(err)
				c.endAt.Store(int64(time.Since(c.epoch)))
				c.closed.Store(true)
			}
			return
		}
		at := time.Since(c.epoch)
		typ, id, ok := eventTypeAndObjectID(buf.Bytes())
		switch {
		case !ok:
			c.bad++
		case typ == "invoice.created":
			c.recs = append(c.recs, wsRec{id: id, at: at})
			c.frames.Add(1)
		default:
			c.other++
		}
	}
}

func openClients(cs []*wsClient) int {
	n := 0
	for _, c := range cs {
		if c != nil && !c.closed.Load() {
			n++
		}
	}
	return n
}

// closeReason renders why a stream ended: the close frame's code and reason, or
// the transport error.
func closeReason(err error) string {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Sprintf("close %d %q", int(ce.Code), ce.Reason)
	}
	return shortErr(err)
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
