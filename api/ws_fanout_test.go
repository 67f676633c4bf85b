package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestWSFanOutSharesFrames: many real clients of one stream, over loopback, get
// the very same bytes for every event, in the same order, whether an event
// comes alone (a create) or with others in one commit (a cancel), and the bytes
// are the event as the events API shows it.
func TestWSFanOutSharesFrames(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newStreamEnv(t, cfg, 0)
		m := e.newMerchant(false)
		const clients = 300 // enough for the hub to share the push out between goroutines
		// Each client reads up to the cancel's invoice.updated, the last event,
		// from the moment it is connected: a client that is not reading answers no
		// ping, and the server ends a stream whose pong is 10 s late (dialing 300
		// clients took longer than that on a loaded machine).
		got := make([][][]byte, clients)
		errs := make([]error, clients)
		var wg sync.WaitGroup
		for i := range clients {
			c := e.dial("/ws/merchant/events", withKey(m.key))
			wg.Go(func() { got[i], errs[i] = readUntilUpdated(c.c) })
		}
		a, b := m.newInvoice(), m.newInvoice()
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/invoices/" + b + "/cancel", headers: withKey(m.key)}), 200)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("client %d: %v", i, err)
			}
		}
		if len(got[0]) < 4 {
			t.Fatalf("%d frames, want 2 creates and at least 2 cancel events", len(got[0]))
		}
		for i := range got {
			if len(got[i]) != len(got[0]) {
				t.Fatalf("client %d got %d frames, client 0 %d", i, len(got[i]), len(got[0]))
			}
			for j := range got[i] {
				if !bytes.Equal(got[i][j], got[0][j]) {
					t.Fatalf("client %d frame %d differs from client 0's:\n%s\n%s", i, j, got[i][j], got[0][j])
				}
			}
		}
		for j, want := range []string{a, b} {
			var ev map[string]any
			if err := json.Unmarshal(got[0][j], &ev); err != nil {
				t.Fatal(err)
			}
			invoiceEvent(t, ev, "invoice.created", want)
			var api map[string]any
			json.Unmarshal(m.get("/api/v1/events/"+ev["id"].(string)).body, &api)
			if b, _ := json.Marshal(api); !bytes.Equal(compactJSON(t, got[0][j]), b) {
				t.Errorf("frame %d is not the event as the events API shows it:\n%s\n%s", j, got[0][j], b)
			}
		}
	})
}

// readUntilUpdated reads frames until an invoice.updated one and returns them all.
// It is given twice a read's deadline: it reads from its client's dial on, through
// the other clients' dials.
func readUntilUpdated(c *websocket.Conn) ([][]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*wsDeadline)
	defer cancel()
	var out [][]byte
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, b)
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &ev); err != nil {
			return out, err
		}
		if ev.Type == "invoice.updated" {
			return out, nil
		}
	}
}

// compactJSON re-marshals b through a map, as the comparison's other side is.
func compactJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}
