package natsbus

import (
	"strings"
	"testing"
	"time"
)

func TestEmbeddedPortInUse(t *testing.T) {
	a := startServer(t, t.TempDir(), EmbeddedOptions{Port: -1})
	start := time.Now()
	b, err := StartEmbedded(t.TempDir(), EmbeddedOptions{Port: a.Port()})
	if err == nil {
		b.Shutdown()
		t.Fatal("second server on the same port started")
	}
	if !strings.Contains(err.Error(), "listen") || time.Since(start) > 5*time.Second {
		t.Errorf("after %s: %v", time.Since(start), err)
	}
}

func TestEmbeddedConnect(t *testing.T) {
	tcp := startServer(t, t.TempDir(), EmbeddedOptions{Port: -1})
	if tcp.Port() <= 0 || !strings.HasPrefix(tcp.ClientURL(), "nats://127.0.0.1:") {
		t.Errorf("port %d url %q", tcp.Port(), tcp.ClientURL())
	}
	local := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	if local.Port() != 0 || local.ClientURL() != "" {
		t.Errorf("DontListen: port %d url %q", local.Port(), local.ClientURL())
	}
	for _, e := range []*Embedded{tcp, local} {
		nc, err := e.Connect()
		if err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Error(err)
		}
		nc.Close()
	}
	local.Shutdown()
	local.Shutdown() // twice is fine
}
