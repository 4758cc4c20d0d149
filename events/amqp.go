package events

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Bus says how to reach CloudStack's RabbitMQ event bus.
type Bus struct {
	URL      string // amqp:// or amqps://host:port/vhost, without credentials
	Exchange string // the exchange CloudStack publishes to (its "exchange" setting)
	Username string
	Password string
	TLS      *tls.Config // for amqps://; nil: the system's roots
}

// The pace of reconnecting: the first retry after minBackoff, each next one twice as late up to
// maxBackoff, with a random part so that replicas do not come back at once.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// maxMessage bounds an event read from the bus, as MaxBody bounds a webhook delivery.
const maxMessage = MaxBody

// The log lines of the consumer: the first connection, the first failure and the first
// connection after failures (not every retry).
const (
	MsgBusConsuming = "Consuming CloudStack's event bus"
	MsgBusLost      = "Lost CloudStack's event bus; trying again with backoff, the cycle still finds every change"
	MsgBusAgain     = "Connected to CloudStack's event bus again"
)

// Consumer reads CloudStack's events from its RabbitMQ exchange through a queue of its own (the
// broker names it; it goes when the connection does), bound to the WatchedTypes.
type Consumer struct {
	Bus     Bus
	Deliver func(Event) // must not block
	Metrics *Metrics
	Logger  *slog.Logger
	Now     func() time.Time
	// Connected, when set, is told each time a connection is ready and each time it is lost.
	Connected func(bool)
	// MaxBackoff bounds the pause between two tries to connect; 0 means a minute.
	MaxBackoff time.Duration
}

// Run consumes until ctx ends, connecting again after every loss with a growing pause. The first
// failure and the first success after failures are logged, not every retry.
func (c *Consumer) Run(ctx context.Context) {
	ceiling := c.MaxBackoff
	if ceiling <= 0 {
		ceiling = maxBackoff
	}
	backoff := min(minBackoff, ceiling)
	failing, first := false, true
	for {
		err := c.consume(ctx, func() {
			backoff = min(minBackoff, ceiling)
			switch {
			case failing:
				c.Logger.Info(MsgBusAgain, "url", c.Bus.URL)
			case first:
				c.Logger.Info(MsgBusConsuming, "url", c.Bus.URL, "exchange", c.Bus.Exchange)
			}
			failing, first = false, false
		})
		if ctx.Err() != nil {
			return
		}
		if !failing {
			c.Logger.Warn(MsgBusLost, "url", c.Bus.URL, "err", err)
		}
		failing = true
		pause := backoff/2 + rand.N(backoff/2+1)
		backoff = min(backoff*2, ceiling)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
	}
}

// consume connects, binds and reads deliveries until the connection ends or ctx does; ready is
// called once the queue is bound.
func (c *Consumer) consume(ctx context.Context, ready func()) error {
	conn, err := amqp.DialConfig(c.Bus.URL, amqp.Config{
		SASL:            []amqp.Authentication{&amqp.PlainAuth{Username: c.Bus.Username, Password: c.Bus.Password}},
		TLSClientConfig: c.Bus.TLS,
		Heartbeat:       10 * time.Second,
		Dial:            amqp.DefaultDial(10 * time.Second),
		Properties:      amqp.Table{"connection_name": "cks-drift-exporter"},
	})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("open a channel: %w", err)
	}
	// CloudStack declares the same: a durable topic exchange (RabbitMQEventBus.createExchange).
	if err := ch.ExchangeDeclare(c.Bus.Exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare exchange %s: %w", c.Bus.Exchange, err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, amqp.Table{"x-max-length": int32(10000), "x-overflow": "drop-head"})
	if err != nil {
		return fmt.Errorf("declare a queue: %w", err)
	}
	for _, key := range Bindings() {
		if err := ch.QueueBind(q.Name, key, c.Bus.Exchange, false, nil); err != nil {
			return fmt.Errorf("bind %s: %w", key, err)
		}
	}
	msgs, err := ch.Consume(q.Name, "cks-drift-exporter", true, true, false, false, nil)
	if err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	ready()
	if c.Connected != nil {
		c.Connected(true)
		defer c.Connected(false)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-closed:
			if err == nil {
				return errors.New("connection closed")
			}
			return err
		case m, ok := <-msgs:
			if !ok {
				return errors.New("deliveries ended")
			}
			c.take(m)
		}
	}
}

// take reads one message: the event's JSON, its resource from the routing key where the body
// lacks it.
func (c *Consumer) take(m amqp.Delivery) {
	if len(m.Body) > maxMessage {
		c.Metrics.Count(SourceAMQP, Rejected)
		return
	}
	e, err := Parse(m.Body)
	if err != nil {
		c.Metrics.Count(SourceAMQP, Ignored)
		c.Logger.Debug("A message of CloudStack's event bus is no action event", "routing_key", m.RoutingKey, "err", err)
		return
	}
	fromRoutingKey(&e, m.RoutingKey)
	e.Source, e.Received = SourceAMQP, c.Now()
	c.Deliver(e)
}
