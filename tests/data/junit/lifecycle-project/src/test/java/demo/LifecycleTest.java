package demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /** A test template: one operation is its four repetitions, each inside the 6 ms of lifecycle. */
    @RepeatedTest(4)
    void repeatedCheapBody() {
        assertEquals(2997, Sums.sum(data));
    }

    /** A parameterized template: one operation is its three invocations, each inside the lifecycle. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void parameterizedCheapBody(int factor) {
        assertEquals(2997 * factor, factor * Sums.sum(data));
    }

    /**
     * Dynamic tests: one operation is the factory and its three tests. JUnit runs the lifecycle around the factory
     * method only (dynamic tests have none), so the 6 ms of lifecycle come once per operation, untimed.
     */
    @TestFactory
    List<DynamicTest> dynamicCheapBodies() {
        return Arrays.asList(
                DynamicTest.dynamicTest("sum", () -> assertEquals(2997, Sums.sum(data))),
                DynamicTest.dynamicTest("twice", () -> assertEquals(2 * 2997, 2 * Sums.sum(data))),
                DynamicTest.dynamicTest("thrice", () -> assertEquals(3 * 2997, 3 * Sums.sum(data))));
    }

    /** A factory whose second dynamic test fails: the whole operation fails. */
    @TestFactory
    List<DynamicTest> secondDynamicTestFails() {
        return Arrays.asList(DynamicTest.dynamicTest("one", () -> assertEquals(1, 1)),
                DynamicTest.dynamicTest("two", () -> assertEquals(1, 2, "the dynamic test two")));
    }

    /** A template whose second invocation fails: the whole operation fails. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void secondInvocationFails(int value) {
        assertEquals(1, value, "the invocation with " + value);
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
