module github.com/optalloc/optalloc

go 1.26

require (
	github.com/go-air/gini v1.0.4 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
