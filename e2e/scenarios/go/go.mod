module smsgw.test/e2e-scenario

go 1.23

require github.com/smsgw/smsgw-go v0.0.0

replace github.com/smsgw/smsgw-go => ../../../clients/go
