// Package openapitest checks HTTP exchanges against Kassa's OpenAPI document, for
// tests: a route, status, header, body member or type the document does not
// describe is a problem, and so is a request the document calls invalid that the
// service accepted. It also counts which (operation, status) pairs were seen, for
// a coverage report. The api package's test harness runs every exchange through
// Handler; cmd/kassa's end-to-end helper calls Check.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/router"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/kassapay/kassa/api/openapi"
)

// Exchange is one request and the response it got.
type Exchange struct {
	Request     *http.Request // method, URL (its path and query) and headers
	RequestBody []byte
	Status      int
	Header      http.Header // the response's headers
	Body        []byte      // the response body, decoded (not gzipped)
}

// Checker validates exchanges against one document and records coverage. It is
// safe for concurrent use.
type Checker struct {
	model    *v3.Document
	requests validator.Validator // the service ignores unknown query parameters and headers: not strict
	strict   validator.Validator // responses: an undocumented header or body member is an error
	router   router.Router

	mu   sync.Mutex
	seen map[Pair]int
}

// Pair is an operation ("GET /api/v1/invoices") and one status it answers.
type Pair struct {
	Operation string
	Status    string
}

// strictIgnore are body paths whose members the document leaves free: metadata is
// the merchant's own JSON object, and the members of the OpenAPI document itself
// (GET /api/v1/openapi.json) are described by the OpenAPI specification.
var strictIgnore = []string{"$.body**.metadata.**", "$.body**.metadata[**",
	"$.body.info**", "$.body.servers**", "$.body.tags**", "$.body.paths**", "$.body.webhooks**", "$.body.components**"}

// New builds a checker of the OpenAPI document doc. Response validation is
// strict (an undeclared header or body member is an error; request bodies are
// strict by their schemas); both directions check formats (uuid, date-time, uri).
func New(doc []byte) (*Checker, error) {
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		return nil, err
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return nil, err
	}
	strict := validator.NewValidatorFromV3Model(&m.Model, config.WithFormatAssertions(), config.WithStrictMode(),
		config.WithStrictIgnorePaths(strictIgnore...),
		// On every response (HSTS: when the public URL is https); say nothing about the API.
		config.WithStrictIgnoredHeadersExtra("X-Content-Type-Options", "Strict-Transport-Security"))
	return &Checker{model: &m.Model, requests: validator.NewValidatorFromV3Model(&m.Model, config.WithFormatAssertions()),
		strict: strict, router: router.NewRouter(&m.Model, router.WithPathOnlyMatching()), seen: map[Pair]int{}}, nil
}

var (
	sharedOnce sync.Once
	shared     *Checker
	sharedErr  error
)

// Shared returns the checker of the embedded document, built once per process, so
// the coverage of every test in a binary adds up.
func Shared() (*Checker, error) {
	sharedOnce.Do(func() { shared, sharedErr = New(openapi.Document) })
	return shared, sharedErr
}

// Check validates e and records its (operation, status) pair. It returns the
// problems found, none when the exchange is what the document describes. A request
// to a path the document does not have must be answered 404 route_not_found, and a
// method it does not list for the path 405 method_not_allowed; a request the
// document calls invalid must be refused (4xx); every response to a documented
// operation must match the document.
func (c *Checker) Check(e Exchange) []string {
	req := e.Request.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(e.RequestBody))
	route, err := c.router.FindRoute(req)
	if route == nil || route.Operation == nil {
		return undocumented(e, err)
	}
	name := e.Request.Method + " " + route.Path
	c.record(Pair{name, strconv.Itoa(e.Status)})

	var problems []string
	if ok, errs := c.requests.ValidateHttpRequestSync(req); !ok && e.Status < 400 {
		problems = append(problems, fmt.Sprintf("%s %s: the document calls the request invalid, but it was answered %d:%s",
			e.Request.Method, e.Request.URL.RequestURI(), e.Status, describe(errs)))
	}
	resp := &http.Response{StatusCode: e.Status, Header: e.Header.Clone(), Request: req,
		Body: io.NopCloser(bytes.NewReader(e.Body)), ContentLength: int64(len(e.Body))}
	req.Body = io.NopCloser(bytes.NewReader(e.RequestBody))
	if ok, errs := c.strict.ValidateHttpResponse(req, resp); !ok {
		problems = append(problems, fmt.Sprintf("%s %s: the %d response does not match the document (%s):%s\nbody: %.600s",
			e.Request.Method, e.Request.URL.RequestURI(), e.Status, name, describe(errs), e.Body))
	}
	return problems
}

// undocumented checks the answer to a request the document has no operation for:
// the JSON 404 or 405 every surface gives an unknown route.
func undocumented(e Exchange, routeErr error) []string {
	want, code := http.StatusNotFound, "route_not_found"
	var re *router.RouteError
	if asRouteError(routeErr, &re) && re.Route != nil {
		want, code = http.StatusMethodNotAllowed, "method_not_allowed"
	}
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if e.Request.URL.Path == "/metrics" && e.Status == http.StatusNotFound {
		want, code = http.StatusNotFound, "route_not_found" // the network gate answers before the method check
	}
	if e.Status != want || json.Unmarshal(e.Body, &body) != nil || body.Error.Code != code {
		return []string{fmt.Sprintf("%s %s is not in the document, yet it was answered %d: %.300s",
			e.Request.Method, e.Request.URL.Path, e.Status, e.Body)}
	}
	return nil
}

func asRouteError(err error, target **router.RouteError) bool {
	re, ok := err.(*router.RouteError)
	if ok {
		*target = re
	}
	return ok
}

// describe renders validation errors, one line each, with the failing fields.
func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  - %s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n      %s %s", f.FieldPath, f.Reason)
		}
	}
	return b.String()
}

func (c *Checker) record(p Pair) {
	c.mu.Lock()
	c.seen[p]++
	c.mu.Unlock()
}
