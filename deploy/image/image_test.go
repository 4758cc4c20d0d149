package main

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// buildExporter builds the static exporter binary from the repository, as make build does.
func buildExporter(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cks-drift-exporter")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/cks-drift-exporter")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type entry struct {
	Type     byte
	Mode     int64
	UID, GID int
}

// TestImage builds the image, writes it as a tarball, reads it back and checks its user,
// entrypoint and files, then runs the binary taken out of it.
func TestImage(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\nexample\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Binary: buildExporter(t), CACerts: ca, Version: "1.2.3", Revision: "abc123", Arch: runtime.GOARCH}
	out := filepath.Join(dir, "image.tar")
	if err := run(o, "ghcr.io/cks-drift-exporter/cks-drift-exporter:1.2.3", out); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag("ghcr.io/cks-drift-exporter/cks-drift-exporter:1.2.3")
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Config{
		User:         "65532:65532",
		Entrypoint:   []string{"/bin/cks-drift-exporter"},
		Cmd:          []string{"--config.file=/etc/cks-drift-exporter/cks-drift-exporter.yml"},
		ExposedPorts: map[string]struct{}{"9862/tcp": {}},
		Volumes:      map[string]struct{}{"/var/lib/cks-drift-exporter": {}},
		Env:          []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels: map[string]string{"org.opencontainers.image.source": "https://github.com/cks-drift-exporter/cks-drift-exporter",
			"org.opencontainers.image.version": "1.2.3", "org.opencontainers.image.revision": "abc123"},
	}
	if diff := cmp.Diff(want, cfg.Config); diff != "" {
		t.Errorf("image config (-want +got):\n%s", diff)
	}
	if cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s", cfg.OS, cfg.Architecture)
	}

	files, binary := extract(t, img)
	wantFiles := map[string]entry{
		"bin":                               {tar.TypeDir, 0o755, 0, 0},
		"bin/cks-drift-exporter":            {tar.TypeReg, 0o755, 0, 0},
		"etc":                               {tar.TypeDir, 0o755, 0, 0},
		"etc/cks-drift-exporter":            {tar.TypeDir, 0o755, 0, 0},
		"etc/ssl":                           {tar.TypeDir, 0o755, 0, 0},
		"etc/ssl/certs":                     {tar.TypeDir, 0o755, 0, 0},
		"etc/ssl/certs/ca-certificates.crt": {tar.TypeReg, 0o644, 0, 0},
		"var":                               {tar.TypeDir, 0o755, 0, 0},
		"var/lib":                           {tar.TypeDir, 0o755, 0, 0},
		"var/lib/cks-drift-exporter":        {tar.TypeDir, 0o700, 65532, 65532},
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files of the image (-want +got):\n%s", diff)
	}

	// The binary out of the image runs on its own: static, no loader, no libc.
	path := filepath.Join(dir, "extracted")
	if err := os.WriteFile(path, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	version, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(version), "cks-drift-exporter, version") {
		t.Errorf("the image's binary --version: %v\n%s", err, version)
	}

	// The same inputs give the same image, and the tarball holds that image's configuration.
	first, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := first.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("two builds of the same inputs: %s and %s", d1, d2)
	}
	c1, _ := first.ConfigName()
	c2, _ := img.ConfigName()
	if c1 != c2 {
		t.Errorf("the tarball's configuration %s is not the built image's %s", c2, c1)
	}
}

// extract lists the image's files and returns the binary's bytes.
func extract(t *testing.T, img v1.Image) (map[string]entry, []byte) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	files := make(map[string]entry)
	var binary []byte
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = entry{h.Typeflag, h.Mode, h.Uid, h.Gid}
		names = append(names, h.Name)
		if h.Name == "bin/cks-drift-exporter" {
			if binary, err = io.ReadAll(io.LimitReader(tr, 1<<30)); err != nil {
				t.Fatal(err)
			}
		}
	}
	sort.Strings(names)
	t.Log(fmt.Sprint("files: ", names))
	return files, binary
}
