package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// mapEnv is an environment holding exactly env.
func mapEnv(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	const file = `
cloudstack:
  endpoint: https://${CS_HOST}/client/api
  api_key: "${CS_API_KEY}"
  secret_key: 'pa$$word$HOME${not-a-name}$'
ssh:
  user: ${SSH_USER}
  port: "${SSH_PORT}"
  timeout: ${SSH_TIMEOUT}
  known_hosts_file: ${NULL_LOOKING}
  kubectl_command: ${KUBECTL}
check:
  enabled: ${CHECK_ENABLED}
storage:
  path: ${STATE_DIR}/state.db
`
	env := map[string]string{
		"CS_HOST": "cloud.example.com",
		// A value that looks like YAML stays one string.
		"CS_API_KEY": "a: b\nc: d",
		// A value cannot add keys, here one that would move the state file.
		"SSH_USER":      "core\nstorage:\n  path: /tmp/evil.db",
		"SSH_PORT":      "2222",
		"SSH_TIMEOUT":   "1m",
		"NULL_LOOKING":  "/null",
		"KUBECTL":       "kubectl get nodes -o name # ${NOT_EXPANDED_AGAIN}",
		"CHECK_ENABLED": "false",
		"STATE_DIR":     "/srv/drift",
	}
	cfg, err := parse([]byte(file), "/etc/cks-drift-exporter/config.yml", mapEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"cloudstack.endpoint":   cfg.CloudStack.Endpoint,
		"cloudstack.api_key":    string(cfg.CloudStack.APIKey),
		"cloudstack.secret_key": string(cfg.CloudStack.SecretKey),
		"ssh.user":              cfg.SSH.User,
		"ssh.port":              cfg.SSH.Port,
		"ssh.timeout":           cfg.SSH.Timeout,
		"ssh.known_hosts_file":  cfg.SSH.KnownHostsFile,
		"ssh.kubectl_command":   cfg.SSH.KubectlCommand,
		"check.enabled":         cfg.Check.Enabled,
		"storage.path":          cfg.Storage.Path,
	}
	want := map[string]any{
		"cloudstack.endpoint":   "https://cloud.example.com/client/api",
		"cloudstack.api_key":    "a: b\nc: d",
		"cloudstack.secret_key": "pa$$word$HOME${not-a-name}$",
		"ssh.user":              "core\nstorage:\n  path: /tmp/evil.db",
		"ssh.port":              2222,
		"ssh.timeout":           time.Minute,
		"ssh.known_hosts_file":  "/null",
		"ssh.kubectl_command":   "kubectl get nodes -o name # ${NOT_EXPANDED_AGAIN}",
		"check.enabled":         false,
		"storage.path":          "/srv/drift/state.db",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expanded values mismatch (-want +got):\n%s", diff)
	}
}

func TestExpandKeepsStringsThatLookLikeOtherTypes(t *testing.T) {
	t.Parallel()
	const file = `
cloudstack:
  endpoint: https://cloud.example.com/client/api
  api_key: ${KEY}
  secret_key: ${SECRET}
`
	for _, value := range []string{"null", "~", "true", "12", "[a, b]", "{a: b}", "&x *y"} {
		cfg, err := parse([]byte(file), "c.yml", mapEnv(map[string]string{"KEY": value, "SECRET": "s"}))
		if err != nil {
			t.Errorf("KEY=%q: %v", value, err)
			continue
		}
		if got := string(cfg.CloudStack.APIKey); got != value {
			t.Errorf("KEY=%q: api_key = %q, want it unchanged", value, got)
		}
	}
}

func TestExpandErrors(t *testing.T) {
	t.Parallel()
	const file = `
cloudstack:
  endpoint: https://${CS_HOST}/client/api
  api_key: ${KEY}
  secret_key: ${A}${B}${A}
ssh:
  port: ${SSH_PORT}
unknown:
  value: ${NOT_REPORTED_UNDER_AN_UNKNOWN_KEY}
`
	_, err := parse([]byte(file), "c.yml", mapEnv(map[string]string{"KEY": "k", "SSH_PORT": "twenty-two"}))
	want := strings.Join([]string{
		`c.yml: line 3: cloudstack.endpoint: environment variable CS_HOST is not set`,
		`c.yml: line 5: cloudstack.secret_key: environment variable A is not set`,
		`c.yml: line 5: cloudstack.secret_key: environment variable B is not set`,
		`c.yml: line 7: ssh.port: must be a whole number, not "twenty-two"`,
		`c.yml: line 8: unknown key "unknown" at the top level`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("error mismatch\n got: %v\nwant: %s", err, want)
	}
}
