package legacy;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import org.junit.Before;
import org.junit.Ignore;
import org.junit.Test;

/** JUnit 4 tests: run through the JUnit Platform's vintage engine. */
public class LegacyTest {
    private int[] data;

    /** 5 ms before every execution: JUnit 4 has no hook around the body alone, so this is timed too. */
    @Before
    public void setUp() throws InterruptedException {
        Thread.sleep(5);
        data = new int[1000];
        for (int i = 0; i < data.length; i++) {
            data[i] = i % 7;
        }
    }

    @Test
    public void cheapBody() {
        int sum = 0;
        for (int x : data) {
            sum += x;
        }
        assertEquals(2997, sum);
    }

    @Test
    public void failsDeliberately() {
        fail("deliberately broken, JUnit 4 style");
    }

    @Test
    @Ignore("not today either")
    public void ignored() {
    }
}
