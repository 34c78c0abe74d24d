package io.benchwarden.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SelfCallsTest {

    static final class Subject {
        static int fact(int n) {
            return n <= 1 ? 1 : n * fact(n - 1);
        }

        static int fact(long n) { // same name, other descriptor: calls the int overload, not itself
            return fact((int) n);
        }

        int depth(int n) {
            return n == 0 ? 0 : 1 + depth(n - 1);
        }

        static int plain(int n) {
            return Math.abs(n) + fact(n);
        }
    }

    @Test
    void findsExactlyTheMethodsThatInvokeThemselves() throws IOException {
        byte[] bytes;
        try (InputStream in = Subject.class.getResourceAsStream("SelfCallsTest$Subject.class")) {
            bytes = in.readAllBytes();
        }
        assertEquals(Set.of("fact(I)I", "depth(I)I"), SelfCalls.in(bytes));
    }
}
