package config

import (
	"strings"
	"testing"
)

// anchorSecret is the secret of the files below; anchorEnvSecret the one an environment variable
// holds. Both are long enough that yaml would cut them in its own messages ("SKq7Wxe...").
const (
	anchorSecret    = "SKq7WxeLrT2pZ9mN4vB8"
	anchorEnvSecret = "ENVq3JhK8sW1xR6tY0uI"
)

func anchorEnv(name string) (string, bool) {
	if name == "ANCHOR_SECRET" {
		return anchorEnvSecret, true
	}
	return "", false
}

// assertNoSecretPrefix fails when msg holds any four characters in a row of secret.
func assertNoSecretPrefix(t *testing.T, msg, secret string) {
	t.Helper()
	for i := 0; i+4 <= len(secret); i++ {
		if part := secret[i : i+4]; strings.Contains(msg, part) {
			t.Errorf("the error shows %q of the secret %q:\n%s", part, secret, msg)
			return
		}
	}
}

// TestAnchoredSecretsNotInErrors reuses a secret through YAML anchors and aliases where it cannot
// be decoded, and the other way round: no error may show any part of it, and each error still
// names the key that is wrong.
func TestAnchoredSecretsNotInErrors(t *testing.T) {
	t.Parallel()
	const head = "cloudstack:\n  endpoint: https://cloud.example.com/client/api\n  api_key: ak\n"
	for _, tc := range []struct {
		name, file, secret, want string
	}{
		{
			name:   "secret reused as a duration",
			file:   head + "  secret_key: &s " + anchorSecret + "\ncheck:\n  interval: *s\n",
			secret: anchorSecret,
			want:   "line 6: check.interval: must be a duration such as 30s or 5m, not that value",
		},
		{
			name:   "secret reused as a number",
			file:   head + "  secret_key: &s " + anchorSecret + "\ncheck:\n  concurrency: *s\n",
			secret: anchorSecret,
			want:   "line 6: check.concurrency: must be a whole number, not that value",
		},
		{
			name:   "secret reused as a boolean",
			file:   head + "  secret_key: &s " + anchorSecret + "\nnotifier:\n  enabled: *s\n",
			secret: anchorSecret,
			want:   "line 6: notifier.enabled: must be true or false, not that value",
		},
		{
			name:   "secret reused as a section",
			file:   head + "  secret_key: &s " + anchorSecret + "\ncheck: *s\n",
			secret: anchorSecret,
			want:   "line 5: check: must be a mapping, not that value",
		},
		{
			name:   "secret from the environment reused as a duration",
			file:   head + "  secret_key: &s ${ANCHOR_SECRET}\ncheck:\n  interval: *s\n",
			secret: anchorEnvSecret,
			want:   "line 6: check.interval: must be a duration such as 30s or 5m, not that value",
		},
		{
			name:   "anchor on a duration reused as the secret",
			file:   "check:\n  interval: &s " + anchorSecret + "\n" + head + "  secret_key: *s\n",
			secret: anchorSecret,
			want:   "line 2: check.interval: must be a duration such as 30s or 5m, not that value",
		},
		{
			name:   "secret in a list reused as a duration",
			file:   head + "  secret_key: &s [" + anchorSecret + "]\ncheck:\n  interval: *s\n",
			secret: anchorSecret,
			want:   "line 4: cloudstack.secret_key: must be a single value, not a list",
		},
		{
			name:   "secret with a tag that does not fit, reused",
			file:   head + "  secret_key: &s !!int " + anchorSecret + "\ncheck:\n  interval: *s\n",
			secret: anchorSecret,
			want:   "line 4: cloudstack.secret_key: cannot be that value",
		},
		{
			name:   "secret in a section with a key set twice, reused",
			file:   head + "  secret_key: &s " + anchorSecret + "\n  api_key: ak2\ncheck:\n  interval: *s\n",
			secret: anchorSecret,
			want:   "line 7: check.interval: must be a duration such as 30s or 5m, not that value",
		},
		{
			name:   "secret used as a key",
			file:   head + "  secret_key: &s " + anchorSecret + "\ncheck:\n  *s : 5m\n",
			secret: anchorSecret,
			want:   `line 6: unknown key (the value of a secret) in check`,
		},
		{
			name:   "secret used as a key twice",
			file:   head + "  secret_key: &s " + anchorSecret + "\ncheck:\n  *s : 5m\n  *s : 6m\n",
			secret: anchorSecret,
			want:   `line 7: check.(the value of a secret): set twice (first on line 6)`,
		},
		{
			name:   "database password reused as a port",
			file:   head + "  secret_key: sk\ninventory:\n  source: database\ndatabase:\n  dsn: &d reader:" + anchorSecret + "@tcp(db:3306)/cloud\nssh:\n  port: *d\n",
			secret: anchorSecret,
			want:   "line 10: ssh.port: must be a whole number, not that value",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parse([]byte(tc.file), "c.yml", anchorEnv)
			if err == nil {
				t.Fatalf("no error for:\n%s", tc.file)
			}
			msg := err.Error()
			assertNoSecretPrefix(t, msg, tc.secret)
			if !strings.Contains(msg, "c.yml: "+tc.want) {
				t.Errorf("error does not say %q:\n%s", tc.want, msg)
			}
		})
	}
}
