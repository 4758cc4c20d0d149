package examples

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/certtest"
	"github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/bcrypt"
)

// webConfigDir is where web-config.yml expects its files.
const webConfigDir = "/etc/cks-drift-exporter/"

// writeCert writes a self-signed certificate for 127.0.0.1 and its key.
func writeCert(t *testing.T, certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM := certtest.SelfSigned(t, "127.0.0.1")
	for f, b := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// installedWebConfig copies web-config.yml into a temporary folder that stands for
// /etc/cks-drift-exporter, with a certificate and a key where the file names them, and returns
// the copy's path: exporter-toolkit and promtool load the certificate when they check the file.
func installedWebConfig(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("web-config.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		TLS struct {
			CertFile string `yaml:"cert_file"`
			KeyFile  string `yaml:"key_file"`
		} `yaml:"tls_server_config"`
		Users map[string]string `yaml:"basic_auth_users"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{c.TLS.CertFile, c.TLS.KeyFile} {
		if !strings.HasPrefix(f, webConfigDir) {
			t.Fatalf("web-config.yml names %q, not a file under %s", f, webConfigDir)
		}
	}
	if len(c.Users) == 0 {
		t.Fatal("web-config.yml has no basic_auth_users")
	}
	for user, hash := range c.Users {
		if cost, err := bcrypt.Cost([]byte(hash)); err != nil || cost < 10 {
			t.Errorf("basic_auth_users.%s: not a bcrypt hash of cost 10 or more (cost %d, %v)", user, cost, err)
		}
	}
	dir := t.TempDir() + "/"
	writeCert(t, strings.Replace(c.TLS.CertFile, webConfigDir, dir, 1), strings.Replace(c.TLS.KeyFile, webConfigDir, dir, 1))
	path := filepath.Join(dir, "web-config.yml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), webConfigDir, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWebConfigExample: the example loads with the exporter's own web package (the code that
// serves --web.config.file), certificates and users included.
func TestWebConfigExample(t *testing.T) {
	if err := web.Validate(installedWebConfig(t)); err != nil {
		t.Fatalf("web.Validate: %v", err)
	}
}

// TestWebConfigPromtool: promtool check web-config accepts the example.
func TestWebConfigPromtool(t *testing.T) {
	promtool := requireTool(t, "promtool", "apt-get install prometheus")
	out := run(t, promtool, "check", "web-config", installedWebConfig(t))
	if !strings.Contains(out, "SUCCESS") {
		t.Fatalf("promtool check web-config:\n%s", out)
	}
}

// unitDirectives reads a unit file into "Section.Key" -> values, joining continued lines.
func unitDirectives(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := make(map[string][]string)
	section, pending := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending != "" {
			line = pending + " " + line
			pending = ""
		}
		if cut, ok := strings.CutSuffix(line, "\\"); ok {
			pending = strings.TrimSpace(cut)
			continue
		}
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = strings.Trim(line, "[]")
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: not a directive: %q", path, line)
			}
			out[section+"."+k] = append(out[section+"."+k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

const unitFile = "systemd/cks-drift-exporter.service"

// TestSystemdUnitHardening: the unit carries the sandboxing the README promises.
func TestSystemdUnitHardening(t *testing.T) {
	d := unitDirectives(t, unitFile)
	for key, want := range map[string]string{
		"User": "cks-drift-exporter", "DynamicUser": "no", "StateDirectory": "cks-drift-exporter",
		"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
		"PrivateDevices": "yes", "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes",
		"ProtectKernelLogs": "yes", "ProtectControlGroups": "yes", "RestrictNamespaces": "yes",
		"RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX", "LockPersonality": "yes",
		"MemoryDenyWriteExecute": "yes", "SystemCallFilter": "@system-service", "CapabilityBoundingSet": "",
		"AmbientCapabilities": "", "ReadOnlyPaths": "/etc/cks-drift-exporter",
		"ExecReload": "/bin/kill -HUP $MAINPID", "Restart": "on-failure",
	} {
		got, ok := d["Service."+key]
		if !ok || got[0] != want {
			t.Errorf("[Service] %s=%q, want %q", key, got, want)
		}
	}
	// --web.config.file is optional: an operator adds it to CKS_DRIFT_EXPORTER_ARGS in the
	// environment file, beside the ${VAR} values of the configuration.
	start := strings.Join(d["Service.ExecStart"], " ")
	for _, flag := range []string{"--config.file=/etc/cks-drift-exporter/", "--web.listen-address=${CKS_DRIFT_EXPORTER_LISTEN_ADDRESS} ", "$CKS_DRIFT_EXPORTER_ARGS"} {
		if !strings.Contains(start, flag) {
			t.Errorf("ExecStart %q lacks %s", start, flag)
		}
	}
	if strings.Contains(start, "--web.config.file") {
		t.Errorf("ExecStart %q passes --web.config.file, which the environment file's flags should", start)
	}
	env, want := strings.Join(d["Service.EnvironmentFile"], " "), "-/etc/default/cks-drift-exporter -/etc/sysconfig/cks-drift-exporter"
	if env != want {
		t.Errorf("EnvironmentFile=%q, want the optional %q", env, want)
	}
	// Loopback unless the environment file says otherwise: the README's Security section.
	if got, want := d["Service.Environment"], []string{"CKS_DRIFT_EXPORTER_LISTEN_ADDRESS=127.0.0.1:9862"}; !slices.Equal(got, want) {
		t.Errorf("Environment=%q, want %q", got, want)
	}
}

// TestSystemdUnitVerify: systemd-analyze verify accepts the unit without a warning. It is
// skipped, in CI too, where systemd-analyze is missing: it comes with systemd, which a CI
// container need not have, and the hardening test above checks the directives anyway. The
// binary is replaced by this test's own executable, since verify insists that it exists.
func TestSystemdUnitVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	unit := strings.Replace(string(data), "ExecStart=/usr/bin/cks-drift-exporter ", "ExecStart="+self+" ", 1)
	if unit == string(data) {
		t.Fatal("ExecStart does not start /usr/bin/cks-drift-exporter")
	}
	path := filepath.Join(t.TempDir(), filepath.Base(unitFile))
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	// Unknown or misspelt directives are only warnings (exit 0): any output fails the test.
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
