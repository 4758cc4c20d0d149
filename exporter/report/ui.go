package report

import (
	"net/url"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// CloudStack's UI (4.15.0.0 onwards, the Vue UI) routes in the fragment: ui/src/router/index.js
// makes its router with createWebHashHistory, and generateRouterMap in ui/src/config/router.js
// gives every section's child a detail route '/' + child.name + '/:id'; the children of
// ui/src/config/section/compute.js are named 'vm' (instances) and 'kubernetes' (CKS clusters).
// So a cluster is <ui>#/kubernetes/<uuid> and a VM <ui>#/vm/<uuid>.

// clusterUIURL returns the page of a cluster in the UI at base, "" without a base or a uuid.
func clusterUIURL(base, id string) string {
	return uiURL(base, "kubernetes", id)
}

// vmUIURL returns the page of a finding's VM, for the kinds whose VM is there to be shown: not
// an expunged VM, not a map row's number, not a node's name.
func vmUIURL(base string, f collector.Finding) string {
	if f.Kind == collector.KindMappedVMExpunged {
		return ""
	}
	return uiURL(base, "vm", f.VMID)
}

// uiURL puts only uuid-shaped ids into links, so that nothing a tenant names becomes part of one.
func uiURL(base, section, id string) string {
	if base == "" || !collector.UUIDShaped(id) {
		return ""
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + "#/" + section + "/" + url.PathEscape(id)
}
