package legacy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.Test;

/**
 * A JUnit 4 test that asks for another host: screened like a Jupiter test (the guard is the launcher's, not an
 * engine's). 203.0.113.0/24 is TEST-NET-3 (RFC 5737): nothing is sent, the guard refuses first.
 */
public class LegacyNetworkTest {
    @Test
    public void connectsToAnotherHost() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 203, 0, 113, 7}), 443),
                    200);
        }
    }
}
