module smsgw.test/e2e-scenario

go 1.23.0

require github.com/smsgw/smsgw-go v0.0.0

require golang.org/x/crypto v0.36.0 // indirect

replace github.com/smsgw/smsgw-go => ../../../clients/go
