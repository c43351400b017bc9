module github.com/tsarrow/tsarrow

go 1.26

require (
	github.com/apache/arrow-go/v18 v18.9.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)
