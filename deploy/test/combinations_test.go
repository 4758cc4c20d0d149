package deploytest

// The value sets beyond replicas and sharding: a scrape job of one's own, TLS and basic auth,
// and the naming, image and scheduling knobs the prometheus-community charts have.

import (
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
)

// endpoint returns the ServiceMonitor's one endpoint.
func endpoint(t *testing.T, m manifests) monitoringv1.Endpoint {
	t.Helper()
	if m.serviceMonitor == nil || len(m.serviceMonitor.Spec.Endpoints) != 1 {
		t.Fatalf("want a ServiceMonitor with one endpoint, got %+v", m.serviceMonitor)
	}
	return m.serviceMonitor.Spec.Endpoints[0]
}

// hasMount reports whether the container mounts a volume of that name at that path, and the
// pod has such a volume from Secret secret ("" for any source).
func hasMount(pod corev1.PodSpec, name, path, secret string) bool {
	mounted := slices.ContainsFunc(pod.Containers[0].VolumeMounts, func(v corev1.VolumeMount) bool {
		return v.Name == name && v.MountPath == path && v.ReadOnly
	})
	return mounted && slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool {
		return v.Name == name && (secret == "" || v.Secret != nil && v.Secret.SecretName == secret)
	})
}

// TestCustomJob: the scrape job, interval, timeout, sample limit and relabelings of the values
// reach the ServiceMonitor and the Service label it takes the job from; the exporter is told
// the interval of check.interval; the PrometheusRule's rules select that job, and link the
// runbooks of prometheusRule.runbookBaseURL.
func TestCustomJob(t *testing.T) {
	m := decodeStrict(t, render(t, "custom-job.yaml"))
	if job := scrapeJob(m); job != "cloudstack-drift" {
		t.Errorf("scrape job %q, want cloudstack-drift", job)
	}
	ep := endpoint(t, m)
	if ep.Interval != "2m" || ep.ScrapeTimeout != "20s" || ep.Scheme == nil || ep.Scheme.String() != "http" {
		t.Errorf("endpoint interval %q, timeout %q, scheme %v; want 2m, 20s, http", ep.Interval, ep.ScrapeTimeout, ep.Scheme)
	}
	if l := m.serviceMonitor.Spec.SampleLimit; l == nil || *l != 50000 {
		t.Errorf("sampleLimit %v, want 50000", l)
	}
	if len(ep.RelabelConfigs) != 1 || ep.RelabelConfigs[0].TargetLabel != "cloud" ||
		len(ep.MetricRelabelConfigs) != 1 || ep.MetricRelabelConfigs[0].Action != "drop" {
		t.Errorf("relabelings %+v, metricRelabelings %+v: want the values' one of each", ep.RelabelConfigs, ep.MetricRelabelConfigs)
	}
	cfg := exporterConfig(t, m, "custom-job.yaml", true, 1)
	if cfg.Check.Interval.String() != "30m0s" {
		t.Errorf("check.interval %s, want 30m", cfg.Check.Interval)
	}

	var sawDown, sawAbsent bool
	for _, g := range m.prometheusRule.Spec.Groups {
		for _, r := range g.Rules {
			expr := r.Expr.String()
			if strings.Contains(expr, "cks-drift") {
				t.Errorf("%s: %q still names the default job", r.Alert, expr)
			}
			sawDown = sawDown || r.Alert == "CKSDriftExporterDown" && strings.Contains(expr, `up{job="cloudstack-drift"}`)
			sawAbsent = sawAbsent || r.Alert == "CKSDriftExporterAbsent" && strings.Contains(expr, `absent(up{job="cloudstack-drift"})`)
			if want := "https://wiki.example.com/ops/cks-drift-runbooks.md#" + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != want {
				t.Errorf("%s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
			}
		}
	}
	if !sawDown || !sawAbsent {
		t.Errorf("CKSDriftExporterDown (%v) and CKSDriftExporterAbsent (%v) must read up{job=\"cloudstack-drift\"}", sawDown, sawAbsent)
	}
	promtoolTest(t, m.prometheusRule.Spec, customJobTests)
}

// customJobTests are promtool tests of the rules rendered with job cloudstack-drift: its target
// down or gone alerts, a target of the default job's name does not count.
const customJobTests = `
  - interval: 1m
    input_series:
      - series: 'up{job="cloudstack-drift",instance="a"}'
        values: '0x20'
      - series: 'up{job="cks-drift",instance="z"}'
        values: '0x20'
    alert_rule_test:
      - eval_time: 10m
        alertname: CKSDriftExporterDown
        exp_alerts:
          - exp_labels: {severity: warning, job: cloudstack-drift, instance: a}
            exp_annotations:
              summary: "cks-drift-exporter a is down"
              description: "Prometheus could not scrape cks-drift-exporter at a (job cloudstack-drift) for 5 minutes."
              runbook_url: https://wiki.example.com/ops/cks-drift-runbooks.md#cksdriftexporterdown
  - interval: 1m
    input_series:
      - series: 'up{job="cks-drift",instance="z"}'
        values: '1x20'
    alert_rule_test:
      - eval_time: 15m
        alertname: CKSDriftExporterAbsent
        exp_alerts:
          - exp_labels: {severity: warning, job: cloudstack-drift}
            exp_annotations:
              summary: "No cks-drift-exporter target in Prometheus"
              description: "Prometheus has had no target of job cloudstack-drift for 10 minutes, so VM map drift of that cloud is not being checked or not being seen."
              runbook_url: https://wiki.example.com/ops/cks-drift-runbooks.md#cksdriftexporterabsent
`

// TestTLSAndBasicAuth: with TLS and basic auth the exporter gets a web configuration that
// promtool accepts (with a certificate where the TLS Secret is mounted), the ServiceMonitor
// scrapes over https with the Secret's CA, the service's name and a password, the probes only
// open the port (the kubelet has no password), and three replicas prefer three nodes.
func TestTLSAndBasicAuth(t *testing.T) {
	m := decodeStrict(t, render(t, "tls-basic-auth.yaml"))
	pod := m.statefulSet.Spec.Template.Spec
	c := pod.Containers[0]
	if !slices.Contains(c.Args, "--web.config.file=/etc/cks-drift-exporter/web/web-config.yml") {
		t.Errorf("args %q: no --web.config.file", c.Args)
	}
	if !hasMount(pod, "web-config", "/etc/cks-drift-exporter/web", fullname+"-web-config") || !hasMount(pod, "tls", "/etc/cks-drift-exporter/tls", "cks-drift-tls") {
		t.Errorf("volumes %+v, mounts %+v: want the web configuration and the TLS Secret mounted", pod.Volumes, c.VolumeMounts)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.TCPSocket == nil || c.LivenessProbe == nil || c.LivenessProbe.TCPSocket == nil {
		t.Errorf("probes %+v, %+v: want tcpSocket with basic auth", c.ReadinessProbe, c.LivenessProbe)
	}
	web := m.secrets[fullname+"-web-config"]
	if web == nil {
		t.Fatal("no web configuration Secret")
	}
	text := web.StringData["web-config.yml"]
	for _, want := range []string{"cert_file: /etc/cks-drift-exporter/tls/tls.crt", "key_file: /etc/cks-drift-exporter/tls/tls.key", "prometheus: $2a$10$", "X-Content-Type-Options: nosniff", "min_version: TLS12"} {
		if !strings.Contains(text, want) {
			t.Errorf("web-config.yml has no %q:\n%s", want, text)
		}
	}
	promtoolWebConfig(t, text)

	ep := endpoint(t, m)
	if ep.Scheme == nil || ep.Scheme.String() != "https" {
		t.Errorf("scheme %v, want https", ep.Scheme)
	}
	tls := ep.TLSConfig
	if tls == nil || tls.CA.Secret == nil || tls.CA.Secret.Name != "cks-drift-tls" || tls.CA.Secret.Key != "ca.crt" ||
		tls.ServerName == nil || *tls.ServerName != fullname+".monitoring.svc" {
		t.Errorf("tlsConfig %+v: want the CA ca.crt of cks-drift-tls and server name %s.monitoring.svc", tls, fullname)
	}
	if ba := ep.BasicAuth; ba == nil || ba.Username.Name != "cks-drift-scrape" || ba.Password.Key != "password" {
		t.Errorf("basicAuth %+v: want the values' Secret", ep.BasicAuth)
	}

	aff := pod.Affinity
	if aff == nil || aff.PodAntiAffinity == nil || len(aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("affinity %+v: want a soft pod anti-affinity with three replicas", aff)
	}
	term := aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
	if term.TopologyKey != "kubernetes.io/hostname" || term.LabelSelector.MatchLabels["app.kubernetes.io/instance"] != release {
		t.Errorf("anti-affinity term %+v: want the release's pods per host", term)
	}
	if m.pdb == nil || m.pdb.Spec.MaxUnavailable == nil || m.pdb.Spec.MaxUnavailable.IntValue() != 1 ||
		m.pdb.Spec.Selector.MatchLabels["app.kubernetes.io/instance"] != release {
		t.Errorf("PodDisruptionBudget %+v: want maxUnavailable 1 over the release's pods", m.pdb)
	}
}

// TestTLSOnly: without basic auth the probes still ask /-/ready and /-/healthy, over HTTPS, and
// a tlsConfig of the values wins over the chart's.
func TestTLSOnly(t *testing.T) {
	m := decodeStrict(t, render(t, "tls-only.yaml"))
	c := m.statefulSet.Spec.Template.Spec.Containers[0]
	for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Scheme != corev1.URISchemeHTTPS {
			t.Errorf("probe %+v: want httpGet over HTTPS", p)
		}
	}
	tls := endpoint(t, m).TLSConfig
	if tls == nil || tls.CA.ConfigMap == nil || tls.CA.ConfigMap.Name != "internal-ca" || *tls.ServerName != "cks-drift.example.com" {
		t.Errorf("tlsConfig %+v: want the values' own", tls)
	}
	if m.statefulSet.Spec.Template.Spec.Affinity != nil {
		t.Errorf("affinity %+v with one replica, want none", m.statefulSet.Spec.Template.Spec.Affinity)
	}
}

// TestDefaultsHaveNoWebConfig: as shipped, plain HTTP with HTTP probes and no web configuration.
func TestDefaultsHaveNoWebConfig(t *testing.T) {
	m := decodeStrict(t, render(t, "one-replica.yaml"))
	c := m.statefulSet.Spec.Template.Spec.Containers[0]
	if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--web.config.file") }) || m.secrets[fullname+"-web-config"] != nil {
		t.Errorf("args %q: a web configuration by default", c.Args)
	}
	if c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Scheme != corev1.URISchemeHTTP {
		t.Errorf("readiness probe %+v: want httpGet over HTTP", c.ReadinessProbe)
	}
	if sa := m.serviceAccount; sa == nil || sa.Name != fullname || sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken ||
		m.statefulSet.Spec.Template.Spec.ServiceAccountName != fullname {
		t.Errorf("ServiceAccount %+v: want %s without a token, used by the pods", sa, fullname)
	}
	if !strings.HasPrefix(c.Image, "ghcr.io/cks-drift-exporter/cks-drift-exporter:") {
		t.Errorf("image %s, want ghcr.io/cks-drift-exporter/cks-drift-exporter:<appVersion>", c.Image)
	}
}

