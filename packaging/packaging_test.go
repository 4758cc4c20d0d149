// Package packaging holds the .deb and .rpm's files; its tests check the facts they share with
// the rest of the tree.
package packaging

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// TestShippedConfigSetsOnlyWhatAnInstallMust: the packaged configuration is the defaults but for
// the endpoint, the keys and the SSH key, so that an upgrade brings every new default. A key
// added to it fails here: set its default in config/defaults.go instead.
func TestShippedConfigSetsOnlyWhatAnInstallMust(t *testing.T) {
	t.Setenv("CS_API_KEY", "example-api-key")
	t.Setenv("CS_SECRET_KEY", "example-secret-key")
	got, err := config.Load("cks-drift-exporter.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Defaults()
	want.CloudStack.Endpoint = "https://cloud.example.com/client/api"
	// The keys come from the environment file; the SSH key is where docs/install.md puts
	// it, and purge removes it.
	want.CloudStack.APIKey, want.CloudStack.SecretKey = "example-api-key", "example-secret-key"
	want.SSH.PrivateKeyFile = "/etc/cks-drift-exporter/ssh-key"
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("cks-drift-exporter.yml sets more than an install must (-want +got):\n%s", diff)
	}
	// A key spelled out at its default value would pin it across upgrades just the same.
	var keys map[string]map[string]any
	if err := yaml.Unmarshal([]byte(read(t, "cks-drift-exporter.yml")), &keys); err != nil {
		t.Fatal(err)
	}
	var names []string
	for section, m := range keys {
		for key := range m {
			names = append(names, section+"."+key)
		}
	}
	slices.Sort(names)
	if want := []string{"cloudstack.api_key", "cloudstack.endpoint", "cloudstack.secret_key", "ssh.private_key_file"}; !slices.Equal(names, want) {
		t.Errorf("cks-drift-exporter.yml sets %v, want only %v", names, want)
	}
}

// TestOneVersion: the version and the Go release are written once (VERSION, .go-version); the
// Dockerfile's argument defaults and the chart's appVersion, which cannot read a file, repeat
// them, and this keeps them equal.
func TestOneVersion(t *testing.T) {
	version := strings.TrimSpace(read(t, "../VERSION"))
	goVersion := strings.TrimPrefix(strings.TrimSpace(read(t, "../.go-version")), "go")
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(version) {
		t.Errorf("VERSION is %q, want MAJOR.MINOR.PATCH", version)
	}
	if !regexp.MustCompile(`^1\.\d+\.\d+$`).MatchString(goVersion) {
		t.Errorf(".go-version is go%q, want a Go release such as go1.27.3", goVersion)
	}
	docker := read(t, "../Dockerfile")
	for arg, want := range map[string]string{"GO_VERSION": goVersion, "VERSION": version} {
		m := regexp.MustCompile(`(?m)^ARG ` + arg + `=(\S+)$`).FindStringSubmatch(docker)
		if m == nil || m[1] != want {
			t.Errorf("Dockerfile: ARG %s=%v, want %s", arg, m, want)
		}
	}
	if !strings.Contains(docker, "FROM golang:${GO_VERSION}-") {
		t.Error("Dockerfile: the build stage is not FROM golang:${GO_VERSION}-...")
	}
	chart := read(t, "../deploy/helm/cks-drift-exporter/Chart.yaml")
	if m := regexp.MustCompile(`(?m)^appVersion: "?([^"\s]+)"?$`).FindStringSubmatch(chart); m == nil || m[1] != version {
		t.Errorf("Chart.yaml: appVersion %v, want %s (make chart writes it)", m, version)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
