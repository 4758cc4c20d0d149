// Package browsertest drives a headless Chromium over the DevTools protocol, so that a test can
// measure a page as a browser lays it out and keep a screenshot of it.
package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// The protocol runs on a pair of pipes (--remote-debugging-pipe): Chromium reads commands from
// its file descriptor 3 and writes answers and events to 4, each message JSON ended by a NUL
// byte. No port is opened and no WebSocket library is needed.

// timeout bounds every command and every wait for an event, so that a hung browser fails the
// test instead of hanging it.
const timeout = 60 * time.Second

// Browser is one headless Chromium.
type Browser struct {
	cmd    *exec.Cmd
	send   *os.File
	recv   *os.File
	read   *bufio.Reader
	nextID int
	events []message // events read while waiting for an answer, not yet taken
	stderr bytes.Buffer
}

type message struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start runs the Chromium at bin headless; it is ended when the test ends. Its helpers run in a
// process group of their own, which is killed with it, so that nothing outlives the test.
func Start(t testing.TB, bin string) *Browser {
	t.Helper()
	cmdR, cmdW, err := os.Pipe() // commands: we write, Chromium reads on fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // answers: Chromium writes on fd 4, we read
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir="+t.TempDir(),
		"about:blank")
	b := &Browser{cmd: cmd, send: cmdW, recv: outR, read: bufio.NewReaderSize(outR, 1<<20)}
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	cmd.Stderr = &b.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", bin, err)
	}
	_ = cmdR.Close() // Chromium's ends
	_ = outW.Close()
	t.Cleanup(func() {
		_ = cmdW.Close()
		cancel()
		_ = cmd.Wait()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left behind
		_ = outR.Close()
	})
	return b
}

// call sends a command (of a page's session, or of the browser when session is empty) and
// returns its result; the events read meanwhile are kept for waitEvent.
func (b *Browser) call(session, method string, params any, result any) error {
	b.nextID++
	id := b.nextID
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	msg, err := json.Marshal(message{ID: id, SessionID: session, Method: method, Params: raw})
	if err != nil {
		return err
	}
	if _, err := b.send.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %w (stderr: %s)", method, err, b.stderr.String())
	}
	for {
		m, err := b.next()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.ID != id {
			if m.Method != "" {
				b.events = append(b.events, m)
			}
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}

// next reads one message, waiting at most timeout.
func (b *Browser) next() (message, error) {
	_ = b.recv.SetReadDeadline(time.Now().Add(timeout))
	line, err := b.read.ReadBytes(0)
	if err != nil {
		return message{}, fmt.Errorf("read from the browser: %w (stderr: %s)", err, b.stderr.String())
	}
	var m message
	err = json.Unmarshal(line[:len(line)-1], &m)
	return m, err
}

// waitEvent waits for an event of a session, taking one read earlier first.
func (b *Browser) waitEvent(session, method string) error {
	for {
		for i, m := range b.events {
			if m.SessionID == session && m.Method == method {
				b.events = append(b.events[:i:i], b.events[i+1:]...)
				return nil
			}
		}
		m, err := b.next()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", method, err)
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
	}
}

// Page is one tab, laid out at a fixed viewport.
type Page struct {
	b       *Browser
	session string
	width   int
}

// Open loads url in a new tab whose viewport is width × height CSS pixels (mobile: laid out as
// a phone, with its viewport meta tag honoured) and returns once the page has loaded.
func (b *Browser) Open(url string, width, height int, mobile bool) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: attached.SessionID, width: width}
	if err := b.call(p.session, "Page.enable", struct{}{}, nil); err != nil {
		return nil, err
	}
	metrics := map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
	if err := b.call(p.session, "Emulation.setDeviceMetricsOverride", metrics, nil); err != nil {
		return nil, err
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call(p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
	}
	return p, b.waitEvent(p.session, "Page.loadEventFired")
}

// Eval evaluates a JavaScript expression in the page and decodes its value (JSON-able) into out.
// DevTools evaluates outside the page's Content-Security-Policy, so a page that allows no
// script can still be measured.
func (p *Page) Eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	params := map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}
	if err := p.b.call(p.session, "Runtime.evaluate", params, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		return fmt.Errorf("evaluate: %s %s", e.Text, e.Exception.Description)
	}
	if len(res.Result.Value) == 0 {
		return errors.New("evaluate: no value")
	}
	return json.Unmarshal(res.Result.Value, out)
}

// Screenshot writes a PNG of the whole page, as wide as the viewport and as long as the page.
func (p *Page) Screenshot(path string) error {
	var height float64
	if err := p.Eval("document.documentElement.scrollHeight", &height); err != nil {
		return err
	}
	var shot struct {
		Data string `json:"data"`
	}
	params := map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": p.width, "height": height, "scale": 1},
	}
	if err := p.b.call(p.session, "Page.captureScreenshot", params, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}
