package deploytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/certtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/tooltest"
)

// promtoolWebConfig checks a rendered web-config.yml with promtool check web-config, which also
// loads the certificate and key it names: a certificate made here stands in for the TLS
// Secret's, written where the file expects the Secret to be mounted.
func promtoolWebConfig(t *testing.T, text string) {
	t.Helper()
	promtool := tooltest.Require(t, "promtool", "apt-get install prometheus")
	dir := t.TempDir()
	certPEM, keyPEM := certtest.SelfSigned(t, fullname+".monitoring.svc")
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "web-config.yml")
	text = strings.ReplaceAll(text, "/etc/cks-drift-exporter/tls", dir)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "web-config", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool check web-config: %v\n%s\n%s", err, out, text)
	}
}
