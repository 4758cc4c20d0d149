package exporter

import "github.com/cks-drift-exporter/cks-drift-exporter/collector"

// nodeList is a node listing as the drift check takes it: the names in order, and the kubelet
// version of each node whose source reported one (none for kubectl's "-o name" output).
func nodeList(nodes []collector.Node) collector.NodeList {
	nl := collector.NodeList{Names: make([]string, len(nodes))}
	for i, n := range nodes {
		nl.Names[i] = n.Name
		if n.KubeletVersion == "" {
			continue
		}
		if nl.Versions == nil {
			nl.Versions = make(map[string]string, len(nodes))
		}
		nl.Versions[n.Name] = n.KubeletVersion
	}
	return nl
}
