package exporter

import "github.com/cks-drift-exporter/cks-drift-exporter/collector"

// nodeList is a node listing as the drift check takes it: the names in order, and the kubelet
// version of each node whose source reported one (none for kubectl's "-o name" output).
func nodeList(nodes []collector.Node) collector.NodeList {
	names := make([]string, len(nodes))
	var versions map[string]string
	for i, n := range nodes {
		names[i] = n.Name
		if n.KubeletVersion == "" {
			continue
		}
		if versions == nil {
			versions = make(map[string]string, len(nodes))
		}
		versions[n.Name] = n.KubeletVersion
	}
	return collector.NodesRead(names, versions)
}
