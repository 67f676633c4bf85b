package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// document is the part of an OpenAPI 3.1 document the reference page shows.
// Objects whose order matters to a reader (paths, properties, responses) are
// decoded in the document's order.
type document struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Summary     string `json:"summary"`
		Description string `json:"description"`
	} `json:"info"`
	Tags       []tag                             `json:"tags"`
	Paths      ordered[ordered[json.RawMessage]] `json:"paths"`
	Webhooks   ordered[ordered[json.RawMessage]] `json:"webhooks"`
	Security   []map[string][]string             `json:"security"`
	Components struct {
		Schemas         ordered[*schema]         `json:"schemas"`
		SecuritySchemes ordered[securityScheme]  `json:"securitySchemes"`
		Parameters      map[string]*parameter    `json:"parameters"`
		Responses       map[string]*response     `json:"responses"`
		RequestBodies   map[string]*requestBody  `json:"requestBodies"`
		Headers         map[string]*header       `json:"headers"`
		Examples        map[string]*exampleValue `json:"examples"`
	} `json:"components"`
}

type tag struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type operation struct {
	OperationID string                `json:"operationId"`
	Summary     string                `json:"summary"`
	Description string                `json:"description"`
	Tags        []string              `json:"tags"`
	Parameters  []*parameter          `json:"parameters"`
	RequestBody *requestBody          `json:"requestBody"`
	Responses   ordered[*response]    `json:"responses"`
	Security    []map[string][]string `json:"security"`
	Deprecated  bool                  `json:"deprecated"`
}

type parameter struct {
	Ref         string  `json:"$ref"`
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Schema      *schema `json:"schema"`
}

type requestBody struct {
	Ref         string              `json:"$ref"`
	Description string              `json:"description"`
	Required    bool                `json:"required"`
	Content     ordered[*mediaType] `json:"content"`
}

type response struct {
	Ref         string              `json:"$ref"`
	Description string              `json:"description"`
	Headers     ordered[*header]    `json:"headers"`
	Content     ordered[*mediaType] `json:"content"`
}

type header struct {
	Ref         string  `json:"$ref"`
	Description string  `json:"description"`
	Schema      *schema `json:"schema"`
}

type mediaType struct {
	Schema   *schema                `json:"schema"`
	Example  json.RawMessage        `json:"example"`
	Examples ordered[*exampleValue] `json:"examples"`
}

type exampleValue struct {
	Ref     string          `json:"$ref"`
	Summary string          `json:"summary"`
	Value   json.RawMessage `json:"value"`
}

type securityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme"`
	In          string `json:"in"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// schema is a JSON Schema (2020-12, as OpenAPI 3.1 uses it), as far as the page
// describes it.
type schema struct {
	Ref                  string            `json:"$ref"`
	Type                 typeList          `json:"type"`
	Format               string            `json:"format"`
	Description          string            `json:"description"`
	Enum                 []json.RawMessage `json:"enum"`
	Const                json.RawMessage   `json:"const"`
	Default              json.RawMessage   `json:"default"`
	Pattern              string            `json:"pattern"`
	Minimum              *json.Number      `json:"minimum"`
	Maximum              *json.Number      `json:"maximum"`
	MinLength            *int              `json:"minLength"`
	MaxLength            *int              `json:"maxLength"`
	MaxItems             *int              `json:"maxItems"`
	Required             []string          `json:"required"`
	Properties           ordered[*schema]  `json:"properties"`
	Items                *schema           `json:"items"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	OneOf                []*schema         `json:"oneOf"`
	AnyOf                []*schema         `json:"anyOf"`
	AllOf                []*schema         `json:"allOf"`
	Examples             []json.RawMessage `json:"examples"`
	ReadOnly             bool              `json:"readOnly"`
	Deprecated           bool              `json:"deprecated"`
}

// typeList is a schema's type: one name, or a list such as ["string", "null"].
type typeList []string

func (t *typeList) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*t = typeList{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(t))
}

// ordered is a JSON object decoded with its keys in document order.
type ordered[T any] []entry[T]

type entry[T any] struct {
	Key   string
	Value T
}

func (o *ordered[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want an object, got %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%v: %w", tok, err)
		}
		*o = append(*o, entry[T]{Key: tok.(string), Value: v})
	}
	return nil
}

// get returns the value under key, or the zero value.
func (o ordered[T]) get(key string) (T, bool) {
	for _, e := range o {
		if e.Key == key {
			return e.Value, true
		}
	}
	var zero T
	return zero, false
}

// refName is the last segment of a local reference ("#/components/schemas/X" → "X").
func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

// param resolves a parameter's reference.
func (d *document) param(p *parameter) (*parameter, error) {
	if p.Ref == "" {
		return p, nil
	}
	if c := d.Components.Parameters[refName(p.Ref)]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("unknown parameter %s", p.Ref)
}

// body resolves a request body's reference.
func (d *document) body(b *requestBody) (*requestBody, error) {
	if b == nil || b.Ref == "" {
		return b, nil
	}
	if c := d.Components.RequestBodies[refName(b.Ref)]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("unknown request body %s", b.Ref)
}

// response resolves a response's reference, and those of its headers.
func (d *document) response(r *response) (*response, error) {
	if r.Ref != "" {
		c := d.Components.Responses[refName(r.Ref)]
		if c == nil {
			return nil, fmt.Errorf("unknown response %s", r.Ref)
		}
		r = c
	}
	for i, h := range r.Headers {
		if h.Value.Ref == "" {
			continue
		}
		c := d.Components.Headers[refName(h.Value.Ref)]
		if c == nil {
			return nil, fmt.Errorf("unknown header %s", h.Value.Ref)
		}
		r.Headers[i].Value = c
	}
	return r, nil
}
