package cloudstacktest

import (
	"io"
	"net/http"
	"testing"
)

// AnswerBytes counts the bytes of every answer body, errors included.
func TestAnswerBytes(t *testing.T) {
	t.Parallel()
	s := NewServer()
	defer s.Close()
	var read int64
	for _, q := range []string{"command=listZones&response=json", "command=listZones&response=xml"} {
		resp, err := http.Get(s.Endpoint() + "?" + q) // unsigned: answered with an error body
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		read += n
	}
	if got := s.AnswerBytes(); got != read || got == 0 {
		t.Errorf("AnswerBytes() = %d, want the %d bytes read", got, read)
	}
}
