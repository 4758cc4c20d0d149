package ssh

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// maxNodeName is the Kubernetes limit for a node name (a DNS-1123 subdomain).
const maxNodeName = 253

// nodeName is Kubernetes' DNS-1123 subdomain rule, as IsDNS1123Subdomain applies it.
var nodeName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// ParseNodes reads the output of "kubectl get nodes -o name": one "node/<name>" per line, blank
// lines and surrounding space (CRLF included) ignored, duplicates dropped, order kept. Any other
// line, or no node at all, is an error and no list is returned: a half-understood answer taken
// for the truth would report healthy VMs as "not a node". More than maxNodes node lines is an
// error too (reason too_many_nodes), found without reading further.
func ParseNodes(out []byte, maxNodes int) ([]string, error) {
	var nodes []string
	seen := make(map[string]bool)
	lines, rest := 0, string(out)
	for i := 0; rest != ""; i++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, ok := strings.CutPrefix(line, "node/")
		if !ok || len(name) > maxNodeName || !nodeName.MatchString(name) {
			return nil, withReason(reasonBadOutput,
				fmt.Errorf("line %d is not node/<name>: %q", i+1, shorten(line)))
		}
		if lines++; lines > maxNodes {
			return nil, withReason(reasonTooManyNodes,
				fmt.Errorf("kubectl listed more than %d nodes", maxNodes))
		}
		if !seen[name] {
			seen[name] = true
			nodes = append(nodes, name)
		}
	}
	if len(nodes) == 0 {
		// A working control node always lists at least itself.
		return nil, withReason(reasonBadOutput, errors.New("kubectl listed no nodes"))
	}
	return nodes, nil
}

// shorten keeps error messages readable when a line is a whole page of junk.
func shorten(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
