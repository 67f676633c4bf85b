package kassa

// Encode renders the event's API JSON once and keeps it, so an event fanned out to
// many streams is encoded once; later calls return the kept bytes. Call it before
// the event is shared between goroutines.
func (e *Event) Encode() ([]byte, error) {
	if e.encoded == nil {
		b, err := e.MarshalJSON() // not json.Marshal: it would compact and HTML-escape the bytes again
		if err != nil {
			return nil, err
		}
		e.encoded = b
	}
	return e.encoded, nil
}
