package deploytest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// manifests are the objects of one rendering, decoded.
type manifests struct {
	statefulSet    *appsv1.StatefulSet
	services       []*corev1.Service
	secrets        map[string]*corev1.Secret
	configMaps     []*corev1.ConfigMap
	networkPolicy  *networkingv1.NetworkPolicy
	serviceAccount *corev1.ServiceAccount
	pdb            *policyv1.PodDisruptionBudget
	serviceMonitor *monitoringv1.ServiceMonitor
	prometheusRule *monitoringv1.PrometheusRule
}

// decodeStrict decodes every document of a rendering with the API types of Kubernetes and of
// the Prometheus operator, failing on an unknown or duplicate field or an unknown kind.
func decodeStrict(t *testing.T, rendered string) manifests {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := monitoringv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	m := manifests{secrets: make(map[string]*corev1.Secret)}
	for i, doc := range regexp.MustCompile(`(?m)^---$`).Split(rendered, -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		obj, gvk, err := decoder.Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("document %d: %v\n%s", i, err, doc)
		}
		switch o := obj.(type) {
		case *appsv1.StatefulSet:
			m.statefulSet = o
		case *corev1.Service:
			m.services = append(m.services, o)
		case *corev1.Secret:
			m.secrets[o.Name] = o
		case *corev1.ConfigMap:
			m.configMaps = append(m.configMaps, o)
		case *networkingv1.NetworkPolicy:
			m.networkPolicy = o
		case *corev1.ServiceAccount:
			m.serviceAccount = o
		case *policyv1.PodDisruptionBudget:
			m.pdb = o
		case *monitoringv1.ServiceMonitor:
			m.serviceMonitor = o
		case *monitoringv1.PrometheusRule:
			m.prometheusRule = o
		default:
			t.Errorf("document %d: unexpected %s", i, gvk)
		}
	}
	return m
}

// TestRenderedManifests renders each valid value set, decodes it strictly and checks what the
// chart promises: replicas and shards, secrets mounted, state volume, non-root read-only pods,
// the scrape job's name, the NetworkPolicy.
func TestRenderedManifests(t *testing.T) {
	for _, tc := range []struct {
		values      string
		replicas    int32
		sharded     bool
		persistent  bool
		secretName  string
		egressRules int
	}{
		{"one-replica.yaml", 1, true, true, fullname + "-secrets", 0},
		{"three-shards.yaml", 3, true, true, fullname + "-secrets", 0},
		{"three-alertmanager.yaml", 3, false, false, "cks-drift-keys", 2},
	} {
		t.Run(tc.values, func(t *testing.T) {
			m := decodeStrict(t, render(t, tc.values))
			sts := m.statefulSet
			if sts == nil || m.serviceMonitor == nil || m.prometheusRule == nil || m.networkPolicy == nil || len(m.services) != 1 {
				t.Fatalf("want a StatefulSet, one Service, a ServiceMonitor, a PrometheusRule and a NetworkPolicy; got %+v", m)
			}
			if sts.Name != fullname || *sts.Spec.Replicas != tc.replicas || sts.Spec.ServiceName != m.services[0].Name {
				t.Errorf("StatefulSet %s replicas %d service %s; want %s, %d, %s", sts.Name, *sts.Spec.Replicas, sts.Spec.ServiceName, fullname, tc.replicas, m.services[0].Name)
			}
			pod := sts.Spec.Template.Spec
			c := pod.Containers[0]
			if got := slices.Contains(c.Args, "--check.shard-from-hostname"); got != tc.sharded {
				t.Errorf("args %q: --check.shard-from-hostname %v, want %v", c.Args, got, tc.sharded)
			}
			checkSecurity(t, pod)
			if got := len(sts.Spec.VolumeClaimTemplates) == 1; got != tc.persistent {
				t.Errorf("volume claim template: %v, want %v", got, tc.persistent)
			}
			if !tc.persistent && !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == "state" && v.EmptyDir != nil }) {
				t.Error("no emptyDir state volume without persistence")
			}
			if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == tc.secretName }) {
				t.Errorf("no volume of Secret %s", tc.secretName)
			}
			cfg := exporterConfig(t, m, tc.values, tc.sharded, tc.replicas)
			if cfg.Storage.Path != "/var/lib/cks-drift-exporter/state.db" || !slices.ContainsFunc(c.VolumeMounts, func(v corev1.VolumeMount) bool {
				return v.Name == "state" && v.MountPath == filepath.Dir(cfg.Storage.Path)
			}) {
				t.Errorf("storage.path %s is not on the state volume %+v", cfg.Storage.Path, c.VolumeMounts)
			}

			// The rules select serviceMonitor.jobName (cks-drift by default): the
			// ServiceMonitor takes the job from the Service label it names.
			if job := scrapeJob(m); job != "cks-drift" {
				t.Errorf("the scrape job would be %q, want cks-drift", job)
			}
			if got := len(m.networkPolicy.Spec.Egress); got != tc.egressRules {
				t.Errorf("NetworkPolicy egress rules %d, want %d", got, tc.egressRules)
			}
			if len(m.networkPolicy.Spec.Ingress) != 1 || m.networkPolicy.Spec.Ingress[0].Ports[0].Port.String() != "metrics" {
				t.Errorf("NetworkPolicy ingress %+v, want the metrics port only", m.networkPolicy.Spec.Ingress)
			}
		})
	}
}

