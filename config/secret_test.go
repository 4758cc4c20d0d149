package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The secrets of testdata/good.yml, distinctive enough that finding any
// part of them in output can only mean a leak.
var leaks = []string{"Zebra", "Quokka", "Heron", "Walrus", "Okapi"}

func assertNoSecret(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range leaks {
		if strings.Contains(out, s) {
			t.Errorf("%s shows a secret (%q):\n%s", what, s, out)
		}
	}
}

func TestSecretsAreNeverPrinted(t *testing.T) {
	t.Parallel()
	cfg, err := Load("testdata/good.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg.CloudStack.APIKey), "Zebra") || !strings.Contains(string(cfg.CloudStack.SecretKey), "Heron") {
		t.Fatal("good.yml's secrets were not loaded, so this test would prove nothing")
	}

	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		assertNoSecret(t, "fmt "+verb+" of *Config", fmt.Sprintf(verb, cfg))
		assertNoSecret(t, "fmt "+verb+" of Config", fmt.Sprintf(verb, *cfg))
		assertNoSecret(t, "fmt "+verb+" of Secret", fmt.Sprintf(verb, cfg.CloudStack.APIKey))
	}

	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "json.Marshal", string(js))
	if !strings.Contains(string(js), `"APIKey":"\u003csecret\u003e"`) {
		t.Errorf("json.Marshal does not show the redacted key: %s", js)
	}

	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		slog.New(h).Info("loaded", "config", cfg, "cloudstack", cfg.CloudStack, "key", cfg.CloudStack.APIKey,
			slog.Any("secret", cfg.CloudStack.SecretKey))
	}
	assertNoSecret(t, "slog", buf.String())
	if !strings.Contains(buf.String(), "key=<secret>") {
		t.Errorf("slog does not show the redacted key:\n%s", buf.String())
	}

	red := cfg.Redacted()
	assertNoSecret(t, "Redacted", red)
	var back map[string]map[string]any
	if err := yaml.Unmarshal([]byte(red), &back); err != nil {
		t.Fatalf("Redacted is not YAML: %v\n%s", err, red)
	}
	if got := back["cloudstack"]["api_key"]; got != "<secret>" {
		t.Errorf("Redacted api_key = %v, want <secret>", got)
	}
	if got := back["cloudstack"]["endpoint"]; got != cfg.CloudStack.Endpoint {
		t.Errorf("Redacted endpoint = %v, want %s", got, cfg.CloudStack.Endpoint)
	}
}

func TestSecretsAreNotInErrors(t *testing.T) {
	t.Parallel()
	const file = `
cloudstack:
  endpoint: https://cloud.example.com/client/api
  api_key: [AK-Zebra-Quokka-7731]
  secret_key: {SK-Heron-Walrus-2290: x}
`
	_, err := parse([]byte(file), "c.yml", noEnv)
	if err == nil {
		t.Fatal("want an error")
	}
	assertNoSecret(t, "error", err.Error())
	if !strings.Contains(err.Error(), "cloudstack.api_key: must be a single value, not a list") {
		t.Errorf("error does not name the key: %v", err)
	}
}
