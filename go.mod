module github.com/fwsim/fwsim

go 1.26.0

require (
	github.com/google/gousb v1.1.3
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)
