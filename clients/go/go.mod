module github.com/smsgw/smsgw-go

go 1.23.0

require golang.org/x/crypto v0.36.0 
