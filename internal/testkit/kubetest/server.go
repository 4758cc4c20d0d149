// Package kubetest runs a fake Kubernetes API server on loopback, with TLS under its own CA, client-certificate and bearer-token authentication and a paged node list.
package kubetest

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Node is what a test says about one Kubernetes node; the server dresses it as the Node object
// a kubeadm cluster's API server returns.
type Node struct {
	Name       string
	SystemUUID string
	// KubeletVersion is what status.nodeInfo.kubeletVersion says; empty means v1.28.4.
	KubeletVersion string
}

// Credential is one identity the server accepts. Exactly one of Token or the client
// certificate (CertPEM with KeyPEM) is set.
type Credential struct {
	Token   string
	CertPEM []byte
	KeyPEM  []byte
	user    string
}

// Server is a fake API server. Its methods are safe for concurrent use, also while a client is in
// the middle of a list.
type Server struct {
	ts *httptest.Server
	ca *authority

	mu        sync.Mutex
	nodes     []Node
	tokens    map[string]bool // token -> may list nodes
	certs     map[string]bool // client certificate serial -> may list nodes
	requests  []Request
	maxLimit  int           // the server's own cap on limit; 0: none
	status    int           // answer every list with this status when not 0
	delay     time.Duration // before each answer
	answer    http.HandlerFunc
	closed    chan struct{}
	closeOnce sync.Once
}

// Request is one call the server received, for tests that check paging and credentials.
type Request struct {
	Path     string
	Limit    string
	Continue string
	User     string // the authenticated user; empty when authentication failed
}

// NewServer starts a Server on 127.0.0.1 with a new CA and no nodes.
func NewServer() (*Server, error) {
	ca, serving, err := newServing()
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	s := &Server{ca: ca, tokens: make(map[string]bool), certs: make(map[string]bool), closed: make(chan struct{})}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.TLS = &tls.Config{
		Certificates: []tls.Certificate{serving},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS12,
	}
	s.ts.StartTLS()
	return s, nil
}

// URL is the API server's address, https://127.0.0.1:PORT.
func (s *Server) URL() string { return s.ts.URL }

// CAPEM is the PEM of the CA that signed the serving certificate.
func (s *Server) CAPEM() []byte { return s.ca.certPEM }

// Close stops the server; answers waiting on a delay give up first.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.ts.Close()
}

// SetNodes replaces the node list.
func (s *Server) SetNodes(nodes ...Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes = append([]Node(nil), nodes...)
}

// SetMaxLimit caps the page size the server answers with, whatever limit the client asks for,
// as an API server under load may.
func (s *Server) SetMaxLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxLimit = n
}

// SetStatus makes every node list answer with code and a Status body; 0 answers normally.
func (s *Server) SetStatus(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
}

// SetDelay holds every answer back by d, or until the client gives up.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Requests returns the calls received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// NewToken returns a bearer token the server accepts; canList false makes it a valid identity
// without the right to list nodes (403).
func (s *Server) NewToken(canList bool) Credential {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	tok := "kubetest-token-" + hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[tok] = canList
	return Credential{Token: tok}
}

// NewClientCert returns a client certificate signed by the server's CA for user.
func (s *Server) NewClientCert(user string, canList bool) (Credential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pair, certPEM, keyPEM, err := s.ca.issue(user, "system:masters", false)
	if err != nil {
		return Credential{}, err
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return Credential{}, fmt.Errorf("parse client certificate: %w", err)
	}
	s.certs[leaf.SerialNumber.String()] = canList
	return Credential{CertPEM: certPEM, KeyPEM: keyPEM, user: user}, nil
}

// Revoke stops accepting every credential issued so far, as rotating a cluster's certificates
// or deleting a service account's token does.
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
	clear(s.certs)
}

// SetAnswer makes h answer every request instead of the server, after the request is recorded
// (Requests; its User is who the credential names, whatever h does); nil restores the server's
// own answers. Tests play a hostile API server with it: redirects, endless bodies, deep JSON.
func (s *Server) SetAnswer(h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = h
}
