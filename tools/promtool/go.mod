module smsgw.local/tools/promtool

go 1.25.0

require github.com/prometheus/prometheus v0.310.0 // indirect
