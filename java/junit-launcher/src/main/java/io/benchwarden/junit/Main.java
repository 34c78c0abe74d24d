package io.benchwarden.junit;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * benchwarden's JUnit worker, speaking the line protocol of the asv worker (version 1, one JSON object per line on
 * stdout; docs/code-level.md):
 *
 * <pre>
 * list [--invocations] ROOT...         {"v":1,"tests":[{"name":..,"unique_id":..,"display":..,"engine":..},..],"templates":[..]}
 *                                      with --invocations also "invocations":[{"template":..,"unique_id":..,"display":..},..]
 * run UNIQUE_ID ITERATION_NS MAX_ITERATIONS [REPETITIONS]
 *                                      {"v":1,"iteration":k,"ns_per_op":..,"ops":R,"elapsed_ns":..,"cpu_ns":..,"timed":"body"|"execution"}
 *                                      {"v":1,"error":..,"traceback":..}   (the test failed: exit 1)
 *                                      {"v":1,"skip":..}                   (disabled, an assumption failed, or the test
 *                                                                            touches the network: exit 0)
 * </pre>
 *
 * One iteration is {@code R} complete JUnit executions of the test (a new instance, its {@code @BeforeEach} and
 * {@code @AfterEach}, its extensions), {@code R} calibrated so that an iteration's executions take about
 * {@code ITERATION_NS} of wall time (or given). Jupiter tests are timed by {@link BodyTimer}: the method's body only.
 * Tests of other engines (JUnit 4 through the vintage engine) have no such hook: their time is the engine's whole
 * execution of the test, {@code @Before}/{@code @After} included ({@code "timed":"execution"}). A test template
 * ({@code @ParameterizedTest}, {@code @RepeatedTest}), selected by its own unique id, is one operation made of all
 * its invocations, each with its lifecycle; its bodies are timed the same way (all of them, or the executions).
 * The first execution is untimed and screened for network access ({@link NetworkGuard}).
 */
public final class Main {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Executions of a calibration step may take at most this share of an iteration before scaling linearly. */
    private static final double CALIBRATION_FRACTION = 0.1;
    private static final int MAX_REPETITIONS = 10_000_000;

    private Main() {
    }

    public static void main(String[] args) {
        PrintStream out = System.out;
        System.setOut(System.err);  // the tests' own prints must not break the protocol lines on stdout
        try {
            if (args.length >= 2 && args[0].equals("list")) {
                boolean invocations = args[1].equals("--invocations");
                List<Path> roots = new ArrayList<>();
                for (int i = invocations ? 2 : 1; i < args.length; i++) {
                    roots.add(Paths.get(args[i]));
                }
                out.println(list(roots, invocations));
            } else if ((args.length == 4 || args.length == 5) && args[0].equals("run")) {
                int repetitions = args.length == 5 ? Integer.parseInt(args[4]) : 0;
                System.exit(run(out, args[1], Long.parseLong(args[2]), Integer.parseInt(args[3]), repetitions));
            } else {
                System.err.println("usage: list [--invocations] ROOT... | run UNIQUE_ID ITERATION_NS MAX_ITERATIONS [REPETITIONS]");
                System.exit(2);
            }
        } catch (RuntimeException | LinkageError e) {
            out.println("{\"v\":1,\"error\":" + Json.str("benchwarden's JUnit worker failed: " + e) + ",\"traceback\":"
                    + Json.str(trace(e)) + "}");
            out.flush();
            System.exit(1);
        }
        out.flush();
    }

