package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

// noEnv is an environment where no variable is set, so these tests do not
// depend on the environment they run in.
func noEnv(string) (string, bool) { return "", false }

// kindNames is every declared kind, in order, as the accept rules' error lists them.
func kindNames() string {
	names := make([]string, len(collector.Kinds))
	for i, k := range collector.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// invalid lists, for every testdata/invalid-*.yml, the exact error text,
// one problem a line, without the leading "<file>: ".
var invalid = map[string]string{
	"unknown-top-level-key":      `line 5: unknown key "checks" at the top level`,
	"unknown-nested-key":         `line 5: unknown key "page_sise" in cloudstack`,
	"bad-duration":               `line 6: check.interval: must be a duration such as 30s or 5m, not "5 minutes"`,
	"negative-interval":          `check.interval: must be greater than zero`,
	"page-size-zero":             `cloudstack.page_size: must be between 1 and 500, not 0`,
	"page-size-too-big":          `cloudstack.page_size: must be between 1 and 500, not 501`,
	"concurrency-zero":           `check.concurrency: must be between 1 and 1024, not 0`,
	"both-api-keys":              `cloudstack.api_key: cannot be used together with cloudstack.api_key_file`,
	"no-api-key":                 `cloudstack.api_key or cloudstack.api_key_file is required`,
	"missing-endpoint":           `cloudstack.endpoint is required`,
	"endpoint-not-url":           `cloudstack.endpoint: must be an http or https URL such as https://cloud.example.com/client/api`,
	"ui-url-not-url":             `cloudstack.ui_url: must be an http or https URL such as https://cloud.example.com/client/`,
	"host-key-policy":            `ssh.host_key_policy: must be strict, pin or insecure, not "tofu"`,
	"strict-without-known-hosts": `ssh.known_hosts_file is required when ssh.host_key_policy is strict`,
	"port":                       `ssh.port: must be between 0 and 65535, not 70000`,
	"node-source": `check.node_source: must be ssh or kubernetes_api, not "kubectl"
kubernetes_api.timeout: must be greater than zero`,
	"max-nodes": `ssh.max_nodes: must be between 1 and 100000, not 0`,
	// A rule must say which finding and why; the second rule for one finding would never apply.
	// The kinds are listed as collector.Declarations declares them.
	"accept": `accept[0].kind: must be one of ` + kindNames() + `, not "unmapped_vms"
accept[1].reason is required: say why the finding is accepted
accept[2].cluster is required
accept[2].vm: must be left out: kind vm_map_incomplete is about the whole cluster
accept[2].reason is required: say why the finding is accepted
accept[3].vm is required for kind node_without_vm (the VM's uuid or name, or the node's name)
accept[4]: accepts the same finding as accept[1], which wins`,
	"accept-keys": `line 10: accept[0].until: must be a date such as 2027-03-31 or an RFC 3339 time such as 2027-03-31T18:00:00Z, not "next week"
line 13: unknown key "reasn" in accept[1]
line 14: accept[2]: must be a mapping, not "just a string"
accept[1].reason is required: say why the finding is accepted`,
	"accept-not-list": `line 6: accept: must be a list, not a mapping`,
	"database": `database.dsn or database.dsn_file is required
database.max_open_conns: must be between 1 and 100, not 0`,
	"alert-types": `notifier.alert_type_min: must be between 1000 and 32766, not 28
notifier.alert_type_max: must be between 1001 and 32767, not 30
notifier.alert_type_max: must be at least 10 above notifier.alert_type_min`,
	// Alertmanager mode serves a webhook that makes the exporter write to CloudStack: never
	// without a token.
	// The notifier's calls in flight are bounded both ways: at least one, and few enough that
	// one pass cannot crowd CloudStack's API.
	"notifier-concurrency-zero": `notifier.concurrency: must be between 1 and 64, not 0`,
	"notifier-concurrency-big":  `notifier.concurrency: must be between 1 and 64, not 65`,
	// The bounds against a noisy tenant are never off: a lane with no worker would never list
	// the clusters that timed out, and a zero budget would announce nothing.
	"fair-bounds": `check.hanging_concurrency: must be between 1 and 1024, not 0
check.max_finding_series_per_cluster: must be between 1 and 100000, not 0
notifier.max_announcements_per_cluster_per_day: must be between 1 and 100000, not 0`,
	"fair-bounds-big": `check.hanging_concurrency: must be between 1 and 1024, not 1025
check.max_finding_series_per_cluster: must be between 1 and 100000, not 100001
notifier.max_announcements_per_cluster_per_day: must be between 1 and 100000, not 100001`,
	"webhook-token": `notifier.webhook_token or notifier.webhook_token_file is required`,
	// CloudStack's webhook is served only with the secret that proves a delivery is CloudStack's.
	"events": `events.webhook.secret_key or events.webhook.secret_key_file is required
events.recheck_delay: must be between 0s and 1m0s, not 2m0s
events.max_rechecks_per_minute: must be between 0 and 100000, not -1
events.amqp.url: must not hold credentials: use events.amqp.username and events.amqp.password_file
events.amqp.exchange: must not be empty
events.amqp.username: must not be empty
events.amqp.password or events.amqp.password_file is required
events.amqp.cert_file: needs events.amqp.key_file, and the other way round`,
	"unset-variable":      `line 3: cloudstack.api_key: environment variable CS_API_KEY is not set`,
	"missing-secret-file": `cloudstack.api_key_file: open testdata/secrets/does-not-exist: no such file or directory`,
	"empty-secret-file":   `cloudstack.secret_key_file: testdata/secrets/empty is empty`,
	"syntax":              `line 5: invalid YAML: could not find expected ':'`,
	"two-documents":       `line 5: the file holds more than one YAML document`,
	"not-a-mapping":       `line 1: the file must be a mapping of sections, not "just a string"`,
	"section-not-mapping": `line 5: check: must be a mapping, not "5m"`,
	"empty": `cloudstack.endpoint is required
cloudstack.api_key or cloudstack.api_key_file is required
cloudstack.secret_key or cloudstack.secret_key_file is required`,
	"wrong-types": `line 6: check.enabled: must be true or false, not "maybe"
line 7: check.concurrency: must be a whole number, not "many"
line 9: ssh.user: must be a single value, not a list`,
	// The check section is not decoded, so its concurrency is not judged.
	"duplicate-key": `line 7: check.interval: set twice (first on line 6)
ssh.port: must be between 0 and 65535, not 70000`,
	"duplicate-section": `line 3: cloudstack: set twice (first on line 1)`,
	"negative-values": `cloudstack.timeout: must be greater than zero
check.grace_period: must not be negative
check.stuck_after: must not be negative (0 turns stuck_in_operation off)
ssh.timeout: must be greater than zero
ssh.kubectl_command: must not be empty
notifier.max_alerts_per_cycle: must not be negative
notifier.max_annotations_per_cluster: must not be negative
storage.path: must not be empty`,
	// Problems in the text come first, by line, then the values; a value
	// that could not be read (ssh.user) is not judged again.
	"several": `line 6: unknown key "colour" in cloudstack
line 13: ssh.user: environment variable SSH_USER is not set
cloudstack.endpoint: must be an http or https URL such as https://cloud.example.com/client/api
cloudstack.api_key: cannot be used together with cloudstack.api_key_file
cloudstack.secret_key or cloudstack.secret_key_file is required
cloudstack.page_size: must be between 1 and 500, not 0
check.interval: must be greater than zero
check.concurrency: must be between 1 and 1024, not 2000
ssh.known_hosts_file is required when ssh.host_key_policy is strict
ssh.port: must be between 0 and 65535, not -1`,
}

func TestInvalid(t *testing.T) {
	t.Parallel()
	for name, want := range invalid {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("testdata", "invalid-"+name+".yml")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := parse(data, file, noEnv)
			if err == nil {
				t.Fatalf("parse(%s) = %+v, want an error", file, cfg)
			}
			if cfg != nil {
				t.Errorf("parse(%s) returned a config along with the error", file)
			}
			var lines []string
			for _, l := range strings.Split(want, "\n") {
				lines = append(lines, file+": "+l)
			}
			if got, want := err.Error(), strings.Join(lines, "\n"); got != want {
				t.Errorf("error mismatch\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// TestInvalidFilesAreListed keeps the table and testdata in step: a file
// without an expected error would otherwise never be tested.
func TestInvalidFilesAreListed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/invalid-*.yml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "invalid-"), ".yml")
		seen[name] = true
		if _, ok := invalid[name]; !ok {
			t.Errorf("%s has no expected error in the table", f)
		}
	}
	for name := range invalid {
		if !seen[name] {
			t.Errorf("table lists %q but testdata/invalid-%s.yml does not exist", name, name)
		}
	}
}

func TestMissingSecretFileWrapsCause(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/invalid-missing-secret-file.yml")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error %v does not wrap fs.ErrNotExist", err)
	}
}
