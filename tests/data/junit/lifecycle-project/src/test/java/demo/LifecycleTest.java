package demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

class LifecycleTest {
    static int befores;
    int[] data;

    /** 5 ms of sleep before every execution: if the lifecycle were timed, no execution could take less. */
    @BeforeEach
    void setUp() throws InterruptedException {
        Thread.sleep(5);
        befores++;
        data = new int[1000];
        for (int i = 0; i < data.length; i++) {
            data[i] = i % 7;
        }
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        Thread.sleep(1);
    }

    @Test
    void cheapBody() {
        assertEquals(2997, Sums.sum(data));
    }

    /** Tests print; that must not break the launcher's protocol on stdout (not even without a line break). */
    @Test
    void printsToStandardOutput() {
        System.out.print("no line break, then ");
        System.out.println("{\"v\":1,\"error\":\"a test's print that looks like the protocol\"}");
        assertEquals(3, Sums.sum(new int[] {1, 2}));
    }

    @Test
    void failsDeliberately() {
        fail("deliberately broken");
    }

    @Test
    @Disabled("not today")
    void disabled() {
    }

    @Test
    void assumesTheImpossible() {
        Assumptions.assumeTrue(false, "never true");
    }
}
