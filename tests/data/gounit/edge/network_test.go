package edge

import (
	"net"
	"testing"
	"time"
)

// The network tests: benchwarden screens each test by one untimed execution and skips those that ask for
// another host. 203.0.113.0/24 is TEST-NET-3 (RFC 5737: no host answers there) and .invalid never resolves
// (RFC 6761); both pass whatever the network says, so only the screening can tell.

// TestDialsAnotherHost connects to a TEST-NET address and carries on when nothing answers.
func TestDialsAnotherHost(t *testing.T) {
	if conn, err := net.DialTimeout("tcp", "203.0.113.1:9", 200*time.Millisecond); err == nil {
		conn.Close()
	}
}

// TestResolvesAName asks the name server for a name that does not exist.
func TestResolvesAName(t *testing.T) {
	_, _ = net.LookupHost("benchwarden-screening.invalid")
}

// TestTalksToItselfOverLoopback runs a server and a client on loopback, the client by the name "localhost":
// this machine only, measured.
func TestTalksToItselfOverLoopback(t *testing.T) {
	server, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	_, port, _ := net.SplitHostPort(server.Addr().String())
	done := make(chan byte)
	go func() {
		conn, err := server.Accept()
		if err != nil {
			close(done)
			return
		}
		defer conn.Close()
		buf := make([]byte, 1)
		_, _ = conn.Read(buf)
		done <- buf[0]
	}()
	client, err := net.Dial("tcp", net.JoinHostPort("localhost", port))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.Write([]byte{42}); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got != 42 {
		t.Fatalf("read %d, want 42", got)
	}
}
