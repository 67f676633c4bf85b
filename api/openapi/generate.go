package openapi

// The Go client (module github.com/kassapay/kassa/client, in client/) is generated
// from this document by oapi-codegen, pinned in this module's go.mod tool directive,
// so the client module itself needs only the generator's runtime:
//
//	go generate ./api/openapi
//
//go:generate go tool oapi-codegen -config ../../client/oapi-codegen.yaml -o ../../client/client.gen.go openapi.json
