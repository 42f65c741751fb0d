package natscluster

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// Link is a venue's internet connection on loopback: TCP relays from
// local ports to the hub nodes' leaf node ports. Cut drops every
// connection through it and refuses new ones, as a venue whose line went
// down; Restore brings it back on the same ports.
type Link struct {
	mu      sync.Mutex
	targets []string
	ports   []int
	ls      []net.Listener
	conns   map[net.Conn]struct{}
	up      bool
}

// NewLink relays a local port to each of targets (HOST:PORT), up.
func NewLink(targets []string) (*Link, error) {
	ports, err := freePorts(len(targets))
	if err != nil {
		return nil, err
	}
	l := &Link{targets: targets, ports: ports, conns: map[net.Conn]struct{}{}}
	return l, l.Restore()
}

// Addrs are the local HOST:PORTs, one per target.
func (l *Link) Addrs() []string {
	out := make([]string, len(l.ports))
	for i, p := range l.ports {
		out[i] = fmt.Sprintf("127.0.0.1:%d", p)
	}
	return out
}

// Up says the link carries traffic.
func (l *Link) Up() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.up
}

// Restore listens again and relays new connections.
func (l *Link) Restore() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.up {
		return nil
	}
	for i, p := range l.ports {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			for _, o := range l.ls {
				_ = o.Close()
			}
			l.ls = nil
			return fmt.Errorf("natscluster: link: %w", err)
		}
		l.ls = append(l.ls, ln)
		go l.accept(ln, l.targets[i])
	}
	l.up = true
	return nil
}

// Cut closes the listeners and every connection relayed.
func (l *Link) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ln := range l.ls {
		_ = ln.Close()
	}
	for c := range l.conns {
		_ = c.Close()
	}
	l.ls, l.conns, l.up = nil, map[net.Conn]struct{}{}, false
}

func (l *Link) accept(ln net.Listener, target string) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return // closed by Cut
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			_ = in.Close()
			continue
		}
		l.mu.Lock()
		if !l.up {
			l.mu.Unlock()
			_ = in.Close()
			_ = out.Close()
			return
		}
		l.conns[in], l.conns[out] = struct{}{}, struct{}{}
		l.mu.Unlock()
		go l.pipe(in, out)
		go l.pipe(out, in)
	}
}

// pipe copies one direction; when either side ends, both close.
func (l *Link) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src) // ends at a cut or when a peer goes
	_ = dst.Close()
	_ = src.Close()
	l.mu.Lock()
	delete(l.conns, dst)
	delete(l.conns, src)
	l.mu.Unlock()
}
