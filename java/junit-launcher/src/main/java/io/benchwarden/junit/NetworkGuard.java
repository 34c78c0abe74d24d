package io.benchwarden.junit;

import java.net.InetAddress;
import java.net.SocketPermission;
import java.security.Permission;
import java.util.Locale;

/**
 * Screens a test for network access while its first, untimed execution runs (issue #16: a test that touches the
 * network measures the network, not the code). It is a {@link SecurityManager} that allows everything except a
 * {@link SocketPermission} for a host other than this machine: resolving a name, connecting, accepting from or
 * multicasting to such a host is refused with a {@link SecurityException} before anything is sent, and the first
 * such request is remembered, so a test that catches the exception is still reported. Loopback addresses,
 * {@code localhost}, the wildcard address and this machine's own host name are local: a test with an embedded
 * server on loopback is measured.
 *
 * <p>The guard is installed for the screening execution only and removed before anything is timed: with a
 * security manager in place every permission check in the JDK runs, which would change what is measured. A
 * Security Manager needs {@code -Djava.security.manager=allow} on JDK 18-23 (the adapter passes it) and does not
 * exist from JDK 24 on (JEP 486): there {@link #install()} returns false and the test runs unscreened.
 */
final class NetworkGuard extends SecurityManager {
    /** The system property carrying this machine's host name (set by the adapter on every fork). */
    static final String HOST_NAME_PROPERTY = "benchwarden.hostname";

    /** The first non-local request of the screened execution ({@code "connect 203.0.113.1:9"}), or null. */
    private volatile String touched;
    private final String localName;

    private NetworkGuard(String localName) {
        this.localName = localName;
    }

    /**
     * Installs a guard; null when this JVM cannot have a security manager (JDK 24+, or disallowed). This machine's
     * name comes from {@link #HOST_NAME_PROPERTY}, which the adapter sets from the kernel's host name without
     * resolving anything: {@link InetAddress#getLocalHost()} resolves the name, and where it does not resolve
     * that is a DNS timeout of seconds in every fork. Without the property (the launcher run by hand) it asks
     * {@code getLocalHost()}.
     */
    static NetworkGuard install() {
        String name = System.getProperty(HOST_NAME_PROPERTY, "");
        if (name.isEmpty()) {
            try {
                name = InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException | RuntimeException e) {
                // no host name: only loopback and localhost are local then
            }
        }
        NetworkGuard guard = new NetworkGuard(name.toLowerCase(Locale.ROOT));
        try {
            System.setSecurityManager(guard);
            return guard;
        } catch (UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** Removes the guard; returns the first non-local request it refused, or null. */
    String uninstall() {
        System.setSecurityManager(null);
        return touched;
    }

    @Override
    public void checkPermission(Permission permission) {
        if (permission instanceof SocketPermission) {
            check((SocketPermission) permission);
        }
    }

    @Override
    public void checkPermission(Permission permission, Object context) {
        checkPermission(permission);
    }

    private void check(SocketPermission permission) {
        String target = permission.getName();
        if (isLocal(host(target))) {
            return;
        }
        // actions in canonical order, "connect,resolve" for a connection: the first says what was asked
        String request = permission.getActions().split(",")[0] + " " + target;
        if (touched == null) {
            touched = request;
        }
        throw new SecurityException("benchwarden: the test touches the network (" + request
                + "); tests that do are not measured");
    }

    /** The host part of a SocketPermission name: {@code host}, {@code host:ports}, {@code [v6]:ports}, {@code v6}. */
    static String host(String name) {
        if (name.startsWith("[")) {
            int end = name.indexOf(']');
            return end < 0 ? name.substring(1) : name.substring(1, end);
        }
        int colon = name.indexOf(':');
        return colon >= 0 && colon == name.lastIndexOf(':') ? name.substring(0, colon) : name;
    }

    /** Loopback, the wildcard address, {@code localhost} or this machine's name; no name is resolved here. */
    boolean isLocal(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.isEmpty() || h.equals("*") || h.equals("localhost") || h.endsWith(".localhost")
                || h.equals("localhost.localdomain") || h.equals(localName)) {
            return true;
        }
        if (h.startsWith("::ffff:")) {
            h = h.substring(7);
        }
        if (h.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}") || h.equals("0.0.0.0")) {
            return true;
        }
        return h.equals("::1") || h.equals("::") || h.matches("(0{1,4}:){7}0{0,3}1") || h.matches("(0{1,4}:){7}0{1,4}");
    }
}
