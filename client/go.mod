module github.com/kassapay/kassa/client

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	github.com/oapi-codegen/runtime v1.8.0
)

require github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
