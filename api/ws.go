package api

// wsRoutes registers the WebSocket token endpoint and the event streams.
func (s *server) wsRoutes() {}
