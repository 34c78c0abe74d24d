package io.benchwarden.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfilerTest {

    @Test
    void recordsOnlyUnderTheRootAndSelfIsInclusiveMinusChildren(@TempDir Path dir) throws Exception {
        Profiler.start(dir, "b.Bench", "run");
        Profiler.Tree tree = new Profiler.Tree();
        assertFalse(tree.enter("lib.A|f|()"));  // outside any root call: not recorded
        for (int op = 0; op < 3; op++) {
            assertTrue(tree.enter("b.Bench|run|(org.openjdk.jmh.infra.Blackhole)"));
            assertTrue(tree.enter("lib.A|f|(int)"));
            assertTrue(tree.enter("lib.A|g|()"));
            tree.exit();
            tree.exit();
            assertTrue(tree.enter("lib.A|g|()"));
            tree.exit();
            tree.exit();
        }
        assertEquals(4, tree.size);  // root, root/f, root/f/g, root/g
        for (int i = 0; i < tree.size; i++) {
            assertEquals(3, tree.calls[i]);
            assertTrue(tree.self[i] >= 0 && tree.self[i] <= tree.inclusive[i]);
        }
        assertEquals(tree.inclusive[0] - tree.inclusive[1] - tree.inclusive[3], tree.self[0]);
        assertEquals(tree.inclusive[1] - tree.inclusive[2], tree.self[1]);
    }

    @Test
    void profileArgumentsNeedARootAndKeepTheSkipList() {
        AgentArgs args = AgentArgs.parse("mode=profile;packages=lib.*;out=/tmp/x;root=b.Bench#run;"
                + "skip=lib.A#f(int,java.lang.String)|lib.A#g()");
        assertEquals("b.Bench", args.rootType);
        assertEquals("run", args.rootMethod);
        assertEquals(List.of("lib.A#f(int,java.lang.String)", "lib.A#g()"), args.skip);
        assertThrows(IllegalArgumentException.class, () -> AgentArgs.parse("mode=profile;packages=lib;out=/tmp/x"));
        assertThrows(IllegalArgumentException.class,
                () -> AgentArgs.parse("mode=profile;packages=lib;out=/tmp/x;root=NoMethod"));
    }

    @Test
    void writesNothingWithoutARootCall(@TempDir Path dir) throws Exception {
        Profiler.start(dir, "never.Called", "run");
        Profiler.write();
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }
}
