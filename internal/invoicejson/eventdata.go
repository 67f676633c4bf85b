package invoicejson

import (
	"encoding/json"
	"reflect"

	"github.com/kassapay/kassa"
)

// EventData renders an event's object (kassa.NewEvent's data): an invoice, the
// commonest object, as its canonical object, appended directly; any other object
// as kassa.MarshalJSON renders it.
func EventData(object any) ([]byte, error) {
	if inv, ok := object.(*kassa.Invoice); ok && inv != nil {
		b, err := Marshal(inv)
		if err != nil {
			return nil, &json.MarshalerError{Type: reflect.TypeFor[*kassa.Invoice](), Err: err}
		}
		return b, nil
	}
	return kassa.MarshalJSON(object)
}
