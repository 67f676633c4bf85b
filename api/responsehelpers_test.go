package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// ids returns the ids of a list envelope's data.
func ids(t *testing.T, r *response) []string {
	t.Helper()
	expectStatus(t, r, 200)
	body := r.obj(t)
	if body["object"] != "list" {
		t.Fatalf("object %v, want list", body["object"])
	}
	var out []string
	for _, it := range body["data"].([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

// sameIDs compares two id lists.
func sameIDs(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ids\n got %v\nwant %v", got, want)
	}
}

// rawPost sends a POST with an exact body and content type.
func (e *testEnv) rawPost(path string, body []byte, headers map[string]string) *response {
	e.t.Helper()
	hr, err := http.NewRequest("POST", e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range headers {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		e.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

// decodeArray decodes a 200 response holding a bare JSON array.
func decodeArray(t *testing.T, r *response, out any) {
	t.Helper()
	expectStatus(t, r, 200)
	if err := json.Unmarshal(r.body, out); err != nil {
		t.Fatalf("body is not a JSON array: %v\n%s", err, r.body)
	}
}
