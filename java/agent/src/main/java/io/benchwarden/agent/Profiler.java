package io.benchwarden.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runtime of the profile mode ({@code benchwarden compare --explain}): for each call of the root method (the
 * benchmark or test method) and everything it calls among the profiled methods, a call tree with calls, inclusive
 * and self time (ns) per node, where a node is a path of methods from the root.
 *
 * <p>Each thread builds its own tree without locks; at JVM exit (shutdown hook) the trees are merged by path and
 * written as {@code {"v":1,"root":...,"traced_call_ns":t,"untraced_call_ns":0,"nodes":[[parent,name,calls,
 * inclusive_ns,self_ns],...]}} to {@code <out>/profile-<pid>.json} (the same protocol as the Python worker's
 * hook). Nothing is written by a JVM that never called the root (JMH's host JVM). Methods outside the profiled
 * packages are not nodes: their time is their caller's self time. {@code traced_call_ns}: what one profiled call
 * costs the probe, measured at start.
 */
public final class Profiler {

    static final int PROTOCOL_VERSION = 1;

    private static volatile String rootPrefix;
    private static final List<Tree> TREES = new ArrayList<>();
    private static final ThreadLocal<Tree> TREE = ThreadLocal.withInitial(() -> {
        Tree tree = new Tree();
        synchronized (TREES) {
            TREES.add(tree);
        }
        return tree;
    });
    private static volatile Path file;
    private static volatile double probeNs;

    private Profiler() {
    }

    /** Enter a call of {@code origin} ({@code type|name|(params)}); true when it is recorded (then call {@link #exit}). */
    public static boolean enter(String origin) {
        return TREE.get().enter(origin);
    }

    public static void exit() {
        TREE.get().exit();
    }

    static boolean isRoot(String origin) {
        String prefix = rootPrefix;
        return prefix != null && origin.startsWith(prefix);
    }

    /** Record calls of {@code type#method} and below, and write the merged tree to {@code outDir} at exit. */
    static void start(Path outDir, String rootType, String rootMethod) throws IOException {
        Files.createDirectories(outDir);
        probeNs = calibrate();
        rootPrefix = rootType + "|" + rootMethod + "|";
        file = outDir.resolve("profile-" + ProcessHandle.current().pid() + ".json");
        Runtime.getRuntime().addShutdownHook(new Thread(Profiler::write, "benchwarden-profile-exit"));
    }

    /** Median over rounds of one recorded call's bookkeeping (enter + exit below a root), in ns. */
    static double calibrate() {
        Tree tree = new Tree();
        String saved = rootPrefix;
        rootPrefix = "calibration|root|";
        try {
            double[] rounds = new double[15];
            int calls = 20_000;
            for (int r = 0; r < rounds.length; r++) {
                tree.enter("calibration|root|()");
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    if (tree.enter("calibration|leaf|()")) {
                        tree.exit();
                    }
                }
                rounds[r] = (System.nanoTime() - start) / (double) calls;
                tree.exit();
            }
            Arrays.sort(rounds);
            return rounds[rounds.length / 2];
        } finally {
            rootPrefix = saved;
        }
    }

    static synchronized void write() {
        Path target = file;
        if (target == null) {
            return;
        }
        Merged merged = merge();
        if (merged.calls.isEmpty() || merged.calls.get(0) == 0) {
            return;
        }
        StringBuilder out = new StringBuilder();
        out.append("{\"v\":").append(PROTOCOL_VERSION).append(",\"root\":\"")
           .append(Json.escape(Tracer.canonical(merged.names.get(0)))).append("\",\"traced_call_ns\":")
           .append(Math.round(probeNs * 10) / 10.0).append(",\"untraced_call_ns\":0,\"nodes\":[");
        for (int i = 0; i < merged.names.size(); i++) {
            out.append(i == 0 ? "" : ",").append('[').append(merged.parents.get(i)).append(",\"")
               .append(Json.escape(Tracer.canonical(merged.names.get(i)))).append("\",")
               .append(merged.calls.get(i)).append(',').append(merged.inclusive.get(i)).append(',')
               .append(merged.self.get(i)).append(']');
        }
        out.append("]}");
        try {
            Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
            Files.write(tmp, out.toString().getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("[benchwarden-agent] cannot write " + target + ": " + e);
        }
    }

    /** Every thread's tree merged by path; node 0 is the root (parents before children). */
    static Merged merge() {
        Merged merged = new Merged();
        List<Tree> trees;
        synchronized (TREES) {
            trees = new ArrayList<>(TREES);
        }
        for (Tree tree : trees) {
            synchronized (tree) {
                if (tree.size == 0 || tree.calls[0] == 0) {
                    continue;
                }
                int[] to = new int[tree.size];
                for (int i = 0; i < tree.size; i++) {
                    int parent = i == 0 ? -1 : to[tree.parent[i]];
                    to[i] = merged.node(parent, tree.name[i]);
                    merged.add(to[i], tree.calls[i], tree.inclusive[i], tree.self[i]);
                }
            }
        }
        return merged;
    }

    /** One thread's call tree and its stack of calls in progress. */
    static final class Tree {
        int size;
        int[] parent = new int[16];
        String[] name = new String[16];
        long[] calls = new long[16];
        long[] inclusive = new long[16];
        long[] self = new long[16];
        private final List<Map<String, Integer>> children = new ArrayList<>();
        private int depth;
        private int[] stackNode = new int[32];
        private long[] stackStart = new long[32];
        private long[] stackChildren = new long[32];

        boolean enter(String origin) {
            int node;
            if (depth == 0) {
                if (!isRoot(origin)) {
                    return false;
                }
                node = size == 0 ? add(-1, origin) : 0;
            } else {
                int top = stackNode[depth - 1];
                Integer child = children.get(top).get(origin);
                node = child != null ? child : add(top, origin);
            }
            if (depth == stackNode.length) {
                stackNode = Arrays.copyOf(stackNode, depth * 2);
                stackStart = Arrays.copyOf(stackStart, depth * 2);
                stackChildren = Arrays.copyOf(stackChildren, depth * 2);
            }
            stackNode[depth] = node;
            stackChildren[depth] = 0;
            stackStart[depth] = System.nanoTime();
            depth++;
            return true;
        }

        void exit() {
            long now = System.nanoTime();
            depth--;
            int node = stackNode[depth];
            long elapsed = now - stackStart[depth];
            synchronized (this) {  // uncontended (only the writer at exit competes): cheap
                calls[node]++;
                inclusive[node] += elapsed;
                self[node] += elapsed - stackChildren[depth];
            }
            if (depth > 0) {
                stackChildren[depth - 1] += elapsed;
            }
        }

        private synchronized int add(int parentNode, String origin) {
            if (size == parent.length) {
                int n = size * 2;
                parent = Arrays.copyOf(parent, n);
                name = Arrays.copyOf(name, n);
                calls = Arrays.copyOf(calls, n);
                inclusive = Arrays.copyOf(inclusive, n);
                self = Arrays.copyOf(self, n);
            }
            parent[size] = parentNode;
            name[size] = origin;
            children.add(new HashMap<>());
            if (parentNode >= 0) {
                children.get(parentNode).put(origin, size);
            }
            return size++;
        }
    }

    /** Trees merged by path. */
    static final class Merged {
        final List<Integer> parents = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        final List<Long> calls = new ArrayList<>();
        final List<Long> inclusive = new ArrayList<>();
        final List<Long> self = new ArrayList<>();
        private final Map<String, Integer> index = new LinkedHashMap<>();

        int node(int parent, String name) {
            String key = parent + "\u0000" + name;
            Integer found = index.get(key);
            if (found != null) {
                return found;
            }
            index.put(key, names.size());
            parents.add(parent);
            names.add(name);
            calls.add(0L);
            inclusive.add(0L);
            self.add(0L);
            return names.size() - 1;
        }

        void add(int node, long c, long in, long s) {
            calls.set(node, calls.get(node) + c);
            inclusive.set(node, inclusive.get(node) + in);
            self.set(node, self.get(node) + s);
        }
    }
}
