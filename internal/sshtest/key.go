package sshtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"

	"golang.org/x/crypto/ssh"
)

// NewKey generates an ed25519 key pair for a client or a host. It returns the signer and the
// private key as an OpenSSH PEM block, so that tests and the demo can write it to a file that
// the exporter loads like the management server's id_rsa.
func NewKey() (ssh.Signer, []byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate ed25519 key: %w", err)
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
