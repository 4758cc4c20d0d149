package api

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// Kubernetes versions change rarely: an admin adds one before upgrading clusters to it, and a
// version's semantic version never changes (updateKubernetesSupportedVersion only changes its
// state, KubernetesVersionManagerImpl at 4.14.0.0 and 4.19.0.0). So the versions are listed at
// the first cycle and then only again
//   - once versionsMaxAge has passed since the last listing, and
//   - when a cluster names a version id the last listing did not have (a version added and a
//     cluster upgraded to it), or the last listing failed, but at most once per versionsRetry.
//
// Until then a cluster whose version is not known has none, and its kubelets are not compared.
const (
	versionsMaxAge = 24 * time.Hour
	versionsRetry  = 15 * time.Minute
)

// wireVersion is the part of KubernetesSupportedVersionResponse the check reads. Every release
// line from 4.14.0.0 sends id and semanticversion under these names (ApiConstants.SEMANTIC_VERSION
// is "semanticversion" at 4.14.0.0, 4.17.0.0 and 4.19.0.0); releases add fields
// (supportsautoscaling 4.16, created 4.18, directdownload 4.19) that are not read.
type wireVersion struct {
	ID              text `json:"id"`
	SemanticVersion text `json:"semanticversion"`
}

// versionCache remembers the semantic version of each Kubernetes version id.
type versionCache struct {
	mu       sync.Mutex
	byID     map[string]string
	listed   time.Time // the last listing tried, successful or not
	ok       bool      // whether it succeeded
	failures int       // listings failed in a row, for the recovery line
}

// lookup returns the semantic version of every id it knows, listing the versions again first
// when the rules above say so. A failed listing does not fail the inventory: the check then only
// goes without the version comparison. It is logged at WARN when it starts failing and at INFO
// when it works again.
func (v *versionCache) lookup(c *cs.CloudStackClient, size int, ids []string, now time.Time, log *slog.Logger) map[string]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	missing := false
	for _, id := range ids {
		if _, ok := v.byID[id]; id != "" && !ok {
			missing = true
			break
		}
	}
	age := now.Sub(v.listed)
	due := v.listed.IsZero() || age >= versionsMaxAge || ((missing || !v.ok) && age >= versionsRetry)
	if !due {
		return v.byID
	}
	v.listed = now
	byID, err := listVersions(c, size)
	if err != nil {
		v.ok = false
		if v.failures++; v.failures == 1 {
			log.Warn("Could not list the Kubernetes versions, kubelet versions are not compared with them until it works",
				"retry_after", versionsRetry, "err", err)
		}
		return v.byID
	}
	if v.failures > 0 {
		log.Info("Listed the Kubernetes versions again, kubelet versions are compared with them",
			"failed_listings", v.failures, "versions", len(byID))
	}
	v.ok, v.failures, v.byID = true, 0, byID
	return v.byID
}

// listVersions pages through listKubernetesSupportedVersions. The releases differ (read at
// KubernetesVersionManagerImpl.listKubernetesSupportedVersions): 4.14.0.0 ignores page and
// pagesize and answers the whole list on every page (kubernetesSupportedVersionDao.listAll());
// 4.15.0.0 on pages with a Filter of them (as at 4.17.0.0 and 4.19.0.0). Up to 4.19.0.0 count is
// the items of the page (setResponses without a total), from 4.19.1.0 the total (searchAndCount,
// apache/cloudstack#8701), and 4.14.0.0's whole list on every page makes neither reliable, so
// count is not read (cloudstackapi.Unread): the listing ends at a short page, at a page larger than
// asked for (a release that does not page), or at a page that adds no new id (one that repeats the
// whole list).
func listVersions(c *cs.CloudStackClient, size int) (map[string]string, error) {
	versions, err := cloudstackapi.List(cloudstackapi.Listing[wireVersion, json.RawMessage]{
		What: "kubernetes versions", Size: size, Count: cloudstackapi.Unread,
		ID:      func(v wireVersion) string { return string(v.ID) },
		Request: func(page, size int) (json.RawMessage, error) { return requestVersions(c, page, size) },
		Decode: func(body json.RawMessage) (int, []wireVersion, error) {
			return decodeList[wireVersion](body, "kubernetessupportedversion")
		},
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(versions))
	for _, v := range versions {
		out[string(v.ID)] = string(v.SemanticVersion)
	}
	return out, nil
}

// requestVersions asks for one page of listKubernetesSupportedVersions through cloudstack-go
// v2.19.0, which signs and sends it. Its typed ListKubernetesSupportedVersions is not used: its
// strict struct would fail a whole page on one field of an unexpected type, as the SDK's structs
// of the other lists do (wire.go), and only two fields are needed. The command has no listall or
// projectid: every caller sees every version.
func requestVersions(c *cs.CloudStackClient, page, size int) (json.RawMessage, error) {
	p := &cs.CustomServiceParams{}
	p.SetParam("page", page)
	p.SetParam("pagesize", size)
	var body json.RawMessage
	custom, _ := cs.NewCustomService(c).(*cs.CustomService)
	if err := custom.CustomRequest("listKubernetesSupportedVersions", p, &body); err != nil {
		return nil, err
	}
	return body, nil
}

// addVersions gives each cluster the semantic version of its Kubernetes version, where known.
func (s *Source) addVersions(c *cs.CloudStackClient, clusters []clusterRow) {
	ids := make([]string, 0, len(clusters))
	for _, r := range clusters {
		if r.versionID != "" {
			ids = append(ids, r.versionID)
		}
	}
	if len(ids) == 0 {
		return // nothing to compare: no request
	}
	byID := s.versions.lookup(c, s.opts.PageSize, ids, s.opts.Now(), s.opts.Logger)
	for i := range clusters {
		clusters[i].cluster.KubernetesVersion = byID[clusters[i].versionID]
	}
}
