package httpx

import "net/url"

// Bounds of a list's limit parameter, the same on every surface (docs/api.md 4.2
// and 8): 1..100, default 10.
const (
	DefaultListLimit = 10
	MaxListLimit     = 100
)

// LimitParam reads a list's page size parameter name within the list bounds.
func LimitParam(q url.Values, name string) (int, error) {
	return IntParam(q, name, DefaultListLimit, 1, MaxListLimit)
}

// List is the plain list envelope {object: "list", data, has_more}.
type List[T any] struct {
	Object  string `json:"object"`
	Data    []T    `json:"data"`
	HasMore bool   `json:"has_more"`
}

// ListOf wraps items in the list envelope; nil items are an empty array.
func ListOf[T any](items []T, more bool) List[T] {
	if items == nil {
		items = []T{}
	}
	return List[T]{Object: "list", Data: items, HasMore: more}
}
