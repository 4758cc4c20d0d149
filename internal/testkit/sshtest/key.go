package sshtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"fmt"

	"golang.org/x/crypto/ssh"
)

// Key types GenerateKey knows, named as ssh-keygen -t names them.
const (
	ED25519 = "ed25519"
	ECDSA   = "ecdsa"
	RSA     = "rsa"
)

// NewKey generates an ed25519 key pair for a client or a host. It returns the signer and the
// private key as an OpenSSH PEM block, so that tests and the demo can write it to a file that
// the exporter loads like the management server's id_rsa.
func NewKey() (ssh.Signer, []byte, error) {
	return GenerateKey(ED25519)
}

// GenerateKey is NewKey for a key type: ed25519, ecdsa (P-256) or rsa (3072 bits, as ssh-keygen
// makes them), so that tests can give a node the host keys Debian's sshd has, or log in with
// each kind of user key.
func GenerateKey(keyType string) (ssh.Signer, []byte, error) {
	var priv crypto.Signer
	var err error
	switch keyType {
	case ED25519:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	case ECDSA:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case RSA:
		priv, err = rsa.GenerateKey(rand.Reader, 3072)
	default:
		return nil, nil, fmt.Errorf("unknown key type %q", keyType)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("generate %s key: %w", keyType, err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("signer from key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "sshtest")
	if err != nil {
		return nil, nil, fmt.Errorf("marshal private key: %w", err)
	}
	return signer, pem.EncodeToMemory(block), nil
}
