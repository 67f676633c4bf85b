package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"
)

// view is what the page template renders: the document rearranged for a reader.
type view struct {
	Title, Version, Summary string
	Description             template.HTML
	Groups                  []group
	Webhooks                []op
	Security                []scheme
	Schemas                 []schemaView
	CSS                     string
}

// group is the operations of one tag, in document order.
type group struct {
	ID, Name    string
	Description template.HTML
	Ops         []op
}

type op struct {
	ID, Method, Path, Summary string
	Description               template.HTML
	Deprecated                bool
	Security                  []string // scheme names; empty: no authentication
	Params                    []row
	Body                      *body
	Responses                 []resp
}

type body struct {
	Description template.HTML
	Required    bool
	Media       []media
}

type resp struct {
	Status      string
	Description template.HTML
	Headers     []row
	Media       []media
}

type media struct {
	Type    string
	Rows    []row
	Example string
}

// row is one line of a parameter or property table.
type row struct {
	Depth       int
	Name, In    string
	Type        template.HTML
	Required    bool
	Description template.HTML
}

type scheme struct {
	Name, Kind  string
	Description template.HTML
}

type schemaView struct {
	ID, Name    string
	Type        template.HTML
	Description template.HTML
	Rows        []row
	Example     string
}

var methods = []string{"get", "post", "put", "patch", "delete", "head", "options"}

// build rearranges a document into the page's view.
func build(d *document) (*view, error) {
	v := &view{Title: d.Info.Title, Version: d.Info.Version, Summary: d.Info.Summary, Description: text(d.Info.Description)}
	groups := map[string]*group{}
	for _, t := range d.Tags {
		v.Groups = append(v.Groups, group{ID: "tag-" + slug(t.Name), Name: t.Name, Description: text(t.Description)})
	}
	for i := range v.Groups {
		groups[v.Groups[i].Name] = &v.Groups[i]
	}
	var untagged []op
	for _, p := range d.Paths {
		ops, tags, err := d.operations(p.Key, p.Value, d.Security)
		if err != nil {
			return nil, err
		}
		for i, o := range ops {
			g := groups[tags[i]]
			if g == nil {
				untagged = append(untagged, o)
				continue
			}
			g.Ops = append(g.Ops, o)
		}
	}
	if len(untagged) > 0 {
		v.Groups = append(v.Groups, group{ID: "tag-other", Name: "Other", Ops: untagged})
	}
	for _, w := range d.Webhooks {
		ops, _, err := d.operations(w.Key, w.Value, nil)
		if err != nil {
			return nil, err
		}
		for _, o := range ops {
			o.ID, o.Path = "webhook-"+slug(w.Key), w.Key
			v.Webhooks = append(v.Webhooks, o)
		}
	}
	for _, s := range d.Components.SecuritySchemes {
		kind := s.Value.Type
		switch {
		case s.Value.Type == "apiKey":
			kind = "API key in the " + s.Value.In + " " + s.Value.Name
		case s.Value.Type == "http":
			kind = "HTTP " + s.Value.Scheme
		}
		v.Security = append(v.Security, scheme{Name: s.Key, Kind: kind, Description: text(s.Value.Description)})
	}
	for _, s := range d.Components.Schemas {
		v.Schemas = append(v.Schemas, schemaView{ID: "schema-" + slug(s.Key), Name: s.Key, Type: typeOf(s.Value), Description: text(s.Value.Description),
			Rows: properties(s.Value, 0), Example: example(nil, nil, s.Value)})
	}
	return v, nil
}

// operations reads the operations of one path (or webhook) in method order,
// with the path's own parameters and the default security applied; it returns
// each one's first tag beside it.
func (d *document) operations(path string, item ordered[json.RawMessage], security []map[string][]string) ([]op, []string, error) {
	var shared []*parameter
	if raw, ok := item.get("parameters"); ok {
		if err := json.Unmarshal(raw, &shared); err != nil {
			return nil, nil, fmt.Errorf("%s parameters: %w", path, err)
		}
	}
	var ops []op
	var tags []string
	for _, m := range methods {
		raw, ok := item.get(m)
		if !ok {
			continue
		}
		var o operation
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", m, path, err)
		}
		out, err := d.operation(m, path, &o, shared, security)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", m, path, err)
		}
		ops = append(ops, out)
		tags = append(tags, first(o.Tags))
	}
	return ops, tags, nil
}

func (d *document) operation(method, path string, o *operation, shared []*parameter, security []map[string][]string) (op, error) {
	out := op{ID: o.OperationID, Method: strings.ToUpper(method), Path: path, Summary: o.Summary,
		Description: text(o.Description), Deprecated: o.Deprecated}
	if out.ID == "" {
		out.ID = slug(method + " " + path)
	}
	if o.Security != nil {
		security = o.Security
	}
	for _, req := range security {
		for name := range req {
			out.Security = append(out.Security, name)
		}
	}
	slices.Sort(out.Security)
	for _, p := range append(shared, o.Parameters...) {
		p, err := d.param(p)
		if err != nil {
			return op{}, err
		}
		out.Params = append(out.Params, row{Name: p.Name, In: p.In, Type: typeOf(p.Schema), Required: p.Required,
			Description: text(p.Description) + constraints(p.Schema)})
	}
	rb, err := d.body(o.RequestBody)
	if err != nil {
		return op{}, err
	}
	if rb != nil {
		out.Body = &body{Description: text(rb.Description), Required: rb.Required, Media: mediaOf(rb.Content)}
	}
	for _, r := range o.Responses {
		res, err := d.response(r.Value)
		if err != nil {
			return op{}, err
		}
		rv := resp{Status: r.Key, Description: text(res.Description), Media: mediaOf(res.Content)}
		for _, h := range res.Headers {
			rv.Headers = append(rv.Headers, row{Name: h.Key, Type: typeOf(h.Value.Schema), Description: text(h.Value.Description)})
		}
		out.Responses = append(out.Responses, rv)
	}
	return out, nil
}

func mediaOf(content ordered[*mediaType]) []media {
	var out []media
	for _, c := range content {
		m := media{Type: c.Key, Example: example(c.Value.Example, c.Value.Examples, c.Value.Schema)}
		if s := c.Value.Schema; s != nil {
			if s.Ref != "" || len(s.Properties) == 0 {
				m.Rows = []row{{Type: typeOf(s), Description: text(s.Description)}}
			} else {
				m.Rows = properties(s, 0)
			}
		}
		out = append(out, m)
	}
	return out
}

// example is the first example given: the media type's, its named ones', or
// the schema's, indented.
func example(one json.RawMessage, named ordered[*exampleValue], s *schema) string {
	raw := one
	if len(raw) == 0 && len(named) > 0 && named[0].Value != nil {
		raw = named[0].Value.Value
	}
	if len(raw) == 0 && s != nil && len(s.Examples) > 0 {
		raw = s.Examples[0]
	}
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// slug makes an HTML id of a name: letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
