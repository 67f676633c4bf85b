// Package client is a Go client of Kassa's HTTP API, generated from the OpenAPI
// document (api/openapi/openapi.json in the server's module) by oapi-codegen.
// It is a module of its own, github.com/kassapay/kassa/client, whose only
// dependency is the generator's runtime:
//
//	go get github.com/kassapay/kassa/client
//
// Do not edit client.gen.go: change the document and run, at the server's root,
//
//	go generate ./api/openapi
//
// CI regenerates it and fails when the committed file differs.
//
// NewClientWithResponses(baseURL, WithRequestEditorFn(...)) returns typed
// answers per status; see examples/create-invoice for a program that creates an
// invoice, and Example for the shortest use.
package client
