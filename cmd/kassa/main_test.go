package main

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
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa/api/openapi/openapitest"
	"github.com/kassapay/kassa/store"
)

// kassaBin is the binary built once for the end-to-end tests.
var kassaBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kassa-e2e")
	if err != nil {
		panic(err)
	}
	kassaBin = filepath.Join(dir, "kassa")
	build := exec.Command("go", "build", "-o", kassaBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build kassa:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if c, err := openapitest.Shared(); err == nil && testing.Verbose() {
		fmt.Print(c.Report())
	}
	os.Exit(code)
}

// instance is a running kassa serve --dev process.
type instance struct {
	cmd         *exec.Cmd
	url         string
	merchantKey string
	commerceKey string
	email       string
	password    string
	chainURL    string // the dev chain's JSON-RPC
	metricsAddr string // the --metrics-addr listener's address, when there is one
	gasWallet   string // the dev chain's gas wallet, from the banner
	exited      chan error
	args, env   []string // what it was started with, to start it again
}

// storeArgs are the flags that point a kassa command at the test's store.
func storeArgs(cfg store.Config) []string {
	args := []string{"--data-dir", cfg.DataDir}
	if cfg.DatabaseURL != "" {
		args = append(args, "--database-url", cfg.DatabaseURL)
	}
	return args
}

// startKassa starts "kassa serve --dev" on a free port and reads what it prints.
func startKassa(t *testing.T, cfg store.Config, extra ...string) *instance {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	args := append([]string{"serve", "--dev", "--addr", "127.0.0.1:0", "--devchain-addr", "127.0.0.1:0"}, storeArgs(cfg)...)
	return startServe(t, nil, append(args, extra...)...)
}

// startServe runs kassa with args and the extra environment variables env, and
// reads what it prints until it listens.
func startServe(t *testing.T, env []string, args ...string) *instance {
	t.Helper()
	cmd := exec.Command(kassaBin, args...)
	base := os.Environ()
	if os.Getenv("KASSA_DRAIN_DELAY") == "" {
		// No drain unless a test asks for one (its flag or env wins): a graceful
		// stop on PostgreSQL would otherwise wait the 5 s default for a proxy.
		base = append(base, "KASSA_DRAIN_DELAY=0")
	}
	cmd.Env = append(base, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{cmd: cmd, exited: make(chan error, 1), args: args, env: env}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		in.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("kassa stderr:\n%s", stderr.String())
		}
	})
	fields := map[string]*string{
		"merchant key:": &in.merchantKey, "commerce key:": &in.commerceKey,
		"login email:": &in.email, "login password:": &in.password, "gas wallet:": &in.gasWallet,
		"metrics listening on": &in.metricsAddr,
	}
	listening := regexp.MustCompile(`^kassa listening on (\S+)`)
	devChain := regexp.MustCompile(`^Dev chain .*JSON-RPC (\S+),`)
	deadline := time.After(60 * time.Second)
	for in.url == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("kassa exited before listening; stderr:\n%s", stderr.String())
			}
			for prefix, dst := range fields {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
					*dst = strings.TrimSpace(v)
				}
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				in.url = "http://" + m[1]
			}
			if m := devChain.FindStringSubmatch(line); m != nil {
				in.chainURL = m[1]
			}
		case <-deadline:
			t.Fatalf("kassa did not start in time; stderr:\n%s", stderr.String())
		}
	}
	go func() {
		for range lines {
		}
	}()
	return in
}

// lockedBuffer is a bytes.Buffer safe for a writing process and a reading test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// call sends a JSON request and decodes a JSON response into out (when not nil).
func call(t *testing.T, method, url string, headers map[string]string, body any, out any) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	checkOpenAPI(t, req, resp, raw)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: status %d, body %q: %v", method, url, resp.StatusCode, raw, err)
		}
	}
	return resp
}

// checkOpenAPI checks an exchange of call with a Kassa server against the OpenAPI
// document (the API's paths; not the HTML pages, the dev chain or webhook
// receivers).
func checkOpenAPI(t *testing.T, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	p := req.URL.Path
	if !strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/ws/") && p != "/healthz" && p != "/readyz" && p != "/metrics" {
		return
	}
	c, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	var reqBody []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(rc)
		}
	}
	for _, problem := range c.Check(openapitest.Exchange{Request: req, RequestBody: reqBody,
		Status: resp.StatusCode, Header: resp.Header, Body: body}) {
		t.Errorf("openapi: %s", problem)
	}
}

// wantStatus fails the test unless resp has the given status.
func wantStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want)
	}
}
