package rabbitmqtest

import (
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestBrokerStopsAndStartsAgain: the broker takes connections, refuses them while stopped, and
// takes them again after Restart on the same address.
func TestBrokerStopsAndStartsAgain(t *testing.T) {
	b := Start(t)
	conn, err := amqp.Dial(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	b.Stop()
	if conn, err := amqp.Dial(b.URL()); err == nil {
		_ = conn.Close()
		t.Fatal("connected to a stopped broker")
	}
	b.Restart()
	conn, err = amqp.Dial(b.URL())
	if err != nil {
		t.Fatalf("after Restart: %v", err)
	}
	_ = conn.Close()
}
