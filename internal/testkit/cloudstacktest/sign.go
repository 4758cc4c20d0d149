package cloudstacktest

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"time"
)

// encodeValues serialises the parameters the way CloudStack and cloudstack-go (EncodeValues) do
// before signing: names sorted, values query-escaped with "+" written as "%20" and "*" left bare.
// It is written out here rather than imported so that a change in the SDK shows up as a failing
// signature test instead of silently changing both sides.
func encodeValues(v url.Values) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, val := range v[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			escaped := url.QueryEscape(val)
			escaped = strings.ReplaceAll(escaped, "+", "%20")
			escaped = strings.ReplaceAll(escaped, "%2A", "*")
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(escaped)
		}
	}
	return b.String()
}

// Sign returns the signature CloudStack expects for params (every parameter but "signature"),
// so tests can hand-craft requests that the server accepts.
func Sign(params url.Values, secret string) string {
	unsigned := url.Values{}
	for k, v := range params {
		if k != "signature" {
			unsigned[k] = v
		}
	}
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(strings.ToLower(encodeValues(unsigned))))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// authenticate reports why a request must be refused with 401, or "" when its key, signature and
// (for signatureversion 3) expiry are good. The reasons only reach the call log and the error
// text; real CloudStack answers every case with the same sentence.
func authenticate(params url.Values, apiKey, secret string, now time.Time) string {
	if params.Get("apiKey") != apiKey {
		return "unknown api key"
	}
	sig := params.Get("signature")
	if sig == "" {
		return "missing signature"
	}
	if !hmac.Equal([]byte(sig), []byte(Sign(params, secret))) {
		return "signature mismatch"
	}
	if params.Get("signatureversion") == "3" {
		exp := params.Get("expires")
		if exp == "" {
			return "missing expires"
		}
		t, ok := parseExpires(exp)
		if !ok {
			return "unparseable expires"
		}
		if t.Before(now) {
			return "request expired"
		}
	}
	return ""
}

// parseExpires accepts the RFC 3339 form the Go SDK sends and the "+0000" form other clients
// (and CloudStack's own UI) send.
func parseExpires(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05-0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