// TestOverrides: fullnameOverride names every object, the image comes by digest from its
// registry, an existing service account, pod labels, a priority class, a hard anti-affinity,
// topology spread over the release's pods, and extra environment and volumes.
func TestOverrides(t *testing.T) {
	m := decodeStrict(t, render(t, "overrides.yaml"))
	sts := m.statefulSet
	pod := sts.Spec.Template.Spec
	c := pod.Containers[0]
	if sts.Name != "drift" || m.services[0].Name != "drift" || m.serviceMonitor.Name != "drift" || m.secrets["drift-config"] == nil {
		t.Errorf("names %s, %s, %s: want drift everywhere", sts.Name, m.services[0].Name, m.serviceMonitor.Name)
	}
	exporterConfig(t, m, "overrides.yaml", true, 2)
	if want := "registry.example.com/mirror/cks-drift-exporter@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"; c.Image != want {
		t.Errorf("image %s, want %s", c.Image, want)
	}
	if m.serviceAccount != nil || pod.ServiceAccountName != "cks-drift-runner" {
		t.Errorf("service account %q (created: %v), want cks-drift-runner, not created", pod.ServiceAccountName, m.serviceAccount != nil)
	}
	if sts.Spec.Template.Labels["team"] != "cloud" || sts.Spec.Selector.MatchLabels["team"] != "" || pod.PriorityClassName != "monitoring" {
		t.Errorf("pod labels %v (selector %v), priority class %q", sts.Spec.Template.Labels, sts.Spec.Selector.MatchLabels, pod.PriorityClassName)
	}
	if aff := pod.Affinity; aff == nil || aff.PodAntiAffinity == nil || len(aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Errorf("affinity %+v: want a required pod anti-affinity", pod.Affinity)
	}
	if len(pod.TopologySpreadConstraints) != 1 || pod.TopologySpreadConstraints[0].LabelSelector == nil ||
		pod.TopologySpreadConstraints[0].LabelSelector.MatchLabels["app.kubernetes.io/name"] != "cks-drift-exporter" {
		t.Errorf("topology spread %+v: want the values' constraint over the release's pods", pod.TopologySpreadConstraints)
	}
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "HTTPS_PROXY" }) || !hasMount(pod, "extra-ca", "/etc/cks-drift-exporter/ca", "") {
		t.Errorf("env %+v, mounts %+v: want the extra environment and volume", c.Env, c.VolumeMounts)
	}
	if m.pdb != nil {
		t.Error("a PodDisruptionBudget although podDisruptionBudget.enabled is false")
	}
}
