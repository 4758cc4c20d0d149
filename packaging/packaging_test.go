// Package packaging holds the .deb and .rpm's files; its tests check the facts they share with
// the rest of the tree.
package packaging

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

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
