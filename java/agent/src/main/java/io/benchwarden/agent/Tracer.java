package io.benchwarden.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runtime of the trace mode: exact call counts per method, written as JSON lines
 * {@code {"v":1,"method":"pkg.C#m(int)","calls":n}} to {@code <out>/trace-<pid>.jsonl}.
 *
 * <p>The file is rewritten atomically (temporary file + rename) at JVM exit (shutdown hook: normal exit,
 * {@code System.exit}, SIGTERM/SIGINT) and every {@value #FLUSH_MS} ms while counts change, so a JVM killed
 * with SIGKILL still leaves counts at most that old. One file per JVM, so JVMs sharing an output directory
 * (Maven and its Surefire fork, JMH's host and benchmark JVMs) never write the same file.
 */
public final class Tracer {

    static final long FLUSH_MS = 200;
    static final int PROTOCOL_VERSION = 1;

    private static final ConcurrentHashMap<String, LongAdder> COUNTS = new ConcurrentHashMap<>();
    private static volatile Path file;
    private static long lastWrittenTotal = -1;

    private Tracer() {
    }

    /** Count one call of the method named by its ByteBuddy origin {@code type|name|(params)}. */
    public static void hit(String origin) {
        LongAdder adder = COUNTS.get(origin);
        if (adder == null) {
            adder = COUNTS.computeIfAbsent(origin, k -> new LongAdder());
        }
        adder.increment();
    }

    /** Start writing to {@code <outDir>/trace-<pid>.jsonl}: a shutdown hook and a periodic daemon flusher. */
    static void start(Path outDir) throws IOException {
        Files.createDirectories(outDir);
        file = outDir.resolve("trace-" + ProcessHandle.current().pid() + ".jsonl");
        write();
        Runtime.getRuntime().addShutdownHook(new Thread(Tracer::flush, "benchwarden-trace-exit"));
        Thread flusher = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(FLUSH_MS);
                } catch (InterruptedException e) {
                    return;
                }
                flush();
            }
        }, "benchwarden-trace-flush");
        flusher.setDaemon(true);
        flusher.start();
    }

    static synchronized void flush() {
        long total = 0;
        for (LongAdder adder : COUNTS.values()) {
            total += adder.sum();
        }
        if (total == lastWrittenTotal) {
            return;
        }
        try {
            write();
            lastWrittenTotal = total;
        } catch (IOException e) {
            System.err.println("[benchwarden-agent] cannot write " + file + ": " + e);
        }
    }

    private static void write() throws IOException {
        Path target = file;
        if (target == null) {
            return;
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Long> e : snapshot().entrySet()) {
            out.append("{\"v\":").append(PROTOCOL_VERSION)
               .append(",\"method\":\"").append(Json.escape(e.getKey()))
               .append("\",\"calls\":").append(e.getValue()).append("}\n");
        }
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.write(tmp, out.toString().getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Counts so far, by canonical method name {@code type#name(params)}, sorted. */
    static Map<String, Long> snapshot() {
        Map<String, Long> counts = new TreeMap<>();
        for (Map.Entry<String, LongAdder> e : COUNTS.entrySet()) {
            counts.merge(canonical(e.getKey()), e.getValue().sum(), Long::sum);
        }
        return counts;
    }

    /**
     * {@code type|name|(params)} -> {@code type#name(params)}, parameter types in Java source notation:
     * ByteBuddy's {@code #s} prints arrays as JVM names ({@code [Ljava.lang.String;}, {@code [I}), which become
     * {@code java.lang.String[]} and {@code int[]}, as in {@link MethodSpec}.
     */
    static String canonical(String origin) {
        String[] parts = origin.split("\\|", 3);
        if (parts.length != 3 || !parts[2].startsWith("(") || !parts[2].endsWith(")")) {
            return origin;
        }
        String inner = parts[2].substring(1, parts[2].length() - 1);
        StringBuilder params = new StringBuilder();
        if (!inner.isEmpty()) {
            for (String p : inner.split(",")) {
                if (params.length() > 0) {
                    params.append(',');
                }
                params.append(sourceName(p.trim()));
            }
        }
        return parts[0] + "#" + parts[1] + "(" + params + ")";
    }

    /** A JVM array name ({@code [[I}, {@code [Lx.Y;}) in source notation; other names unchanged. */
    static String sourceName(String name) {
        int dims = 0;
        while (dims < name.length() && name.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0) {
            return name;
        }
        String element = name.substring(dims);
        switch (element) {
            case "Z": element = "boolean"; break;
            case "B": element = "byte"; break;
            case "C": element = "char"; break;
            case "S": element = "short"; break;
            case "I": element = "int"; break;
            case "J": element = "long"; break;
            case "F": element = "float"; break;
            case "D": element = "double"; break;
            default:
                if (element.startsWith("L") && element.endsWith(";")) {
                    element = element.substring(1, element.length() - 1);
                }
        }
        return element + "[]".repeat(dims);
    }

    static void reset() {
        COUNTS.clear();
    }
}
