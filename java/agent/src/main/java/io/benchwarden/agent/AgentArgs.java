package io.benchwarden.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's arguments: {@code key=value} pairs separated by {@code ;} (the text after {@code =} in
 * {@code -javaagent:benchwarden-agent.jar=...}).
 *
 * <ul>
 *   <li>{@code mode=slowdown;method=pkg.Class#name(java.lang.String,int);factor=0.5[;clock=wall|cpu][;report=FILE]}:
 *   {@code clock=cpu} times each activation and waits on the thread's CPU clock instead of the wall clock (for
 *   suites measured in CPU time, see {@link Slowdown})</li>
 *   <li>{@code mode=trace;packages=pkg.a,pkg.b.*;out=DIR[;exclude=pkg.bench.*][;methods=all][;report=FILE]}:
 *   {@code methods=all} counts every method and constructor of every type, not only public methods of public
 *   types (what {@code benchwarden affected} needs)</li>
 *   <li>{@code mode=profile;packages=pkg.a,pkg.b.*;out=DIR;root=pkg.Bench#method[;skip=pkg.C#m(int)|...][;exclude=...]
 *   [;report=FILE]}:
 *   a call tree of the methods of {@code packages} under each call of the root method (any parameters), with
 *   calls, inclusive and self time per node ({@code benchwarden compare --explain}, see {@link Profiler})</li>
 *   <li>{@code mode=control[;clock=wall|cpu][;report=FILE]}: everything the slowdown mode does at start-up (calibration, a class
 *   transformer seeing every class load) but no method instrumented: the JVMs of {@code assess}'s baselines, so
 *   that baseline and slowed JVMs differ by the injection only (docs/assess.md, "A/A control")</li>
 * </ul>
 *
 * {@code ;} separates pairs because {@code ,} occurs inside parameter lists. Unknown keys are an error, so a
 * typo cannot silently turn an injection into a no-op.
 */
final class AgentArgs {

    static final String SLOWDOWN = "slowdown";
    static final String TRACE = "trace";
    static final String PROFILE = "profile";
    static final String CONTROL = "control";
    private static final List<String> KEYS = List.of("mode", "method", "factor", "packages", "exclude", "out", "report",
            "methods", "root", "skip", "clock");

    final String mode;
    final MethodSpec method;
    final double factor;
    /** Slowdown mode: time and wait on the thread's CPU clock ({@code clock=cpu}) rather than the wall clock. */
    final boolean cpuClock;
    final List<String> packages;
    final List<String> exclude;
    final String out;
    final String report;
    final boolean everyMethod;
    final String rootType;
    final String rootMethod;
    /** Profile mode: methods not to instrument ({@code type#name(params)}, separated by {@code |}). */
    final List<String> skip;

    private AgentArgs(Map<String, String> values) {
        mode = require(values, "mode");
        report = values.get("report");
        String root = PROFILE.equals(mode) ? require(values, "root") : null;
        if (root != null && (root.indexOf('#') <= 0 || root.endsWith("#"))) {
            throw new IllegalArgumentException("root: expected pkg.Class#method, got '" + root + "'");
        }
        rootType = root == null ? null : root.substring(0, root.indexOf('#'));
        rootMethod = root == null ? null : root.substring(root.indexOf('#') + 1);
        skip = new ArrayList<>();
        for (String name : values.getOrDefault("skip", "").split("\\|")) {
            if (!name.isBlank()) {
                skip.add(name.trim());
            }
        }
        String clock = values.getOrDefault("clock", "wall");
        if (!clock.equals("wall") && !clock.equals("cpu")) {
            throw new IllegalArgumentException("clock: expected 'wall' or 'cpu', got '" + clock + "'");
        }
        if (values.containsKey("clock") && !SLOWDOWN.equals(mode) && !CONTROL.equals(mode)) {
            throw new IllegalArgumentException("clock: only mode=slowdown (and its control) takes a clock");
        }
        cpuClock = clock.equals("cpu");
        if (SLOWDOWN.equals(mode)) {
            method = MethodSpec.parse(require(values, "method"));
            factor = parseFactor(require(values, "factor"));
            packages = Collections.emptyList();
            exclude = Collections.emptyList();
            out = null;
            everyMethod = false;
        } else if (TRACE.equals(mode) || PROFILE.equals(mode)) {
            method = null;
            factor = 0.0;
            packages = splitList(require(values, "packages"));
            exclude = splitList(values.getOrDefault("exclude", ""));
            out = require(values, "out");
            String methods = values.getOrDefault("methods", PROFILE.equals(mode) ? "all" : "public");
            if (!methods.equals("public") && !methods.equals("all")) {
                throw new IllegalArgumentException("methods: expected 'public' or 'all', got '" + methods + "'");
            }
            everyMethod = methods.equals("all");
            if (packages.isEmpty()) {
                throw new IllegalArgumentException("packages: expected at least one package name");
            }
        } else if (CONTROL.equals(mode)) {
            for (String key : values.keySet()) {
                if (!key.equals("mode") && !key.equals("report") && !key.equals("clock")) {
                    throw new IllegalArgumentException("mode=control takes no '" + key + "' (only report, clock)");
                }
            }
            method = null;
            factor = 0.0;
            packages = Collections.emptyList();
            exclude = Collections.emptyList();
            out = null;
            everyMethod = false;
        } else {
            throw new IllegalArgumentException("mode: expected 'slowdown', 'trace', 'profile' or 'control', got '"
                    + mode + "'");
        }
    }

    static AgentArgs parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no agent arguments; expected e.g. mode=slowdown;method=pkg.C#m();factor=0.5");
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String pair : text.split(";")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got '" + pair + "'");
            }
            String key = pair.substring(0, eq).trim();
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("unknown key '" + key + "'; known keys: " + KEYS);
            }
            values.put(key, pair.substring(eq + 1).trim());
        }
        return new AgentArgs(values);
    }

    private static String require(Map<String, String> values, String key) {
        String value = values.get(key);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing required key '" + key + "'");
        }
        return value;
    }

    private static double parseFactor(String text) {
        double factor;
        try {
            factor = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("factor: expected a number such as 0.5, got '" + text + "'");
        }
        if (!(factor >= 0.0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("factor: expected a finite number >= 0, got '" + text + "'");
        }
        return factor;
    }

    private static List<String> splitList(String text) {
        List<String> items = new ArrayList<>();
        for (String item : text.split(",")) {
            if (!item.isBlank()) {
                items.add(item.trim());
            }
        }
        return items;
    }
}
