package reference

import (
	"encoding/json"
	"html"
	"html/template"
	"slices"
	"strconv"
	"strings"
)

// maxDepth bounds how deep inline objects are expanded in a table; named
// schemas are links, so only anonymous nesting counts.
const maxDepth = 4

// properties are the rows of an object schema's properties (and those of the
// objects it combines with allOf), expanding inline objects and arrays of them.
func properties(s *schema, depth int) []row {
	if s == nil || depth > maxDepth {
		return nil
	}
	var rows []row
	for _, part := range s.AllOf {
		if part.Ref == "" {
			rows = append(rows, properties(part, depth)...)
		}
	}
	for _, p := range s.Properties {
		ps := p.Value
		rows = append(rows, row{Depth: depth, Name: p.Key, Type: typeOf(ps), Required: slices.Contains(s.Required, p.Key),
			Description: describe(ps)})
		switch {
		case ps.Ref == "" && len(ps.Properties) > 0:
			rows = append(rows, properties(ps, depth+1)...)
		case ps.Items != nil && ps.Items.Ref == "" && len(ps.Items.Properties) > 0:
			rows = append(rows, properties(ps.Items, depth+1)...)
		}
	}
	return rows
}

// typeOf names a schema's type for a reader, with links to named schemas:
// "string (uuid) | null", "array of <Invoice>", "one of <A> | <B>".
func typeOf(s *schema) template.HTML {
	return template.HTML(typeText(s)) // built from escaped parts only
}

func typeText(s *schema) string {
	if s == nil {
		return "any"
	}
	if s.Ref != "" {
		name := html.EscapeString(refName(s.Ref))
		return `<a href="#schema-` + slug(refName(s.Ref)) + `">` + name + `</a>`
	}
	for _, alt := range []struct {
		word string
		list []*schema
	}{{"one of ", s.OneOf}, {"any of ", s.AnyOf}} {
		if len(alt.list) > 0 {
			parts := make([]string, len(alt.list))
			for i, a := range alt.list {
				parts[i] = typeText(a)
			}
			return alt.word + strings.Join(parts, " | ")
		}
	}
	if len(s.AllOf) == 1 && len(s.Properties) == 0 {
		return typeText(s.AllOf[0])
	}
	if len(s.Type) == 0 {
		if len(s.Properties) > 0 {
			return "object"
		}
		if len(s.Const) > 0 {
			return "constant"
		}
		return "any"
	}
	parts := make([]string, len(s.Type))
	for i, t := range s.Type {
		switch t {
		case "array":
			parts[i] = "array of " + typeText(s.Items)
		default:
			parts[i] = html.EscapeString(t)
			if s.Format != "" {
				parts[i] += " (" + html.EscapeString(s.Format) + ")"
			}
		}
	}
	return strings.Join(parts, " | ")
}

// describe is a property's description followed by its constraints: the
// values it may take, its default, its pattern and bounds.
func describe(s *schema) template.HTML { return text(s.Description) + constraints(s) }

// constraints says what values a schema allows, as a paragraph of notes.
func constraints(s *schema) template.HTML {
	if s == nil {
		return ""
	}
	var notes []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = "<code>" + html.EscapeString(literal(e)) + "</code>"
		}
		notes = append(notes, "One of "+strings.Join(vals, ", ")+".")
	}
	if len(s.Const) > 0 {
		notes = append(notes, "Always <code>"+html.EscapeString(literal(s.Const))+"</code>.")
	}
	if len(s.Default) > 0 {
		notes = append(notes, "Default <code>"+html.EscapeString(literal(s.Default))+"</code>.")
	}
	if s.Pattern != "" {
		notes = append(notes, "Pattern <code>"+html.EscapeString(s.Pattern)+"</code>.")
	}
	if s.Minimum != nil || s.Maximum != nil {
		notes = append(notes, "Range "+bound(s.Minimum, "…")+" to "+bound(s.Maximum, "…")+".")
	}
	if s.MaxLength != nil {
		notes = append(notes, "At most "+strconv.Itoa(*s.MaxLength)+" characters.")
	}
	if s.MaxItems != nil {
		notes = append(notes, "At most "+strconv.Itoa(*s.MaxItems)+" items.")
	}
	if s.ReadOnly {
		notes = append(notes, "Read-only.")
	}
	if s.Deprecated {
		notes = append(notes, "Deprecated.")
	}
	if len(notes) == 0 {
		return ""
	}
	return template.HTML(`<p class="notes">` + strings.Join(notes, " ") + `</p>`) // each note escaped above
}

// literal is a JSON value as written: strings without their quotes.
func literal(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func bound(n *json.Number, none string) string {
	if n == nil {
		return none
	}
	return html.EscapeString(n.String())
}

// text renders a description: paragraphs split on blank lines, `code` in
// backticks, everything else escaped.
func text(s string) template.HTML {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, para := range strings.Split(s, "\n\n") {
		b.WriteString("<p>")
		for i, part := range strings.Split(para, "`") {
			if i%2 == 1 {
				b.WriteString("<code>" + html.EscapeString(part) + "</code>")
			} else {
				b.WriteString(html.EscapeString(part))
			}
		}
		b.WriteString("</p>")
	}
	return template.HTML(b.String()) // every part escaped above
}
