package io.benchwarden.agent;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.none;
import static net.bytebuddy.matcher.ElementMatchers.not;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * benchwarden's Java agent ({@code -javaagent:benchwarden-agent.jar=ARGS}, see {@link AgentArgs}).
 *
 * <p>Thin by design: it instruments and emits versioned JSON lines; every statistic lives in Python.
 * With {@code report=FILE} it appends one line per instrumented class
 * ({@code {"v":1,"event":"instrumented","type":...,"methods":[...]}}) and per failure
 * ({@code {"v":1,"event":"error",...}}), so benchwarden can tell "slowed but not detected" from
 * "the method was never found".
 */
public final class Agent {

    private Agent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        AgentArgs args;
        try {
            args = AgentArgs.parse(arguments);
        } catch (IllegalArgumentException e) {
            // A misconfigured agent must not let the benchmark run unslowed as if nothing happened.
            System.err.println("[benchwarden-agent] bad arguments: " + e.getMessage());
            throw e;
        }
        Report report = new Report(args.report);
        if (AgentArgs.SLOWDOWN.equals(args.mode)) {
            installSlowdown(args, instrumentation, report);
        } else if (AgentArgs.PROFILE.equals(args.mode)) {
            installProfile(args, instrumentation, report);
        } else if (AgentArgs.CONTROL.equals(args.mode)) {
            installControl(args, instrumentation, report);
        } else {
            installTrace(args, instrumentation, report);
        }
    }

    private static void installSlowdown(AgentArgs args, Instrumentation instrumentation, Report report) {
        Slowdown.factor = args.factor;
        Slowdown.cpuClock = args.cpuClock;
        Slowdown.calibrate();
        Class<?> plainAdvice = args.cpuClock ? CpuSlowdownAdvice.class : SlowdownAdvice.class;
        Class<?> recursiveAdvice = args.cpuClock ? CpuRecursiveSlowdownAdvice.class : RecursiveSlowdownAdvice.class;
        MethodSpec spec = args.method;
        ElementMatcher.Junction<MethodDescription> methods = isMethod().and(not(isAbstract()))
                .and(new SpecMatcher(spec));
        newBuilder(report, methods)
                .type(named(spec.typeName))
                .transform((builder, type, loader, module, domain) -> {
                    Set<String> selfCalling = selfCalling(type, loader, report);
                    ElementMatcher.Junction<MethodDescription> recursive =
                            new ElementMatcher.Junction.AbstractBase<MethodDescription>() {
                                @Override
                                public boolean matches(MethodDescription method) {
                                    return selfCalling.contains(method.getInternalName() + method.getDescriptor());
                                }
                            };
                    return builder.visit(Advice.to(plainAdvice).on(methods.and(not(recursive))))
                            .visit(Advice.to(recursiveAdvice).on(methods.and(recursive)));
                })
                .installOn(instrumentation);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> report.event(Slowdown.activationsLine(spec.toString())),
                "benchwarden-agent-report"));
        report.event("{\"v\":1,\"event\":\"installed\",\"mode\":\"slowdown\",\"method\":\"" + Json.escape(spec.toString())
                + "\",\"factor\":" + args.factor + ",\"clock\":\"" + (args.cpuClock ? "cpu" : "wall") + "\""
                + ",\"overhead_ns\":" + Slowdown.plainOverheadNs
                + ",\"recursive_overhead_ns\":" + Slowdown.overheadNs + ",\"clock_ns\":" + Slowdown.clockNs + "}");
    }

    /**
     * The slowdown mode's start-up without its injection: the same calibration and a transformer that sees every
     * class load, as the slowdown mode's does, but matches none. An agent in the JVM is not free: on Commons Text's
     * {@code doubleFormatEngineering} a JVM with the agent loaded and nothing instrumented ran ~10 % faster than a
     * plain one (24 interleaved pairs of forks, paired t p = 0.02), which would hide a 10 % injection, so
     * {@code assess} compares slowed JVMs with control JVMs, not plain ones.
     */
    private static void installControl(AgentArgs args, Instrumentation instrumentation, Report report) {
        Slowdown.factor = 0.0;
        Slowdown.cpuClock = args.cpuClock;
        Slowdown.calibrate();
        newBuilder(report, isMethod().and(none()))
                .type(none())
                .transform((builder, type, loader, module, domain) -> builder)
                .installOn(instrumentation);
        report.event("{\"v\":1,\"event\":\"installed\",\"mode\":\"control\",\"clock\":\""
                + (args.cpuClock ? "cpu" : "wall") + "\",\"overhead_ns\":"
                + Slowdown.plainOverheadNs + ",\"clock_ns\":" + Slowdown.clockNs + "}");
    }

    /** The methods of {@code type} that call themselves; none (with an error event) if its class file is unreadable. */
    private static Set<String> selfCalling(TypeDescription type, ClassLoader loader, Report report) {
        try {
            ClassFileLocator.Resolution resolution = ClassFileLocator.ForClassLoader.of(loader).locate(type.getName());
            return resolution.isResolved() ? SelfCalls.in(resolution.resolve()) : Collections.emptySet();
        } catch (IOException | RuntimeException e) {
            report.event("{\"v\":1,\"event\":\"error\",\"type\":\"" + Json.escape(type.getName())
                    + "\",\"message\":\"cannot read the class file to find recursion: " + Json.escape(String.valueOf(e)) + "\"}");
            return Collections.emptySet();
        }
    }

    private static void installTrace(AgentArgs args, Instrumentation instrumentation, Report report) {
        try {
            Tracer.start(Paths.get(args.out));
        } catch (IOException e) {
            throw new IllegalStateException("[benchwarden-agent] cannot create trace output in " + args.out, e);
        }
        PackageMatcher packages = new PackageMatcher(args.packages, args.exclude);
        ElementMatcher.Junction<MethodDescription> methods = args.everyMethod
                ? isMethod().or(isConstructor()).and(not(isAbstract())).and(not(isNative())).and(not(isBridge()))
                : isMethod().and(isPublic()).and(not(isAbstract())).and(not(isSynthetic())).and(not(isBridge()))
                        .and(not(isConstructor()));
        newBuilder(report, methods)
                .type(args.everyMethod ? packages : packages.and(isPublic()))
                .transform((builder, type, loader, module, domain) ->
                        builder.visit(Advice.to(TraceAdvice.class).on(methods)))
                .installOn(instrumentation);
        report.event("{\"v\":1,\"event\":\"installed\",\"mode\":\"trace\"}");
    }

    private static void installProfile(AgentArgs args, Instrumentation instrumentation, Report report) {
        try {
            Profiler.start(Paths.get(args.out), args.rootType, args.rootMethod);
        } catch (IOException e) {
            throw new IllegalStateException("[benchwarden-agent] cannot create profile output in " + args.out, e);
        }
        PackageMatcher packages = new PackageMatcher(args.packages, args.exclude);
        // methods only: a constructor's exit advice cannot catch what the constructor throws
        Set<String> skip = new java.util.HashSet<>(args.skip);
        ElementMatcher.Junction<MethodDescription> methods =
                isMethod().and(not(isAbstract())).and(not(isNative())).and(not(isBridge()))
                        .and(new ElementMatcher.Junction.AbstractBase<MethodDescription>() {
                            @Override
                            public boolean matches(MethodDescription method) {  // too short to profile: not probed
                                return skip.isEmpty() || !skip.contains(method.getDeclaringType().asErasure().getName()
                                        + "#" + method.getName() + "(" + String.join(",", parameterTypes(method)) + ")");
                            }
                        });
        newBuilder(report, methods)
                .type(packages.or(named(args.rootType)))
                .transform((builder, type, loader, module, domain) ->
                        builder.visit(Advice.to(ProfileAdvice.class).on(methods)))
                .installOn(instrumentation);
        report.event("{\"v\":1,\"event\":\"installed\",\"mode\":\"profile\"}");
    }

    private static AgentBuilder newBuilder(Report report, ElementMatcher<? super MethodDescription> methods) {
        return new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(new ReportingListener(report, methods));
    }

    /** Matches methods by a {@link MethodSpec}: name, and parameter types in Java source notation. */
    static final class SpecMatcher extends ElementMatcher.Junction.AbstractBase<MethodDescription> {
        private final MethodSpec spec;

        SpecMatcher(MethodSpec spec) {
            this.spec = spec;
        }

        @Override
        public boolean matches(MethodDescription method) {
            return spec.matches(method.getName(), parameterTypes(method));
        }
    }

    static List<String> parameterTypes(MethodDescription method) {
        List<String> names = new ArrayList<>();
        for (TypeDescription type : method.getParameters().asTypeList().asErasures()) {
            names.add(type.getActualName());
        }
        return names;
    }

    /**
     * Types in the given packages: {@code a.b} is exactly that package, {@code a.b.*} also its subpackages.
     * JMH's generated classes are never traced; {@code exclude} uses the same notation.
     */
    static final class PackageMatcher extends ElementMatcher.Junction.AbstractBase<TypeDescription> {
        private final List<String> include;
        private final List<String> exclude;

        PackageMatcher(List<String> include, List<String> exclude) {
            this.include = include;
            this.exclude = exclude;
        }

        @Override
        public boolean matches(TypeDescription type) {
            String name = type.getName();
            if (name.contains("jmh_generated") || name.contains("_jmhType")) {
                return false;
            }
            String pkg = type.getPackage() == null ? "" : type.getPackage().getName();
            return inAny(pkg, include) && !inAny(pkg, exclude);
        }

        static boolean inAny(String pkg, List<String> patterns) {
            for (String pattern : patterns) {
                if (pattern.endsWith(".*")) {
                    String base = pattern.substring(0, pattern.length() - 2);
                    if (pkg.equals(base) || pkg.startsWith(base + ".")) {
                        return true;
                    }
                } else if (pkg.equals(pattern)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Appends JSON lines to the report file, if one was given. */
    static final class Report {
        private final Path path;

        Report(String path) {
            this.path = path == null ? null : Paths.get(path);
        }

        synchronized void event(String jsonLine) {
            if (path == null) {
                return;
            }
            try {
                Files.write(path, (jsonLine + "\n").getBytes(StandardCharsets.UTF_8),
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                System.err.println("[benchwarden-agent] cannot write report " + path + ": " + e);
            }
        }
    }

    /** Reports which methods of each transformed type were instrumented, and transformation errors. */
    static final class ReportingListener extends AgentBuilder.Listener.Adapter {
        private final Report report;
        private final ElementMatcher<? super MethodDescription> methods;

        ReportingListener(Report report, ElementMatcher<? super MethodDescription> methods) {
            this.report = report;
            this.methods = methods;
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded,
                                     DynamicType dynamicType) {
            List<String> names = new ArrayList<>();
            for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
                if (methods.matches(m)) {
                    names.add("\"" + Json.escape(MethodSpec.format(type.getName(), m.getName(), parameterTypes(m))) + "\"");
                }
            }
            report.event("{\"v\":1,\"event\":\"instrumented\",\"type\":\"" + Json.escape(type.getName())
                    + "\",\"methods\":[" + String.join(",", names) + "]}");
        }

        @Override
        public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
            report.event("{\"v\":1,\"event\":\"error\",\"type\":\"" + Json.escape(typeName) + "\",\"message\":\""
                    + Json.escape(String.valueOf(error)) + "\"}");
        }
    }

}
