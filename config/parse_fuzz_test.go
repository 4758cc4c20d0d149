package config

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// fuzzEnv is the environment of FuzzParse: fixed, so that a failure replays anywhere, with one
// variable holding a secret and one holding a number.
func fuzzEnv(name string) (string, bool) {
	switch name {
	case "FUZZ_SECRET":
		return "SECRET-FROM-ENV-456", true
	case "FUZZ_PORT":
		return "2222", true
	}
	return "", false
}

// FuzzParse checks that Parse never accepts a configuration that breaks the invariants the rest
// of the exporter relies on, and never shows a secret: not in an error, not in Redacted. Secrets
// to look for are the values written at a Secret key that contain "SECRET" (the seeds use
// SECRET-FUZZ-123 and ${FUZZ_SECRET}), so that the check cannot mistake the fixed words of a
// message for a leak.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.yml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed in testdata/*.yml: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// The file sits in testdata, so that the seeds' relative secret files are found; an absolute
	// name lets the test check that every path comes out absolute.
	name, err := filepath.Abs(filepath.Join("testdata", "fuzz.yml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// parse is Parse with the environment injected.
		cfg, err := parse(data, name, fuzzEnv)
		secrets, others := secretTexts(data)
		others = append(others, name)
		if err != nil {
			if cfg != nil {
				t.Fatalf("Parse() returned a configuration with its error %v", err)
			}
			msg := err.Error()
			for _, s := range secrets {
				if strings.Contains(msg, s) && !slices.ContainsFunc(others, func(o string) bool { return strings.Contains(o, s) }) {
					t.Fatalf("the error shows the secret %q:\n%s", s, msg)
				}
			}
			return
		}
		if cfg == nil {
			t.Fatal("Parse() returned neither a configuration nor an error")
		}
		for _, problem := range invariants(cfg) {
			t.Errorf("Parse() accepted a configuration whose %s", problem)
		}
		// Redacted must not depend on the secrets' values at all.
		other := *cfg
		for _, s := range []*Secret{&other.CloudStack.APIKey, &other.CloudStack.SecretKey, &other.Database.DSN} {
			if *s != "" {
				*s = "x"
			}
		}
		if got, want := cfg.Redacted(), other.Redacted(); got != want {
			t.Errorf("Redacted() shows the secrets:\n%s", got)
		}
	})
}

// secretTexts reads data as YAML and returns the scalar values written at a Secret key that
// contain "SECRET", as written and as expanded, and every other text of the file that an error
// may quote (other values and keys, tags, anchors), so that a secret also written elsewhere is
// not held against Parse.
func secretTexts(data []byte) (secrets, others []string) {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return nil, nil // a syntax error: yaml's messages do not quote values
	}
	secretType := reflect.TypeFor[Secret]()
	add := func(list *[]string, s string) {
		for _, v := range []string{s, envRef.ReplaceAllStringFunc(s, func(ref string) string {
			v, _ := fuzzEnv(ref[2 : len(ref)-1])
			return v
		})} {
			*list = append(*list, v, strconv.Quote(v))
		}
	}
	// inAlias adds every text under an alias target to others: what an alias stands for is not
	// a secret where the alias is used. Each node is added once, which keeps alias bombs linear.
	inAlias := make(map[*yaml.Node]bool)
	var addAll func(n *yaml.Node)
	addAll = func(n *yaml.Node) {
		if n == nil || inAlias[n] {
			return
		}
		inAlias[n] = true
		others = append(others, n.Tag, n.Anchor)
		add(&others, n.Value)
		addAll(n.Alias)
		for _, c := range n.Content {
			addAll(c)
		}
	}
	var walk func(n *yaml.Node, key string, secret bool)
	walk = func(n *yaml.Node, key string, secret bool) {
		others = append(others, n.Tag, n.Anchor)
		switch n.Kind {
		case yaml.ScalarNode:
			if secret && strings.Contains(n.Value, "SECRET") {
				add(&secrets, n.Value)
			} else {
				add(&others, n.Value)
			}
		case yaml.AliasNode:
			addAll(n.Alias)
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, key, false)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := join(key, n.Content[i].Value)
				walk(n.Content[i], "[key]", false)
				walk(n.Content[i+1], k, schema.types[k] == secretType)
			}
		default:
			for _, c := range n.Content {
				walk(c, key+"[]", false)
			}
		}
	}
	walk(&root, "", false)
	return secrets, others
}

