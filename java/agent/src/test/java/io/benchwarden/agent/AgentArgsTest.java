package io.benchwarden.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AgentArgsTest {

    @Test
    void parsesSlowdownWithParameterTypes() {
        AgentArgs args = AgentArgs.parse("mode=slowdown;method=wordstat.WordStat#topK(java.util.Map, int);factor=0.75");
        assertEquals("slowdown", args.mode);
        assertEquals(0.75, args.factor);
        assertEquals("wordstat.WordStat", args.method.typeName);
        assertEquals("topK", args.method.methodName);
        assertEquals(List.of("java.util.Map", "int"), args.method.parameterTypes);
        assertTrue(args.method.matches("topK", List.of("java.util.Map", "int")));
        assertTrue(!args.method.matches("topK", List.of("java.util.Map")));
    }

    @Test
    void methodWithoutParameterListMatchesEveryOverload() {
        MethodSpec spec = MethodSpec.parse("a.B$C#run");
        assertNull(spec.parameterTypes);
        assertTrue(spec.matches("run", List.of()));
        assertTrue(spec.matches("run", List.of("int[]")));
        assertEquals("a.B$C", spec.typeName);
    }

    @Test
    void emptyParameterListMeansNoParameters() {
        MethodSpec spec = MethodSpec.parse("a.B#run()");
        assertTrue(spec.matches("run", List.of()));
        assertTrue(!spec.matches("run", List.of("int")));
        assertEquals("a.B#run()", spec.toString());
    }

    @Test
    void parsesTrace() {
        AgentArgs args = AgentArgs.parse("mode=trace;packages=wordstat, other.*;out=/tmp/x;exclude=wordstat.bench");
        assertEquals(List.of("wordstat", "other.*"), args.packages);
        assertEquals(List.of("wordstat.bench"), args.exclude);
        assertEquals("/tmp/x", args.out);
        assertTrue(!args.everyMethod);
        assertTrue(AgentArgs.parse("mode=trace;packages=a;out=/tmp/x;methods=all").everyMethod);
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> AgentArgs.parse("mode=trace;packages=a;out=/tmp/x;methods=some")).getMessage().contains("methods"));
    }

    @Test
    void parsesControlModeWhichTakesNothingButAReport() {
        AgentArgs args = AgentArgs.parse("mode=control;report=/tmp/r.jsonl");
        assertEquals("control", args.mode);
        assertEquals("/tmp/r.jsonl", args.report);
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> AgentArgs.parse("mode=control;method=a.B#m();factor=0.5")).getMessage().contains("control"));
    }

    @Test
    void parsesTheClockOfSlowdownAndItsControlOnly() {
        assertTrue(!AgentArgs.parse("mode=slowdown;method=a.B#m();factor=0.5").cpuClock);
        assertTrue(!AgentArgs.parse("mode=slowdown;method=a.B#m();factor=0.5;clock=wall").cpuClock);
        assertTrue(AgentArgs.parse("mode=slowdown;method=a.B#m();factor=0.5;clock=cpu").cpuClock);
        assertTrue(AgentArgs.parse("mode=control;clock=cpu").cpuClock);
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> AgentArgs.parse("mode=slowdown;method=a.B#m();factor=0.5;clock=cycles")).getMessage()
                .contains("'cycles'"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> AgentArgs.parse("mode=trace;packages=a;out=/tmp/x;clock=cpu")).getMessage().contains("clock"));
    }

    @Test
    void rejectsBadInputWithClearMessages() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentArgs.parse("mode=slowdown;method=a.B#m;factor=-1"))
                .getMessage().contains("factor"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentArgs.parse("mode=slowdown;factor=1"))
                .getMessage().contains("method"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentArgs.parse("mode=fast"))
                .getMessage().contains("mode"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentArgs.parse("mode=trace;packges=a;out=x"))
                .getMessage().contains("unknown key 'packges'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MethodSpec.parse("a.B#m(int"))
                .getMessage().contains("')'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MethodSpec.parse("noHash"))
                .getMessage().contains("pkg.Class#name"));
    }
}
