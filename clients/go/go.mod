module github.com/smsgw/smsgw-go

go 1.23
