// Command image builds the exporter's container image without a container daemon: the static
// binary, the CA certificates and an empty state directory on an empty base, running as the
// non-root user 65532 as the Dockerfile's distroless image does, written as a tarball that
// `docker load` and registry clients read.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Options say what goes into the image.
type Options struct {
	Binary   string // the static cks-drift-exporter binary
	CACerts  string // a PEM bundle of CA certificates, for the CloudStack API's TLS
	Version  string // the image's version label
	Revision string // the git commit, the revision label
	Arch     string // the binary's GOARCH
}

const (
	user     = "65532:65532"
	stateDir = "var/lib/cks-drift-exporter"
)

// Build returns the image: one layer on an empty base and the runtime configuration.
func Build(o Options) (v1.Image, error) {
	var files bytes.Buffer
	tw := tar.NewWriter(&files)
	// A fixed time keeps the layer's digest a function of its contents.
	epoch := time.Unix(0, 0).UTC()
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: epoch})
	}
	file := func(name, src string, mode int64) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	}
	for _, step := range []func() error{
		func() error { return dir("bin", 0o755, 0) },
		func() error { return file("bin/cks-drift-exporter", o.Binary, 0o755) },
		func() error { return dir("etc", 0o755, 0) },
		func() error { return dir("etc/cks-drift-exporter", 0o755, 0) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file("etc/ssl/certs/ca-certificates.crt", o.CACerts, 0o644) },
		func() error { return dir("var", 0o755, 0) },
		func() error { return dir("var/lib", 0o755, 0) },
		func() error { return dir(stateDir, 0o700, 65532) },
		tw.Close,
	} {
		if err := step(); err != nil {
			return nil, fmt.Errorf("image layer: %w", err)
		}
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files.Bytes())), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("image layer: %w", err)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image config: %w", err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", o.Arch
	cfg.Created = v1.Time{Time: epoch}
	cfg.Config = v1.Config{
		User:         user,
		Entrypoint:   []string{"/bin/cks-drift-exporter"},
		Cmd:          []string{"--config.file=/etc/cks-drift-exporter/cks-drift-exporter.yml"},
		ExposedPorts: map[string]struct{}{"9862/tcp": {}},
		Volumes:      map[string]struct{}{"/" + stateDir: {}},
		Env:          []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels: map[string]string{
			"org.opencontainers.image.source":   "https://github.com/cks-drift-exporter/cks-drift-exporter",
			"org.opencontainers.image.version":  o.Version,
			"org.opencontainers.image.revision": o.Revision,
		},
	}
	return mutate.ConfigFile(img, cfg)
}

func main() {
	var o Options
	flag.StringVar(&o.Binary, "binary", "cks-drift-exporter", "the static binary (make build)")
	flag.StringVar(&o.CACerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of CA certificates")
	flag.StringVar(&o.Version, "version", "dev", "image version label")
	flag.StringVar(&o.Revision, "revision", "unknown", "git commit")
	flag.StringVar(&o.Arch, "arch", runtime.GOARCH, "the binary's architecture (GOARCH)")
	tag := flag.String("tag", "ghcr.io/cks-drift-exporter/cks-drift-exporter:dev", "the image's name and tag")
	out := flag.String("o", "cks-drift-exporter-image.tar", "the image tarball to write")
	flag.Parse()
	if err := run(o, *tag, *out); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o Options, tag, out string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return err
	}
	img, err := Build(o)
	if err != nil {
		return err
	}
	if err := tarball.WriteToFile(out, ref, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s %s\n", out, ref, digest)
	return nil
}