    static String list(List<Path> roots, boolean withInvocations) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClasspathRoots(new HashSet<>(roots))).build();
        TestPlan plan = LauncherFactory.create().discover(request);
        StringBuilder tests = new StringBuilder();
        StringBuilder templates = new StringBuilder();
        List<String> templateIds = new ArrayList<>();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier id : plan.getDescendants(root)) {
                Optional<TestSource> source = id.getSource();
                if (!source.isPresent() || !(source.get() instanceof MethodSource)) {
                    continue;
                }
                MethodSource method = (MethodSource) source.get();
                String name = method.getClassName() + "#" + method.getMethodName()
                        + (method.getMethodParameterTypes().isEmpty() ? "" : "(" + method.getMethodParameterTypes() + ")");
                String entry = "{\"name\":" + Json.str(name) + ",\"unique_id\":" + Json.str(id.getUniqueId())
                        + ",\"display\":" + Json.str(id.getDisplayName()) + ",\"engine\":"
                        + Json.str(engine(id.getUniqueId())) + "}";
                StringBuilder into = id.isTest() ? tests : templates;  // a container with a method: a test template
                into.append(into.length() == 0 ? "" : ",").append(entry);
                if (!id.isTest()) {
                    templateIds.add(id.getUniqueId());
                }
            }
        }
        return "{\"v\":1,\"tests\":[" + tests + "],\"templates\":[" + templates + "]"
                + (withInvocations ? ",\"invocations\":[" + invocations(templateIds) + "]" : "") + "}";
    }

    /**
     * The invocations of the given test templates and the dynamic tests of the given factories, in the order JUnit
     * runs them: they exist only while the template runs (the arguments come from providers at execution time), so
     * the templates are executed once with every body and lifecycle method skipped ({@link BodyTimer} while
     * {@link Timings#listing}); the argument sources and the factory methods do run. Each invocation's unique id
     * selects it alone later (Jupiter filters a template's invocations by the selected ids).
     */
    static String invocations(List<String> templateIds) {
        if (templateIds.isEmpty()) {
            return "";
        }
        List<org.junit.platform.engine.DiscoverySelector> selectors = new ArrayList<>();
        for (String id : templateIds) {
            selectors.add(DiscoverySelectors.selectUniqueId(id));
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors)
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true").build();
        StringBuilder found = new StringBuilder();
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void dynamicTestRegistered(TestIdentifier id) {
                if (!id.isTest()) {
                    return;  // a dynamic container: its tests are registered one by one
                }
                for (String template : templateIds) {
                    if (id.getUniqueId().startsWith(template + "/")) {
                        found.append(found.length() == 0 ? "" : ",").append("{\"template\":").append(Json.str(template))
                                .append(",\"unique_id\":").append(Json.str(id.getUniqueId()))
                                .append(",\"display\":").append(Json.str(id.getDisplayName())).append("}");
                        return;
                    }
                }
            }
        };
        Timings.listing = true;
        try {
            LauncherFactory.create().execute(request, listener);
        } finally {
            Timings.listing = false;
        }
        return found.toString();
    }

    /** The engine of a unique id such as {@code [engine:junit-jupiter]/[class:..]/[method:..]}. */
    static String engine(String uniqueId) {
        int start = uniqueId.indexOf("[engine:");
        int end = uniqueId.indexOf(']', start);
        return start < 0 || end < 0 ? "" : uniqueId.substring(start + 8, end);
    }

    /** Records how the selected test ended, and its execution time when no body timer saw it. */
    static final class Outcome implements TestExecutionListener {
        int tests;
        /** Tests the last execution ran: 1 for a test method, every invocation for a test template. */
        int lastInvocations;
        Throwable failure;
        String skipped;
        long executionWall;
        long executionCpu;
        private long wall0;
        private long cpu0;

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest() || id.getSource().filter(s -> s instanceof MethodSource).isPresent()) {
                skipped = id.getDisplayName() + " is disabled: " + reason;
            }
        }

        @Override
        public void executionStarted(TestIdentifier id) {
            if (id.isTest()) {
                cpu0 = THREADS.getCurrentThreadCpuTime();
                wall0 = System.nanoTime();
            }
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest()) {
                executionWall += System.nanoTime() - wall0;
                executionCpu += THREADS.getCurrentThreadCpuTime() - cpu0;
                tests++;
            }
            if (result.getStatus() == TestExecutionResult.Status.FAILED && failure == null) {
                failure = result.getThrowable().orElse(new AssertionError("failed without an exception"));
            } else if (result.getStatus() == TestExecutionResult.Status.ABORTED && skipped == null) {
                skipped = id.getDisplayName() + " was aborted (an assumption failed): "
                        + result.getThrowable().map(Throwable::getMessage).orElse("");
            }
        }
    }

    /** One execution of the test: null if it passed, else the protocol line that says why not (failed, skipped). */
    private static String execute(Launcher launcher, LauncherDiscoveryRequest request, Outcome outcome) {
        int before = outcome.tests;
        launcher.execute(request, outcome);
        if (outcome.failure != null) {
            return "{\"v\":1,\"error\":" + Json.str("the test failed: " + outcome.failure) + ",\"traceback\":"
                    + Json.str(trace(outcome.failure)) + "}";
        }
        if (outcome.skipped != null) {
            return "{\"v\":1,\"skip\":" + Json.str(outcome.skipped) + "}";
        }
        if (outcome.tests == before) {
            return "{\"v\":1,\"error\":" + Json.str("no test ran for the selector: it names no test of this "
                    + "classpath (renamed or removed), or a test template with no invocation") + "}";
        }
        outcome.lastInvocations = outcome.tests - before;
        return null;
    }

    /** The exit status after an execution that did not pass: 0 for a skipped test, 1 for a failed one. */
    private static int stopped(PrintStream out, String line, Outcome outcome) {
        out.println(line);
        return outcome.failure != null || outcome.skipped == null ? 1 : 0;
    }

    /**
     * The first, untimed execution: loads the classes, fails a failing test, and screens the test for network access
     * ({@link NetworkGuard}, for this execution only): a test that asked for another host is skipped with what it
     * asked for, whether or not it then failed. Null if the test may be measured, else the exit status.
     */
    private static Integer screen(PrintStream out, Launcher launcher, LauncherDiscoveryRequest request, Outcome outcome) {
        NetworkGuard guard = NetworkGuard.install();
        String stop;
        String network;
        try {
            stop = execute(launcher, request, outcome);
        } finally {
            network = guard == null ? null : guard.uninstall();
        }
        if (guard == null) {
            System.err.println("benchwarden: the test was not screened for network access: this JVM allows no "
                    + "security manager (JDK 24 and later, or java.security.manager=disallow)");
        }
        if (network != null) {
            out.println("{\"v\":1,\"skip\":" + Json.str("the test touches the network (" + network + ", refused "
                    + "while it was screened): a test that does measures the network, not the code") + "}");
            return 0;
        }
        return stop == null ? null : stopped(out, stop, outcome);
    }

    static int run(PrintStream out, String uniqueId, long iterationNanos, int maxIterations, int fixedRepetitions) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectUniqueId(uniqueId))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true").build();
        Launcher launcher = LauncherFactory.create();
        Outcome outcome = new Outcome();
        Timings.active = true;
        int repetitions = fixedRepetitions;
        Integer screened = screen(out, launcher, request, outcome);
        if (screened != null) {
            return screened;
        }
        if (repetitions < 1) {  // grow the batch until it takes a tenth of an iteration, then scale linearly
            int batch = 1;
            while (true) {
                long t0 = System.nanoTime();
                for (int i = 0; i < batch; i++) {
                    String stop = execute(launcher, request, outcome);
                    if (stop != null) {
                        return stopped(out, stop, outcome);
                    }
                }
                long elapsed = Math.max(1, System.nanoTime() - t0);
                if (elapsed >= iterationNanos * CALIBRATION_FRACTION || batch >= MAX_REPETITIONS) {
                    repetitions = (int) Math.max(1, Math.min(MAX_REPETITIONS, Math.round((double) batch * iterationNanos / elapsed)));
                    break;
                }
                double grow = iterationNanos * CALIBRATION_FRACTION / elapsed;
                batch = (int) Math.min(MAX_REPETITIONS, (long) batch * (int) Math.min(10, Math.max(2, grow)));
            }
        }
        for (int k = 1; k <= maxIterations; k++) {
            Timings.reset();
            long wall0 = outcome.executionWall;
            long cpu0 = outcome.executionCpu;
            for (int i = 0; i < repetitions; i++) {
                String stop = execute(launcher, request, outcome);
                if (stop != null) {
                    return stopped(out, stop, outcome);
                }
            }
            boolean body = Timings.bodies == (long) repetitions * outcome.lastInvocations;  // every body seen
            long wall = body ? Timings.wallNanos : outcome.executionWall - wall0;
            long cpu = body ? Timings.cpuNanos : outcome.executionCpu - cpu0;
            out.println("{\"v\":1,\"iteration\":" + k + ",\"ns_per_op\":" + ((double) Math.max(wall, 1) / repetitions)
                    + ",\"ops\":" + repetitions + ",\"elapsed_ns\":" + wall + ",\"cpu_ns\":" + Math.max(cpu, 0)
                    + ",\"timed\":" + Json.str(body ? "body" : "execution") + "}");
            out.flush();
        }
        return 0;
    }

    static String trace(Throwable t) {
        StringWriter text = new StringWriter();
        t.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
