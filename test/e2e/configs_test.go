package e2e

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/examples"
	"github.com/cks-drift-exporter/cks-drift-exporter/rules"
)

// The shipped configurations are rewritten as YAML trees, not as text, so that a change of
// layout or comments in them cannot silently defeat a rewrite: a key the test expects and does
// not find fails the test. Everything not named below is kept as shipped.

// Test timings that replace the shipped ones, which are minutes and hours.
const (
	fastInterval = "1s" // scrape, rule evaluation and check cycle
	fastFor      = "2s" // for and keep_firing_for: two evaluations
	fastWait     = "1s" // group_wait and group_interval
	// fastRepeat is short, so that Alertmanager repeats the firing notification during the test
	// and the bridge's de-duplication is exercised by real repeats.
	fastRepeat = "2s"
)

// bridgeReceiver is the receiver of examples/alertmanager.yml that posts to the exporter.
const bridgeReceiver = "cks-drift-bridge"

// parseYAML returns the document node of data.
func parseYAML(t *testing.T, name string, data []byte) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: not a YAML mapping", name)
	}
	return &doc
}

// writeYAML writes a document node to dir/name and returns the path.
func writeYAML(t *testing.T, doc *yaml.Node, dir, name string) string {
	t.Helper()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		t.Fatalf("encode %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// field returns the value of key in mapping m, or nil.
func field(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mustField is field that fails the test when the key is missing.
func mustField(t *testing.T, file string, m *yaml.Node, path ...string) *yaml.Node {
	t.Helper()
	n := m
	for i, key := range path {
		if n = field(n, key); n == nil {
			t.Fatalf("%s: no %v: the test's rewrite no longer fits the file", file, path[:i+1])
		}
	}
	return n
}

// setScalar replaces the value of a scalar node, keeping its comments.
func setScalar(n *yaml.Node, value string) {
	n.Kind, n.Tag, n.Style, n.Value, n.Content = yaml.ScalarNode, "!!str", 0, value, nil
}

// scalars is a sequence of plain strings.
func scalars(values ...string) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, v := range values {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
	}
	return seq
}

// alertmanagerConfig writes examples/alertmanager.yml with its bridge blocks uncommented and
// three changes, and returns its path:
//   - the webhook URL of the cks-drift-bridge receiver points at the exporter under test (host
//     and port only: scheme and path stay as shipped, so a wrong path fails the test);
//   - its bearer token file is one holding the exporter's webhook token (the shipped
//     authorization is kept otherwise, so a missing one fails the test with a 401);
//   - group_wait, group_interval and repeat_interval of every route that sets them are seconds
//     instead of 30s/5m/4h, so that notifications and repeats happen within the test.
//
// It also fails the test if the bridge does not send resolved notifications, which the
// exporter needs to see a drift alert end.
func alertmanagerConfig(t *testing.T, dir, exporterAddr string) string {
	t.Helper()
	const file = "examples/alertmanager.yml"
	data, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	// The exporters of this test run with notifier.mode: alertmanager: the bridge's blocks are
	// uncommented, as the file says to.
	if data, err = examples.EnableBridge(data); err != nil {
		t.Fatal(err)
	}
	doc := parseYAML(t, file, data)
	root := doc.Content[0]

	var fastRoutes func(route *yaml.Node)
	fastRoutes = func(route *yaml.Node) {
		for key, value := range map[string]string{"group_wait": fastWait, "group_interval": fastWait, "repeat_interval": fastRepeat} {
			if n := field(route, key); n != nil {
				setScalar(n, value)
			}
		}
		if routes := field(route, "routes"); routes != nil {
			for _, r := range routes.Content {
				fastRoutes(r)
			}
		}
	}
	top := mustField(t, file, root, "route")
	for _, key := range []string{"group_wait", "group_interval", "repeat_interval"} {
		mustField(t, file, top, key) // set at the top, inherited below
	}
	fastRoutes(top)

	hooks := 0
	for _, r := range mustField(t, file, root, "receivers").Content {
		if n := field(r, "name"); n == nil || n.Value != bridgeReceiver {
			continue
		}
		for _, wh := range mustField(t, file, r, "webhook_configs").Content {
			u := mustField(t, file, wh, "url")
			parsed, err := url.Parse(u.Value)
			if err != nil {
				t.Fatalf("%s: receiver %s: url %q: %v", file, bridgeReceiver, u.Value, err)
			}
			parsed.Host = exporterAddr
			setScalar(u, parsed.String())
			tokenFile := filepath.Join(dir, "webhook-token")
			if err := os.WriteFile(tokenFile, []byte(webhookToken+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			setScalar(mustField(t, file, wh, "http_config", "authorization", "credentials_file"), tokenFile)
			if sr := field(wh, "send_resolved"); sr == nil || sr.Value != "true" {
				t.Errorf("%s: receiver %s does not set send_resolved: true, so the exporter would never hear that a drift alert resolved", file, bridgeReceiver)
			}
			hooks++
		}
	}
	if hooks != 1 {
		t.Fatalf("%s: want one webhook_config in receiver %s, found %d", file, bridgeReceiver, hooks)
	}
	return writeYAML(t, doc, dir, "alertmanager.yml")
}

// rulesCopy writes the shipped rules with every alert's for and keep_firing_for (minutes) set
// to fastFor and every group's interval (1m, which would override the global
// evaluation_interval) set to fastInterval, and returns its path. The expressions, labels and
// annotations are the shipped ones.
func rulesCopy(t *testing.T, dir string) string {
	t.Helper()
	file := "rules/" + rules.RulesFile
	data, err := rules.FS.ReadFile(rules.RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseYAML(t, file, data)
	shortened := map[string][]string{}
	for _, g := range mustField(t, file, doc.Content[0], "groups").Content {
		if iv := field(g, "interval"); iv != nil {
			setScalar(iv, fastInterval)
		}
		for _, r := range mustField(t, file, g, "rules").Content {
			name := field(r, "alert")
			if name == nil {
				continue // a recording rule
			}
			for _, key := range []string{"for", "keep_firing_for"} {
				if n := field(r, key); n != nil {
					setScalar(n, fastFor)
					shortened[name.Value] = append(shortened[name.Value], key)
				}
			}
		}
	}
	if got := fmt.Sprint(shortened["CKSVMMapDrift"]); got != "[for keep_firing_for]" {
		t.Fatalf("%s: CKSVMMapDrift sets %s, the test expects for and keep_firing_for", file, got)
	}
	return writeYAML(t, doc, dir, rules.RulesFile)
}

// prometheusConfig writes examples/prometheus.yml pointed at the processes of the test: the
// cks-drift job scrapes the exporter replicas every second (timeout one second, as a timeout may not
// exceed the interval), rules are evaluated every second from rulesFile, and alerts go to the
// Alertmanager of the test. The job name is the shipped one, which the rules rely on.
func prometheusConfig(t *testing.T, dir, rulesFile, alertmanagerAddr string, exporterAddrs ...string) string {
	t.Helper()
	const file = "examples/prometheus.yml"
	data, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	doc := parseYAML(t, file, data)
	root := doc.Content[0]
	setScalar(mustField(t, file, root, "global", "scrape_interval"), fastInterval)
	setScalar(mustField(t, file, root, "global", "evaluation_interval"), fastInterval)
	*mustField(t, file, root, "rule_files") = *scalars(rulesFile)

	ams := mustField(t, file, root, "alerting", "alertmanagers").Content
	if len(ams) != 1 {
		t.Fatalf("%s: want one alertmanagers entry, found %d", file, len(ams))
	}
	*mustField(t, file, ams[0], "static_configs") = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{
		Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "targets"}, scalars(alertmanagerAddr)},
	}}}

	jobs := 0
	for _, sc := range mustField(t, file, root, "scrape_configs").Content {
		if n := field(sc, "job_name"); n == nil || n.Value != "cks-drift" {
			continue
		}
		jobs++
		for _, key := range []string{"scrape_interval", "scrape_timeout"} {
			if n := field(sc, key); n != nil {
				setScalar(n, fastInterval)
			}
		}
		statics := mustField(t, file, sc, "static_configs").Content
		if len(statics) != 1 {
			t.Fatalf("%s: job cks-drift: want one static_config, found %d", file, len(statics))
		}
		*mustField(t, file, statics[0], "targets") = *scalars(exporterAddrs...)
	}
	if jobs != 1 {
		t.Fatalf("%s: want one scrape job named cks-drift (the rules use up{job=\"cks-drift\"}), found %d", file, jobs)
	}
	return writeYAML(t, doc, dir, "prometheus.yml")
}
