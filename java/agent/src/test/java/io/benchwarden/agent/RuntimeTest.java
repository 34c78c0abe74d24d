package io.benchwarden.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeTest {

    @Test
    void tracerCountsExactlyAndNamesCanonically() throws Exception {
        Tracer.reset();
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 25_000; i++) {
                    Tracer.hit("a.B|m|(int,java.lang.String)");
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        Tracer.hit("a.B|n|()");
        Map<String, Long> counts = Tracer.snapshot();
        assertEquals(100_000L, counts.get("a.B#m(int,java.lang.String)"));
        assertEquals(1L, counts.get("a.B#n()"));
        assertEquals(2, counts.size());
    }

    @Test
    void nestedActivationsWaitOnlyOnceAtTheOutermost() {
        // factor 100 on 1 ms of work: a wrong wait at the nested exit would cost 100 ms, far above timer noise.
        Slowdown.factor = 100.0;
        Slowdown.overheadNs = 0;
        try {
            long start = System.nanoTime();
            long outer = Slowdown.enter();
            long inner = Slowdown.enter();
            assertEquals(Slowdown.NESTED, inner);
            Slowdown.spin(1_000_000);
            Slowdown.exit(inner);
            long afterInnerNs = System.nanoTime() - start;
            Slowdown.exit(outer);
            long totalNs = System.nanoTime() - start;
            assertTrue(afterInnerNs < 50_000_000, "nested exit must not wait, took " + afterInnerNs + " ns");
            assertTrue(totalNs >= 101 * 1_000_000, "outermost exit must wait 100x the elapsed time, total " + totalNs);
        } finally {
            Slowdown.factor = 0.0;
        }
        long again = Slowdown.enter();
        Slowdown.exit(again);
        assertTrue(again != Slowdown.NESTED, "depth must be back to zero after both exits");
    }

    @Test
    void arrayParametersAreNamedInSourceNotation() {
        assertEquals("a.B#main(java.lang.String[])", Tracer.canonical("a.B|main|([Ljava.lang.String;)"));
        assertEquals("a.B#m(int[][],long)", Tracer.canonical("a.B|m|([[I,long)"));
        assertEquals("a.B#m()", Tracer.canonical("a.B|m|()"));
    }

    @Test
    void jsonEscaping() {
        assertEquals("a\\\"b\\\\c\\n", Json.escape("a\"b\\c\n"));
    }
}