// scrapeJob is the job label Prometheus gives the ServiceMonitor's targets.
func scrapeJob(m manifests) string {
	return m.services[0].Labels[m.serviceMonitor.Spec.JobLabel]
}

// checkSecurity: the pod runs as a non-root user on a read-only root filesystem, with no
// capabilities and no service account token.
func checkSecurity(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	psc, sc := pod.SecurityContext, pod.Containers[0].SecurityContext
	if psc == nil || sc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod security context %+v: want a non-root user", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v: want a read-only root filesystem, no privilege escalation, no capabilities", sc)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the service account token is mounted")
	}
	// Pod Security "restricted": a RuntimeDefault seccomp profile and only these volume types.
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v: want seccompProfile RuntimeDefault", psc)
	}
	for _, v := range pod.Volumes {
		if v.Secret == nil && v.ConfigMap == nil && v.EmptyDir == nil && v.PersistentVolumeClaim == nil && v.Projected == nil && v.DownwardAPI == nil {
			t.Errorf("volume %s is of a type Pod Security restricted refuses", v.Name)
		}
	}
}

// exporterConfig loads the rendered configuration with the exporter's own loader, with the
// Secret's files where the chart mounts them, and takes each replica's shard from its pod name
// as --check.shard-from-hostname does.
func exporterConfig(t *testing.T, m manifests, values string, sharded bool, replicas int32) *config.Config {
	t.Helper()
	name := m.statefulSet.Name
	cs := m.secrets[name+"-config"]
	if cs == nil {
		t.Fatalf("no Secret %s-config", name)
	}
	dir := t.TempDir()
	secrets := map[string]string{"api-key": "k", "secret-key": "s", "ssh-private-key": "key", "webhook-token": "t"}
	if s := m.secrets[name+"-secrets"]; s != nil {
		secrets = s.StringData
	}
	for name, value := range secrets {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	text := strings.ReplaceAll(cs.StringData["cks-drift-exporter.yml"], "/etc/cks-drift-exporter/secrets", dir)
	path := filepath.Join(dir, "cks-drift-exporter.yml")
	cfg, err := config.Parse([]byte(text), path)
	if err != nil {
		t.Fatalf("%s: the rendered configuration does not load: %v\n%s", values, err, text)
	}
	if sharded && cfg.Check.TotalShards != int(replicas) {
		t.Errorf("check.total_shards %d, want %d", cfg.Check.TotalShards, replicas)
	}
	if !sharded && cfg.Check.TotalShards != 1 {
		t.Errorf("check.total_shards %d unsharded, want 1", cfg.Check.TotalShards)
	}
	for i := range replicas {
		pod := fmt.Sprintf("%s-%d", m.statefulSet.Name, i)
		n, err := config.OrdinalFromHostname(pod)
		if err != nil || n != int(i) {
			t.Fatalf("pod %s: ordinal %d, %v", pod, n, err)
		}
		if sharded {
			if err := cfg.SetShard(n); err != nil {
				t.Errorf("pod %s: %v", pod, err)
			}
		}
	}
	return cfg
}
