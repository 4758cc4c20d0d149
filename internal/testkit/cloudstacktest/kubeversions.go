package cloudstacktest

import "time"

// KubernetesVersion is a kubernetes_supported_version row (schema-41310to41400.sql): a
// Kubernetes version CKS can deploy, with its semantic version ("1.24.0"). Removed models the
// removed column, set by deleteKubernetesSupportedVersion.
type KubernetesVersion struct {
	InternalID      int64
	ID              string
	Name            string
	SemanticVersion string
	ZoneID          string // empty: every zone
	State           string // Enabled or Disabled
	Created         time.Time
	Removed         bool
}

// AddKubernetesVersion stores a copy of v and returns the stored row; a zero InternalID gets the
// next free id, an empty ID a fresh uuid, an empty Name "v<semantic version>" (as
// addKubernetesSupportedVersion names it) and an empty State Enabled.
func (w *World) AddKubernetesVersion(v KubernetesVersion) *KubernetesVersion {
	if v.InternalID == 0 {
		for _, o := range w.KubernetesVersions {
			v.InternalID = max(v.InternalID, o.InternalID)
		}
		v.InternalID++
	}
	if v.ID == "" {
		v.ID = w.newUUID()
	}
	if v.Name == "" {
		v.Name = "v" + v.SemanticVersion
	}
	if v.State == "" {
		v.State = "Enabled"
	}
	stored := v
	w.KubernetesVersions = append(w.KubernetesVersions, &stored)
	return &stored
}

// KubernetesVersionOf returns the version row with this semantic version, adding it when there
// is none, for tests that only care about the version a cluster runs.
func (w *World) KubernetesVersionOf(semantic string) *KubernetesVersion {
	for _, v := range w.KubernetesVersions {
		if v.SemanticVersion == semantic && !v.Removed {
			return v
		}
	}
	return w.AddKubernetesVersion(KubernetesVersion{SemanticVersion: semantic})
}

// kubernetesVersion finds a row that is not removed by uuid, as
// kubernetesSupportedVersionDao.findById does for createKubernetesClusterResponse.
func (w *World) kubernetesVersion(id string) *KubernetesVersion {
	for _, v := range w.KubernetesVersions {
		if id != "" && v.ID == id && !v.Removed {
			return v
		}
	}
	return nil
}

// kubernetesVersionJSON is KubernetesSupportedVersionResponse
// (plugins/integrations/kubernetes-service/src/main/java/org/apache/cloudstack/api/response/
// KubernetesSupportedVersionResponse.java). Every release line from 4.14.0.0 has id, name,
// semanticversion, the ISO's fields, zoneid, zonename, supportsha, state, mincpunumber and
// minmemory; supportsautoscaling arrives in 4.16.0.0, created in 4.18.0.0, directdownload in
// 4.19.0.0. semanticversion keeps its name on every line (ApiConstants.SEMANTIC_VERSION).
type kubernetesVersionJSON struct {
	ID                  string `json:"id"`
	Name                string `json:"name"`
	SemanticVersion     string `json:"semanticversion"`
	ZoneID              string `json:"zoneid,omitempty"`
	SupportsHA          bool   `json:"supportsha"`
	SupportsAutoscaling *bool  `json:"supportsautoscaling,omitempty"`
	State               string `json:"state"`
	MinCPU              int    `json:"mincpunumber"`
	MinMemory           int    `json:"minmemory"`
	Created             string `json:"created,omitempty"`
	DirectDownload      *bool  `json:"directdownload,omitempty"`
}

func (w *World) newKubernetesVersionJSON(v *KubernetesVersion) kubernetesVersionJSON {
	j := kubernetesVersionJSON{ID: v.ID, Name: v.Name, SemanticVersion: v.SemanticVersion, ZoneID: v.ZoneID,
		SupportsHA: true, State: v.State, MinCPU: 2, MinMemory: 2048}
	if w.since(16) {
		yes := true
		j.SupportsAutoscaling = &yes
	}
	if w.since(18) {
		j.Created = formatDate(v.Created)
	}
	if w.since(19) {
		no := false
		j.DirectDownload = &no
	}
	return j
}

// listKubernetesSupportedVersions lists the versions that are not removed, in id order, whatever
// their state and for any caller (KubernetesVersionManagerImpl.listKubernetesSupportedVersions
// filters neither). Filters: id, zoneid (that zone's versions and those of every zone). Paging by
// release:
//   - 4.14.0.0 lists them all with kubernetesSupportedVersionDao.listAll(): page and pagesize are
//     ignored, every page is the whole list;
//   - from 4.15.0.0 the search has a Filter of page and pagesize (cmd.getStartIndex(),
//     cmd.getPageSizeVal()), as at 4.19.0.0 and 4.19.1.0.
//
// Up to 4.19.0.0 count is the items of this page (createKubernetesSupportedVersionListResponse
// calls setResponses(list) without a total); from 4.19.1.0 the total (searchAndCount,
// apache/cloudstack#8701; countIsPageLength).
func (s *Server) listKubernetesSupportedVersions(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	if !s.world.since(15) {
		win = window{start: 0, limit: -1}
	}
	var out []*KubernetesVersion
	for _, v := range s.world.KubernetesVersions {
		switch {
		case v == nil || v.Removed:
		case p.Get("id") != "" && v.ID != p.Get("id"):
		case p.Get("zoneid") != "" && v.ZoneID != "" && v.ZoneID != p.Get("zoneid"):
		default:
			out = append(out, v)
		}
	}
	answer := listAnswerOf(r, win, "kubernetessupportedversion", out, s.world.newKubernetesVersionJSON)
	if s.world.countIsPageLength() && answer["count"] != nil {
		answer["count"] = len(answer["kubernetessupportedversion"].([]any)) + r.countDelta
	}
	return answer, nil
}
