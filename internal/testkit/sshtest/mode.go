package sshtest

import "fmt"

// Mode selects how the server misbehaves, so that a client's error handling can be exercised
// against a real SSH stack rather than a mock of one.
type Mode int

// Modes of the fake control node. Modes that concern the connection (Refuse, HangHandshake) apply
// to connections accepted after SetMode; modes that concern the command apply to commands started
// after SetMode.
const (
	// Normal answers kubectl get nodes as kubectl prints it, and exit 0.
	Normal Mode = iota
	// Refuse accepts the TCP connection and closes it at once, as a host with sshd down behind
	// a port forward does.
	Refuse
	// HangHandshake accepts the TCP connection and never sends the SSH version line, until the
	// client gives up or the server is closed.
	HangHandshake
	// FailCommand makes kubectl exit 1 with a message on stderr, as when the API server is down.
	FailCommand
	// Garbage makes kubectl exit 0 with output that is not a node list.
	Garbage
	// Huge makes kubectl exit 0 after printing more than 8 MiB of node lines.
	Huge
	// HangCommand completes the handshake and starts the command, which never answers until the
	// session or the server is closed.
	HangCommand
	// FloodStderr starts the command, which writes to stderr without end.
	FloodStderr
	// Drip starts the command, which prints a node line one byte every 10 ms and never ends.
	Drip
	// EndlessBanner accepts the TCP connection and writes lines before the SSH version line
	// without end.
	EndlessBanner
	// OpenChannels opens 50 channels towards the client (forwarded-tcpip, x11, agent, session)
	// after the handshake, then answers as Normal.
	OpenChannels
	// KeyboardInteractiveOnly offers only keyboard-interactive authentication, with prompts.
	KeyboardInteractiveOnly
	// Forbidden makes kubectl exit 1 with what real kubectl prints when RBAC refuses its
	// kubeconfig the node list.
	Forbidden
	// APITimeout makes kubectl exit 1 with what real kubectl without a discovery cache prints
	// when its API server accepts connections and never answers: five klog lines, then
	// "Unable to connect to the server: context deadline exceeded".
	APITimeout
	// RekeyFlood asks for a new key exchange after every 256 bytes it writes (x/crypto/ssh's
	// lowest RekeyThreshold) and prints node lines without end.
	RekeyFlood
)

// HugeSize is how many bytes Huge mode prints at least: more than any sane output cap.
const HugeSize = 8<<20 + 64<<10

// String names the mode, for test names and logs.
func (m Mode) String() string {
	switch m {
	case Normal:
		return "normal"
	case Refuse:
		return "refuse"
	case HangHandshake:
		return "hang_handshake"
	case FailCommand:
		return "fail_command"
	case Garbage:
		return "garbage"
	case Huge:
		return "huge"
	case HangCommand:
		return "hang_command"
	case FloodStderr:
		return "flood_stderr"
	case Drip:
		return "drip"
	case EndlessBanner:
		return "endless_banner"
	case OpenChannels:
		return "open_channels"
	case KeyboardInteractiveOnly:
		return "keyboard_interactive_only"
	case Forbidden:
		return "forbidden"
	case APITimeout:
		return "api_timeout"
	case RekeyFlood:
		return "rekey_flood"
	default:
		return fmt.Sprintf("mode(%d)", int(m))
	}
}
