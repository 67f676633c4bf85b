package openapitest

import (
	"fmt"
	"sort"
	"strings"
)

// Documented lists every (operation, status) pair of the document's paths, sorted.
func (c *Checker) Documented() []Pair {
	var out []Pair
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			if op.Responses == nil || op.Responses.Codes == nil {
				continue
			}
			for status := range op.Responses.Codes.KeysFromOldest() {
				out = append(out, Pair{strings.ToUpper(method) + " " + path, status})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Operation != out[j].Operation {
			return out[i].Operation < out[j].Operation
		}
		return out[i].Status < out[j].Status
	})
	return out
}

// Report summarises what the checked exchanges covered: operations with at least
// one exchange, documented (operation, status) pairs seen, and the pairs not seen,
// grouped by operation.
func (c *Checker) Report() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	pairs := c.Documented()
	ops, opsSeen := map[string]bool{}, map[string]bool{}
	missing := map[string][]string{}
	var order []string
	seen := 0
	for _, p := range pairs {
		if !ops[p.Operation] {
			order = append(order, p.Operation)
		}
		ops[p.Operation] = true
		if c.seen[p] > 0 {
			seen++
			opsSeen[p.Operation] = true
		} else {
			missing[p.Operation] = append(missing[p.Operation], p.Status)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "OpenAPI coverage: %d of %d operations exercised; %d of %d documented (operation, status) pairs seen.\n",
		len(opsSeen), len(ops), seen, len(pairs))
	if len(missing) > 0 {
		b.WriteString("Not seen:\n")
		for _, op := range order {
			if st := missing[op]; len(st) > 0 {
				mark := ""
				if !opsSeen[op] {
					mark = " (operation never exercised)"
				}
				fmt.Fprintf(&b, "  %s: %s%s\n", op, strings.Join(st, " "), mark)
			}
		}
	}
	return b.String()
}

// Operation is one operation of the document, as a test drives it.
type Operation struct {
	ID       string          // operationId
	Method   string          // GET, POST, …
	Path     string          // the path template
	Security [][]string      // the alternatives, each the schemes it needs together; none: no authentication
	Body     bool            // it takes a request body
	Statuses map[string]bool // the statuses it documents
}

// Operations lists the document's operations in path order.
func (c *Checker) Operations() []Operation {
	var out []Operation
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			o := Operation{ID: op.OperationId, Method: strings.ToUpper(method), Path: path,
				Body: op.RequestBody != nil, Statuses: map[string]bool{}}
			for _, req := range op.Security {
				var names []string
				if req.Requirements != nil {
					for name := range req.Requirements.KeysFromOldest() {
						names = append(names, name)
					}
				}
				sort.Strings(names)
				o.Security = append(o.Security, names)
			}
			if op.Responses != nil && op.Responses.Codes != nil {
				for status := range op.Responses.Codes.KeysFromOldest() {
					o.Statuses[status] = true
				}
			}
			out = append(out, o)
		}
	}
	return out
}
