package config

import (
	"net/url"
	"time"
)

// Events says how the exporter hears of changes from CloudStack's own events, so that a change
// is checked within seconds rather than at the next cycle. The cycle every check.interval stays:
// CloudStack raises no event for a host failure, HA or its own state scanner.
type Events struct {
	Webhook EventsWebhook `yaml:"webhook"`
	AMQP    EventsAMQP    `yaml:"amqp"`
	// RecheckDelay is how long the exporter waits after an event before it re-checks the event's
	// cluster: the events of one operation (a scale's VM.CREATE, VM.START and
	// KUBERNETES.CLUSTER.SCALE) within it make one re-check.
	RecheckDelay time.Duration `yaml:"recheck_delay"`
	// MaxRechecksPerMinute bounds the re-checks across the cloud, shared fairly between tenants
	// (accounts and projects): none takes more than an equal share with one share kept free for a
	// tenant that has not asked yet (half while it is alone), so that a tenant who creates and
	// destroys VMs in a loop spends only its own share; events past it are counted (over_budget)
	// and left to the next cycle. 0 turns re-checks off.
	MaxRechecksPerMinute int `yaml:"max_rechecks_per_minute"`
}

// EventsWebhook is CloudStack's webhook (4.20 on): a Global webhook (createWebhook scope=Global)
// posting to /cloudstack/events, each delivery signed with the webhook's secret key.
type EventsWebhook struct {
	Enabled bool `yaml:"enabled"` // Serve POST /cloudstack/events for a CloudStack webhook (CloudStack 4.20 on).
	// SecretKey is the webhook's secretkey, with which CloudStack signs every delivery
	// (X-CS-Signature); required when enabled, inline (as "${VAR}") or in SecretKeyFile.
	SecretKey     Secret `yaml:"secret_key,omitempty"`
	SecretKeyFile string `yaml:"secret_key_file,omitempty"` // A file holding the webhook's secret_key.
}

// EventsAMQP is CloudStack's RabbitMQ event bus (any release with the plugin): the exporter binds
// a queue of its own to the exchange CloudStack publishes to.
type EventsAMQP struct {
	URL          string `yaml:"url"`                     // The broker, amqp:// or amqps://host:port/vhost, without credentials; empty: off.
	Exchange     string `yaml:"exchange"`                // The exchange CloudStack publishes to (the "exchange" of its event bus's RabbitMQEventBus bean).
	Username     string `yaml:"username"`                // The broker user, required with url.
	Password     Secret `yaml:"password,omitempty"`      // Its password, inline (as "${VAR}"); or password_file.
	PasswordFile string `yaml:"password_file,omitempty"` // A file holding the password.
	CAFile       string `yaml:"ca_file"`                 // The CA of the broker's TLS certificate (amqps://), instead of the system roots.
	CertFile     string `yaml:"cert_file"`               // A client certificate for amqps://, with key_file.
	KeyFile      string `yaml:"key_file"`                // The client certificate's key.
}

// maxRecheckDelay bounds events.recheck_delay: a longer wait is what the cycle is for.
const maxRecheckDelay = time.Minute

// events checks the events section.
func (v *validation) events(e Events) {
	if e.Webhook.Enabled {
		// Without a secret anyone who reaches the port could make the exporter read CloudStack.
		v.onePair("events.webhook.secret_key", e.Webhook.SecretKey, e.Webhook.SecretKeyFile)
	}
	if e.RecheckDelay < 0 || e.RecheckDelay > maxRecheckDelay {
		v.keyf("events.recheck_delay", "must be between 0s and %s, not %s", maxRecheckDelay, e.RecheckDelay)
	}
	v.between("events.max_rechecks_per_minute", e.MaxRechecksPerMinute, 0, 100000)
	v.amqp(e.AMQP)
}

// amqp checks events.amqp: credentials never in the URL, where every log line would show them.
func (v *validation) amqp(a EventsAMQP) {
	if a.URL == "" {
		return
	}
	u, err := url.Parse(a.URL)
	switch {
	case err != nil || (u.Scheme != "amqp" && u.Scheme != "amqps") || u.Host == "":
		v.keyf("events.amqp.url", "must be an amqp or amqps URL such as amqps://rabbitmq.example.com:5671/")
	case u.User != nil:
		v.keyf("events.amqp.url", "must not hold credentials: use events.amqp.username and events.amqp.password_file")
	}
	v.notEmpty("events.amqp.exchange", a.Exchange)
	v.notEmpty("events.amqp.username", a.Username)
	v.onePair("events.amqp.password", a.Password, a.PasswordFile)
	if (a.CertFile == "") != (a.KeyFile == "") {
		v.keyf("events.amqp.cert_file", "needs events.amqp.key_file, and the other way round")
	}
}
