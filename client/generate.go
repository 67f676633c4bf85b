// Package client is a Go client of Kassa's HTTP API, generated from the OpenAPI
// document (api/openapi/openapi.json) by oapi-codegen, pinned in go.mod's tool
// directive. Do not edit client.gen.go: change the document and run
//
//	go generate ./client
//
// CI regenerates it and fails when the committed file differs.
//
// NewClientWithResponses(baseURL, WithRequestEditorFn(...)) returns typed
// answers per status; see examples/ for a program that creates an invoice.
package client

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../api/openapi/openapi.json
