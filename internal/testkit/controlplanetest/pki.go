package controlplanetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// authority is a cluster's CA as kubeadm makes one: it signs the API server's serving
// certificate and the client certificates the API server accepts (--client-ca-file).
type authority struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

// NewCA returns the PEM certificate of a CA that signed nothing the control plane trusts, for a
// kubeconfig whose CA is wrong.
func NewCA(t testing.TB) []byte {
	t.Helper()
	return newAuthority(t, "another-ca").certPEM
}

func newAuthority(t testing.TB, name string) *authority {
	t.Helper()
	key := ecKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(48 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &authority{cert: cert, key: key, certPEM: pemBlock("CERTIFICATE", der)}
}

// issue signs a leaf: a serving certificate for 127.0.0.1 and the in-cluster names when server
// is set, else a client certificate for user in groups, the subject from which Kubernetes reads
// a client certificate's identity. It returns the certificate and its key, PEM-encoded.
func (a *authority) issue(t testing.TB, user string, groups []string, server bool) (certPEM, keyPEM []byte) {
	t.Helper()
	key := ecKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t),
		Subject:      pkix.Name{CommonName: user, Organization: groups},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(48 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		tmpl.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemBlock("CERTIFICATE", der), pemBlock("EC PRIVATE KEY", keyDER)
}

// serviceAccountKey writes the RSA key pair that signs and verifies service-account tokens, as
// kubeadm's sa.key and sa.pub.
func serviceAccountKey(t testing.TB, dir string) (keyFile, pubFile string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	writeFile(t, keyFile, pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)))
	writeFile(t, pubFile, pemBlock("PUBLIC KEY", pub))
	return keyFile, pubFile
}

func ecKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// writeFile writes a file only the test's user reads: keys and certificates.
func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
