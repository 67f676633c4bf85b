package httpx_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"

	"kassa/api/httpx"
)

// TestWriteRawOnce: bodies of every size arrive whole, with their length, over a
// kept-alive connection, and the socket is never left corked: after the write,
// TCP_CORK reads 0 on the request's connection.
func TestWriteRawOnce(t *testing.T) {
	corkedAfter := make(chan int, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		httpx.WriteRawOnce(r.Context(), w, http.StatusOK, body(n))
		corkedAfter <- cork(t, r)
	}))
	srv.Config.ConnContext = httpx.ConnContext
	srv.Start()
	defer srv.Close()
	for _, n := range []int{2, 3 << 10, 9_400, 200_000} {
		resp, err := srv.Client().Get(srv.URL + "?n=" + strconv.Itoa(n))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || resp.ContentLength != int64(n) || !bytes.Equal(got, body(n)) {
			t.Fatalf("%d bytes: status %d, length %d, body of %d bytes (equal: %v)", n, resp.StatusCode,
				resp.ContentLength, len(got), bytes.Equal(got, body(n)))
		}
		if c := <-corkedAfter; c != 0 {
			t.Errorf("%d bytes: TCP_CORK is %d after the write, want 0", n, c)
		}
	}
}

// body is n bytes of a JSON string.
func body(n int) []byte {
	b := bytes.Repeat([]byte{'x'}, n)
	b[0], b[n-1] = '"', '"'
	return b
}

// cork reads TCP_CORK of r's connection.
func cork(t *testing.T, r *http.Request) int {
	t.Helper()
	c, ok := r.Context().Value(httpx.ConnKeyForTest).(syscall.Conn)
	if !ok {
		t.Fatal("no connection in the request's context")
	}
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var serr error
	if err := raw.Control(func(fd uintptr) { v, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK) }); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	return v
}
