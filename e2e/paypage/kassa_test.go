package paypage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kassa"
)

// kassaBin is the kassa binary built once for these tests.
var kassaBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kassa-paypage")
	if err != nil {
		panic(err)
	}
	kassaBin = filepath.Join(dir, "kassa")
	build := exec.Command("go", "build", "-o", kassaBin, "kassa/cmd/kassa")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build kassa:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a running "kassa serve --dev" on SQLite.
type server struct {
	url, merchantKey string
}

func startKassa(t *testing.T) *server {
	t.Helper()
	cmd := exec.Command(kassaBin, "serve", "--dev", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &server{}
	listening := regexp.MustCompile(`^kassa listening on (\S+)`)
	sc := bufio.NewScanner(out)
	deadline := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "merchant key:"); ok {
			s.merchantKey = strings.TrimSpace(v)
		}
		if m := listening.FindStringSubmatch(line); m != nil {
			s.url = "http://" + m[1]
			break
		}
	}
	if s.url == "" || s.merchantKey == "" {
		t.Fatal("kassa did not start")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return s
}

// post sends a JSON request with the merchant key and decodes the answer.
func (s *server) post(t *testing.T, path string, body any, want int) map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.url+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", s.merchantKey)
	req.Header.Set("Idempotency-Key", kassa.NewUUID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	return out
}

// invoice creates a devnet invoice and returns its payment URL and id.
func (s *server) invoice(t *testing.T, body map[string]any) (string, string) {
	t.Helper()
	out := s.post(t, "/api/v1/invoices", body, 201)
	return out["payment_url"].(string), out["invoice_id"].(string)
}

// pay pays an invoice on devnet: amount USD, or what is left when 0.
func (s *server) pay(t *testing.T, id string, amount float64) {
	t.Helper()
	body := map[string]any{}
	if amount > 0 {
		body["amount_usd"] = amount
	}
	s.post(t, "/api/v1/devnet/invoices/"+id+"/payments", body, 201)
}
