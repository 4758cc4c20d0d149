package mariadbtest

import "time"

// KubernetesVersion is a kubernetes_supported_version row: a Kubernetes version CKS can deploy,
// with its semantic version. Removed is deleteKubernetesSupportedVersion's removed column.
type KubernetesVersion struct {
	ID              int64
	UUID            string
	Name            string
	SemanticVersion string
	Created         time.Time
	Removed         bool
}

// AddKubernetesVersion adds a version named as addKubernetesSupportedVersion names it,
// "v<semantic version>".
func (w *World) AddKubernetesVersion(semantic string) *KubernetesVersion {
	v := &KubernetesVersion{ID: w.id("kubernetes_version"), Name: "v" + semantic, SemanticVersion: semantic,
		Created: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)}
	v.UUID = uuid(9, v.ID)
	w.KubernetesVersions = append(w.KubernetesVersions, v)
	return v
}

// versionID is a cluster's kubernetes_version_id: NULL without a version.
func versionID(v *KubernetesVersion) any {
	if v == nil {
		return nil
	}
	return v.ID
}

// nullString writes "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
