package fixture;

import io.benchwarden.spl.SPL;

/** Golden fixture for benchwarden's class-file reader (tests/unit/spl/test_spl_annotations.py). */
public class Annotated {
    public static final long BIG = 1234567890123L;      // a long constant: two constant-pool entries
    public static final double RATIO = 1.05;            // a double constant: two entries
    public static final String NOTE = "naïve ≤ ünïcödé \u0000 😀";  // modified UTF-8: NUL and a surrogate pair

    @SPL("SELF <= 2 * Annotated.other")
    public int single() { return 1; }

    @SPL({"SELF(1000) <= 12 * SELF(100)", "SELF(100) >= 1us"})
    @Deprecated
    public int several() { return 2; }

    @Deprecated
    public int other() { return 3; }

    @SPL("SELF <= 1.05 * Annotated.other  # ≤ in a comment")
    public int unicode() { return 4; }

    public static class Nested {
        @SPL("SELF <= 1ms")
        public int inner() { return 5; }
    }
}
