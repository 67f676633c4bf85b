package openapitest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Shape compares a JSON value a Go wire type encodes (with every optional part
// filled in) with the component schema named schema in the OpenAPI document doc,
// and returns each difference in words: a member the document lists and the value
// lacks, a member the value has and the document does not list, and a member whose
// JSON type the document does not allow. Objects and array items are compared all
// the way down, following $ref, allOf, and oneOf or anyOf (the branch that fits
// best). Members the document leaves open (no properties) are not compared.
// absent names members (paths below the schema, such as "invoice.payments") the
// document lists that this value never carries; they are not counted missing.
func Shape(doc []byte, schema string, value []byte, absent ...string) ([]string, error) {
	var d struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	s, ok := d.Components.Schemas[schema]
	if !ok {
		return nil, fmt.Errorf("no schema %s in the document", schema)
	}
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return nil, err
	}
	w := shapeWalker{schemas: d.Components.Schemas}
	w.walk(schema, s, v)
	diffs := slices.DeleteFunc(w.diffs, func(d string) bool {
		return slices.ContainsFunc(absent, func(a string) bool { return d == schema+"."+a+missing })
	})
	sort.Strings(diffs)
	return diffs, nil
}

// missing ends the words for a member the value lacks.
const missing = ": in the document, not in the Go wire type"

type shapeWalker struct {
	schemas map[string]any
	diffs   []string
}

// resolve follows $ref and merges allOf into one schema object.
func (w *shapeWalker) resolve(s any) map[string]any {
	m, _ := s.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		return w.resolve(w.schemas[strings.TrimPrefix(ref, "#/components/schemas/")])
	}
	all, ok := m["allOf"].([]any)
	if !ok {
		return m
	}
	merged := map[string]any{}
	props := map[string]any{}
	for k, v := range m {
		if k != "allOf" {
			merged[k] = v
		}
	}
	own := map[string]any{}
	for k, v := range m {
		if k != "allOf" {
			own[k] = v
		}
	}
	for _, part := range append(slices.Clone(all), own) {
		r := w.resolve(part)
		if p, ok := r["properties"].(map[string]any); ok {
			for k, v := range p {
				props[k] = v
			}
		}
		for k, v := range r {
			if _, ok := merged[k]; !ok && k != "properties" {
				merged[k] = v
			}
		}
	}
	if len(props) > 0 {
		merged["properties"] = props
	}
	return merged
}

// branches are the alternatives of a oneOf or anyOf schema, or the schema itself.
func (w *shapeWalker) branches(m map[string]any) []map[string]any {
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := m[k].([]any); ok {
			var out []map[string]any
			for _, a := range alts {
				out = append(out, w.branches(w.resolve(a))...)
			}
			return out
		}
	}
	return []map[string]any{m}
}

// kind names the JSON type of v as a schema's type does.
func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// allows reports whether schema m admits a value of kind k ("integer" is a number).
func allows(m map[string]any, k string) bool {
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	default:
		if c, ok := m["const"]; ok {
			return kind(c) == k || (k == "integer" && kind(c) == "number")
		}
		if e, ok := m["enum"].([]any); ok {
			return slices.ContainsFunc(e, func(x any) bool { return kind(x) == k })
		}
		return true // no type: anything
	}
	return slices.Contains(types, k) || (k == "integer" && slices.Contains(types, "number"))
}

// walk compares v with schema s at path, choosing the branch with the fewest
// differences.
func (w *shapeWalker) walk(path string, s any, v any) {
	var best []string
	for i, b := range w.branches(w.resolve(s)) {
		sub := shapeWalker{schemas: w.schemas}
		sub.one(path, b, v)
		if i == 0 || len(sub.diffs) < len(best) {
			best = sub.diffs
		}
	}
	w.diffs = append(w.diffs, best...)
}

func (w *shapeWalker) one(path string, m map[string]any, v any) {
	k := kind(v)
	if !allows(m, k) {
		w.diffs = append(w.diffs, fmt.Sprintf("%s: the value is %s, the document allows %v", path, k, m["type"]))
		return
	}
	switch x := v.(type) {
	case map[string]any:
		props, ok := m["properties"].(map[string]any)
		if !ok {
			return // an open object (metadata)
		}
		for name := range props {
			if _, ok := x[name]; !ok {
				w.diffs = append(w.diffs, path+"."+name+missing)
			}
		}
		for name, mv := range x {
			ps, ok := props[name]
			if !ok {
				w.diffs = append(w.diffs, fmt.Sprintf("%s.%s: in the Go wire type, not in the document", path, name))
				continue
			}
			w.walk(path+"."+name, ps, mv)
		}
	case []any:
		if items, ok := m["items"]; ok {
			for _, it := range x {
				w.walk(path+"[]", items, it)
			}
		}
	}
}
