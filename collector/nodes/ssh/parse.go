package ssh

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// maxNodeName is the Kubernetes limit for a node name (a DNS-1123 subdomain).
const maxNodeName = 253

// nodeName is Kubernetes' DNS-1123 subdomain rule, as IsDNS1123Subdomain applies it.
var nodeName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// versionField is what a kubelet version column may hold to be kept: the characters of a
// semantic version with its pre-release and build parts, and '_' and '~' that some builds use.
var versionField = regexp.MustCompile(`^[0-9A-Za-z.+_~-]+$`)

// ParseNodes reads the node list a control node printed, one node per line, in either form:
//
//   - "<name> <kubelet version>", what the default ssh.kubectl_command prints ("kubectl get nodes
//     --no-headers -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion",
//     columns aligned with spaces). "<none>", kubectl's word for a missing field, a version of
//     other characters or longer than collector.MaxVersionBytes, is an unknown version: the
//     node counts, its version is not compared.
//   - "node/<name>", what "kubectl get nodes -o name" prints: no version.
//
// Blank lines and surrounding space (CRLF included) are ignored, duplicates dropped (the first
// line of a name wins), order kept. Any other line (one field that is not node/<name>, three
// fields, an invalid name), or no node at all, is an error and no list is returned: a
// half-understood answer taken for the truth would report healthy VMs as "not a node". More than
// maxNodes node lines is an error too (reason too_many_nodes), found without reading further.
func ParseNodes(out []byte, maxNodes int) ([]collector.Node, error) {
	var nodes []collector.Node
	seen := make(map[string]bool)
	lines, rest := 0, string(out)
	for i := 0; rest != ""; i++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		node, ok := parseLine(line)
		if !ok {
			return nil, withReason(reasonBadOutput,
				fmt.Errorf("line %d is not <name> <version> or node/<name>: %q", i+1, shorten(line)))
		}
		if lines++; lines > maxNodes {
			return nil, withReason(reasonTooManyNodes,
				fmt.Errorf("kubectl listed more than %d nodes", maxNodes))
		}
		if !seen[node.Name] {
			seen[node.Name] = true
			nodes = append(nodes, node)
		}
	}
	if len(nodes) == 0 {
		// A working control node always lists at least itself.
		return nil, withReason(reasonBadOutput, errors.New("kubectl listed no nodes"))
	}
	return nodes, nil
}

// parseLine reads one trimmed, non-blank line.
func parseLine(line string) (collector.Node, bool) {
	var n collector.Node
	if name, ok := strings.CutPrefix(line, "node/"); ok {
		n.Name = name
	} else {
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return n, false
		}
		n.Name = fields[0]
		if v := fields[1]; len(v) <= collector.MaxVersionBytes && versionField.MatchString(v) {
			n.KubeletVersion = v
		}
	}
	if len(n.Name) > maxNodeName || !nodeName.MatchString(n.Name) {
		return n, false
	}
	return n, true
}

// shorten keeps error messages readable when a line is a whole page of junk.
func shorten(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
