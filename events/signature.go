package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// Sign returns what CloudStack sends as X-CS-Signature for body: the Base64 of its HMAC-SHA256
// with the webhook's secret key (WebhookDeliveryThread.generateHMACSignature at 4.20.0.0,
// plugins/event-bus/webhook/src/main/java/org/apache/cloudstack/mom/webhook/
// WebhookDeliveryThread.java; the payload and the key as UTF-8).
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Verify says whether signature is body's signature with secret. The comparison takes the same
// time wherever the signatures differ (hmac.Equal), so that a forger learns nothing from it. An
// empty secret verifies nothing.
func Verify(secret, body []byte, signature string) bool {
	if len(secret) == 0 {
		return false
	}
	got, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}
