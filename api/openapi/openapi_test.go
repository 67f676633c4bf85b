package openapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/kassapay/kassa/api/openapi"
	"github.com/kassapay/kassa/api/openapi/openapitest"
)

// TestDocumentIsValid: the document is OpenAPI 3.1, libopenapi builds its model
// without errors, and it passes the OpenAPI 3.1 schema.
func TestDocumentIsValid(t *testing.T) {
	doc, err := libopenapi.NewDocument(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if v := doc.GetVersion(); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi version %q, want 3.1.x", v)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("building the v3 model: %v", err)
	}
	if m.Model.Paths == nil || m.Model.Paths.PathItems.Len() == 0 || m.Model.Webhooks.Len() == 0 {
		t.Fatal("no paths or no webhooks")
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, f := range e.SchemaValidationErrors {
				t.Errorf("  %s: %s", f.FieldPath, f.Reason)
			}
		}
	}
	var raw struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(openapi.Document, &raw); err != nil || len(raw.Servers) != 1 || raw.Servers[0].URL != "/" {
		t.Errorf("servers %+v (%v): want the one relative server \"/\"", raw.Servers, err)
	}
	c, err := openapitest.New(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d documented (operation, status) pairs", len(c.Documented()))
}

// TestServe: the document is served gzipped or not, with an ETag a client can
// revalidate with (304), and is checked against itself.
func TestServe(t *testing.T) {
	c, err := openapitest.New(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Request-Id", "req_abcdefgh") // as the service's outer layer does
		openapi.Serve(w, r)
	})
	srv := httptest.NewServer(c.Handler(serve, t.Errorf))
	defer srv.Close()
	get := func(headers map[string]string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/api/v1/openapi.json", nil)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultTransport.RoundTrip(req) // no transparent gunzip
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, body := get(nil)
	if resp.StatusCode != 200 || !bytes.Equal(body, openapi.Document) || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("plain: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	tag := resp.Header.Get("ETag")
	if !strings.HasPrefix(tag, `W/"`) {
		t.Fatalf("ETag %q", tag)
	}
	resp, body = get(map[string]string{"Accept-Encoding": "gzip"})
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("ETag") != tag {
		t.Fatalf("gzip: %v", resp.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, openapi.Document) {
		t.Fatal("the gzipped document differs")
	}
	t.Logf("document: %d bytes, %d gzipped", len(openapi.Document), len(body))
	for _, inm := range []string{tag, strings.TrimPrefix(tag, "W/"), `"other", ` + tag, "*"} {
		if resp, body := get(map[string]string{"If-None-Match": inm}); resp.StatusCode != 304 || len(body) != 0 {
			t.Errorf("If-None-Match %s: %d, %d bytes", inm, resp.StatusCode, len(body))
		}
	}
	if resp, _ := get(map[string]string{"If-None-Match": `"other"`}); resp.StatusCode != 200 {
		t.Errorf("stale If-None-Match: %d", resp.StatusCode)
	}
}

// TestExamplesMatchSchemas: every example of a component schema and of a request
// or response body validates against its schema, so examples cannot drift from
// the document either.
func TestExamplesMatchSchemas(t *testing.T) {
	doc, err := libopenapi.NewDocument(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	sv := schema_validation.NewSchemaValidator(config.WithFormatAssertions())
	checked := 0
	check := func(where string, s *base.Schema, example interface{ Decode(any) error }) {
		t.Helper()
		var v any
		if err := example.Decode(&v); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		checked++
		if ok, errs := sv.ValidateSchemaObject(s, v); !ok {
			for _, e := range errs {
				t.Errorf("%s: example does not match: %s", where, e.Reason)
				for _, f := range e.SchemaValidationErrors {
					t.Errorf("  %s %s", f.FieldPath, f.Reason)
				}
			}
		}
	}
	for name, proxy := range m.Model.Components.Schemas.FromOldest() {
		s := proxy.Schema()
		for _, ex := range s.Examples {
			check("schema "+name, s, ex)
		}
	}
	for path, item := range m.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			where := strings.ToUpper(method) + " " + path
			if op.RequestBody != nil {
				for mt, c := range op.RequestBody.Content.FromOldest() {
					if c.Examples != nil && c.Schema != nil {
						for name, ex := range c.Examples.FromOldest() {
							check(where+" request "+mt+" "+name, c.Schema.Schema(), ex.Value)
						}
					}
				}
			}
			for status, r := range op.Responses.Codes.FromOldest() {
				if r.Content == nil {
					continue
				}
				for _, c := range r.Content.FromOldest() {
					if c.Schema != nil && c.Examples != nil {
						for name, ex := range c.Examples.FromOldest() {
							check(where+" "+status+" "+name, c.Schema.Schema(), ex.Value)
						}
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d examples found", checked)
	}
	t.Logf("%d examples checked against their schemas", checked)
}
