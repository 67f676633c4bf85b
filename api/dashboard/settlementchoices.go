package dashboard

import (
	"slices"
	"strings"

	"github.com/kassapay/kassa"
)

// option is one choice of a select field.
type option struct {
	Value, Text string
	Selected    bool
}

// settlementChoices turns the settlement target's network and token inputs of
// view into lists of what the registry offers in each environment, the current
// value selected; a value the registry no longer offers stays listed, marked so,
// and selected. The merchant service still checks what is posted.
func (d *Dashboard) settlementChoices(view *settingsView) {
	for i := range view.Settlement {
		env := view.Settlement[i].Env
		for j := range view.Settlement[i].Fields {
			f := &view.Settlement[i].Fields[j]
			switch {
			case strings.HasSuffix(f.Name, ".network"):
				f.Options = d.networkOptions(env, f.Value)
			case strings.HasSuffix(f.Name, ".token_symbol"):
				f.Options = d.tokenOptions(env, f.Value)
			}
		}
	}
}

// networkOptions are env's networks by display name.
func (d *Dashboard) networkOptions(env kassa.Environment, current string) []option {
	var out []option
	if d.cfg.Registry != nil {
		for _, n := range d.cfg.Registry.Networks(env) {
			out = append(out, option{Value: n.Name, Text: n.DisplayName + " (" + n.Name + ")"})
		}
	}
	return choices(out, current)
}

// tokenOptions are env's token symbols, each with the networks it is on.
func (d *Dashboard) tokenOptions(env kassa.Environment, current string) []option {
	on := map[string][]string{}
	var symbols []string
	if d.cfg.Registry != nil {
		for _, t := range d.cfg.Registry.Tokens(env) {
			if _, seen := on[t.Symbol]; !seen {
				symbols = append(symbols, t.Symbol)
			}
			on[t.Symbol] = append(on[t.Symbol], t.Network)
		}
	}
	out := make([]option, 0, len(symbols))
	for _, s := range symbols {
		out = append(out, option{Value: s, Text: s + " (on " + strings.Join(on[s], ", ") + ")"})
	}
	return choices(out, current)
}

// choices puts "None" first and selects current, adding it when not offered.
func choices(offered []option, current string) []option {
	out := append([]option{{Value: "", Text: "None"}}, offered...)
	i := slices.IndexFunc(out, func(o option) bool { return o.Value == current })
	if i < 0 {
		out = append(out, option{Value: current, Text: current + " (no longer offered)"})
		i = len(out) - 1
	}
	out[i].Selected = true
	return out
}
