package sshtest

import (
	"maps"
	"strings"
)

// SetVersions sets the kubelet version each node reports (status.nodeInfo.kubeletVersion); a
// node without one prints "<none>", as kubectl does for a missing field. Only a command with
// custom columns prints versions.
func (s *Server) SetVersions(versions map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions = maps.Clone(versions)
}

// nodeOutput is what kubectl prints for nodes: with "-o custom-columns=NAME:...,VERSION:..." and
// --no-headers, one line per node with the columns aligned as kubectl's printer aligns them
// (k8s.io/cli-runtime's printers.GetNewTabWriter: minimum cell width 6, padding 3 spaces, none
// after the last column); with
// "-o name", one "node/<name>" line per node.
func nodeOutput(command string, nodes []string, versions map[string]string) string {
	var b strings.Builder
	if !strings.Contains(command, "custom-columns=") {
		for _, n := range nodes {
			b.WriteString("node/" + n + "\n")
		}
		return b.String()
	}
	width := 6
	for _, n := range nodes {
		width = max(width, len(n)+3)
	}
	for _, n := range nodes {
		v := versions[n]
		if v == "" {
			v = "<none>"
		}
		b.WriteString(n + strings.Repeat(" ", width-len(n)) + v + "\n")
	}
	return b.String()
}
