//go:build tools

// Pins promtool, built by scripts/ensure-promtool.sh to check the chart's alert rules.
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
