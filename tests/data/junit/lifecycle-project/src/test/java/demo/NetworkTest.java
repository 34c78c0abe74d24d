package demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/**
 * Tests that touch the network, and one that talks only to this machine: benchwarden screens each test's first,
 * untimed execution and skips those that ask for another host. 203.0.113.0/24 is TEST-NET-3 (RFC 5737, no host
 * answers there) and .invalid never resolves (RFC 6761): nothing is sent, the guard refuses first.
 */
class NetworkTest {
    private static final byte[] TEST_NET = {(byte) 203, 0, 113, 1};

    @Test
    void connectsToAnotherHost() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByAddress(TEST_NET), 9), 200);
        }
    }

    @Test
    void resolvesAName() throws IOException {
        InetAddress.getByName("benchwarden-screening.invalid");
    }

    /** Falls back when the other host is not there: passes either way, and still touches the network. */
    @Test
    void swallowsTheRefusal() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByAddress(TEST_NET), 80), 200);
        } catch (IOException | SecurityException e) {
            // offline: nothing to check
        }
    }

    private static int executions;

    /** Every execution after the screened first one runs without the guard (nor any other Security Manager). */
    @Test
    void seesNoGuardOnceScreened() {
        if (executions++ > 0) {
            assertNull(System.getSecurityManager(), "a Security Manager is still installed while the test is timed");
        }
    }

    /**
     * Asks for this machine by its own name, as {@code getLocalHost()} does: local, measured. The guard knows the
     * name from the adapter ({@code -Dbenchwarden.hostname}); a machine whose name does not resolve passes too.
     */
    @Test
    void asksForThisMachine() {
        try {
            InetAddress.getLocalHost();
        } catch (UnknownHostException e) {
            // the name does not resolve here: nothing to check
        }
    }

    /** A server and a client on loopback, the client by the name "localhost": this machine only, measured. */
    @Test
    void talksToItselfOverLoopback() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket client = new Socket(InetAddress.getByName("localhost"), server.getLocalPort());
             Socket accepted = server.accept()) {
            client.getOutputStream().write(42);
            assertEquals(42, accepted.getInputStream().read());
        }
    }
}
