package exporter

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestCheckConfig: --config.check calls a configuration valid only when start-up would take it:
// a missing, passphrase-protected or public SSH key, a missing known_hosts file and a DSN that
// does not parse are all refused, with the key named and without the secret.
func TestCheckConfig(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	locked, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"id_ed25519":     pem.EncodeToMemory(plain),
		"id_locked":      pem.EncodeToMemory(locked),
		"id_ed25519.pub": ssh.MarshalAuthorizedKey(signer.PublicKey()),
		"known_hosts":    nil,
		"garbage":        []byte("not a key\n"),
	}
	tests := []struct {
		name string
		ssh  string // the ssh section's lines
		more string // other sections
		want string // "" means valid
	}{
		{name: "valid", ssh: "  private_key_file: id_ed25519\n"},
		{name: "valid strict", ssh: "  private_key_file: id_ed25519\n  host_key_policy: strict\n  known_hosts_file: known_hosts\n"},
		{name: "missing key", ssh: "  private_key_file: id_missing\n", want: "ssh.private_key_file: open "},
		{name: "passphrase", ssh: "  private_key_file: id_locked\n", want: "id_locked is protected by a passphrase"},
		{name: "public key", ssh: "  private_key_file: id_ed25519.pub\n", want: "id_ed25519.pub holds a public key"},
		{name: "not a key", ssh: "  private_key_file: garbage\n", want: "garbage: ssh: no key found"},
		{name: "missing known_hosts", ssh: "  private_key_file: id_ed25519\n  host_key_policy: strict\n  known_hosts_file: nowhere\n",
			want: "read known_hosts: open "},
		{name: "bad dsn", ssh: "  private_key_file: id_ed25519\n",
			more: "inventory:\n  source: database\ndatabase:\n  dsn: 'cks:hunter2@tcp(db:3306/cloud'\n", want: "invalid dsn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range files {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "cks.yml")
			yml := "cloudstack:\n  endpoint: https://cloud.example.com/client/api\n  api_key: k\n  secret_key: s\nssh:\n" + tt.ssh + tt.more
			if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
				t.Fatal(err)
			}
			err := CheckConfig(context.Background(), path, nil, true, io.Discard)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("CheckConfig() = %v, want valid", err)
			case tt.want == "":
				return
			case err == nil:
				t.Fatalf("CheckConfig() called it valid, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("CheckConfig() = %q, want %q after the file's name", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("CheckConfig() shows the password: %q", err)
			}
		})
	}
}