// invariants returns what is wrong with a configuration Parse accepted: every setting the
// exporter uses without checking it again.
func invariants(c *Config) []string {
	var bad []string
	check := func(ok bool, what string) {
		if !ok {
			bad = append(bad, what)
		}
	}
	cs := c.CloudStack
	u, err := url.Parse(cs.Endpoint)
	check(err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "", "cloudstack.endpoint is not an http(s) URL: "+cs.Endpoint)
	check(cs.APIKey != "" && cs.SecretKey != "", "API key or secret key is empty")
	check(cs.Timeout > 0, "cloudstack.timeout is not positive")
	check(cs.PageSize >= 1 && cs.PageSize <= 500, "cloudstack.page_size is not 1..500")

	ch := c.Check
	check(ch.Interval > 0, "check.interval is not positive")
	check(ch.GracePeriod >= 0, "check.grace_period is negative")
	check(ch.StuckAfter >= 0, "check.stuck_after is negative")
	check(ch.Concurrency >= 1 && ch.Concurrency <= 1024, "check.concurrency is not 1..1024")
	check(ch.TotalShards >= 1 && ch.TotalShards <= 1024, "check.total_shards is not 1..1024")
	check(ch.Shard >= 0 && ch.Shard < ch.TotalShards, "check.shard is not below check.total_shards")

	s := c.SSH
	check(strings.TrimSpace(s.User) != "", "ssh.user is empty")
	check(strings.TrimSpace(s.PrivateKeyFile) != "", "ssh.private_key_file is empty")
	check(slices.Contains([]HostKeyPolicy{HostKeyStrict, HostKeyPin, HostKeyInsecure}, s.HostKeyPolicy), "ssh.host_key_policy is unknown: "+string(s.HostKeyPolicy))
	check(s.HostKeyPolicy != HostKeyStrict || s.KnownHostsFile != "", "strict policy has no ssh.known_hosts_file")
	check(s.Port >= 0 && s.Port <= 65535, "ssh.port is not 0..65535")
	check(s.Timeout > 0, "ssh.timeout is not positive")
	check(strings.TrimSpace(s.KubectlCommand) != "", "ssh.kubectl_command is empty")

	n := c.Notifier
	check(n.Mode == NotifierDirect || n.Mode == NotifierAlertmanager, "notifier.mode is unknown: "+string(n.Mode))
	check(n.MaxAlertsPerCycle >= 0, "notifier.max_alerts_per_cycle is negative")
	check(n.MaxAnnotationsPerCluster >= 0, "notifier.max_annotations_per_cluster is negative")
	check(n.Concurrency >= 1 && n.Concurrency <= 64, "notifier.concurrency is not 1..64")
	check(n.Mode != NotifierAlertmanager || n.WebhookToken != "", "alertmanager mode without a webhook token")
	check(n.AlertTypeMin >= 1000 && n.AlertTypeMax <= 32767 && n.AlertTypeMax-n.AlertTypeMin >= 10, "alert type range is unusable")
	check(strings.TrimSpace(c.Storage.Path) != "", "storage.path is empty")

	check(c.Inventory.Source == SourceAPI || c.Inventory.Source == SourceDatabase, "inventory.source is unknown: "+string(c.Inventory.Source))
	check(c.Inventory.Source != SourceDatabase || c.Database.DSN != "", "database source has no DSN")
	d := c.Database
	check(d.MaxOpenConns >= 1 && d.MaxOpenConns <= 100, "database.max_open_conns is not 1..100")
	check(d.MaxIdleConns >= 0 && d.MaxIdleConns <= 100, "database.max_idle_conns is not 0..100")
	check(d.ConnMaxLifetime > 0 && d.QueryTimeout > 0, "a database duration is not positive")

	for _, p := range []string{cs.APIKeyFile, cs.SecretKeyFile, cs.CAFile, s.PrivateKeyFile, s.KnownHostsFile, c.Storage.Path, d.DSNFile} {
		check(p == "" || filepath.IsAbs(p), "path is not made absolute: "+p)
	}
	return bad
}
