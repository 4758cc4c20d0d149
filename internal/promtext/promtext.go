// Package promtext reads a text exposition into its samples, for tests that follow /metrics.
package promtext

import (
	"fmt"
	"strconv"
	"strings"
)

// Samples returns the samples of a text exposition as "name{labels}" -> value; comments and
// blank lines are skipped, a line that is not a sample is an error.
func Samples(body string) (map[string]float64, error) {
	out := make(map[string]float64)
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("not a sample: %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("not a sample: %q", line)
		}
		out[line[:i]] = v
	}
	return out, nil
}
