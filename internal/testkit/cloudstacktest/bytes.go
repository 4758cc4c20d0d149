package cloudstacktest

import "net/http"

// countingWriter counts the bytes of the answers, so that a benchmark can say what the API's
// answers cost the network.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

// AnswerBytes returns the bytes of every answer body the server wrote since it started.
func (s *Server) AnswerBytes() int64 { return s.answerBytes.Load() }
