package io.benchwarden.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A method named as benchwarden names Java methods: {@code pkg.Class#name(type,...)}, e.g.
 * {@code wordstat.WordStat#tokenize(java.lang.String)}; nested classes use {@code $}
 * ({@code pkg.Outer$Inner#m()}), arrays {@code []} ({@code int[]}). Without a parameter list
 * ({@code pkg.Class#name}) every overload of that name is meant.
 */
final class MethodSpec {

    final String typeName;
    final String methodName;
    /** Parameter types in Java source notation, or null for "any overload". */
    final List<String> parameterTypes;

    private MethodSpec(String typeName, String methodName, List<String> parameterTypes) {
        this.typeName = typeName;
        this.methodName = methodName;
        this.parameterTypes = parameterTypes;
    }

    static MethodSpec parse(String text) {
        int hash = text.indexOf('#');
        if (hash <= 0 || hash == text.length() - 1) {
            throw new IllegalArgumentException("method: expected pkg.Class#name(types), got '" + text + "'");
        }
        String type = text.substring(0, hash).trim();
        String rest = text.substring(hash + 1).trim();
        int open = rest.indexOf('(');
        if (open < 0) {
            return new MethodSpec(type, checkName(rest, text), null);
        }
        if (!rest.endsWith(")")) {
            throw new IllegalArgumentException("method: parameter list of '" + text + "' does not end with ')'");
        }
        String name = checkName(rest.substring(0, open).trim(), text);
        String inner = rest.substring(open + 1, rest.length() - 1).trim();
        List<String> params = new ArrayList<>();
        if (!inner.isEmpty()) {
            for (String p : inner.split(",")) {
                params.add(p.trim());
            }
        }
        return new MethodSpec(type, name, Collections.unmodifiableList(params));
    }

    private static String checkName(String name, String text) {
        if (name.isEmpty() || !Character.isJavaIdentifierStart(name.charAt(0))) {
            throw new IllegalArgumentException("method: '" + text + "' has no valid method name after '#'");
        }
        return name;
    }

    /** True when a method of this spec's type with this name and these parameter types (source notation) matches. */
    boolean matches(String name, List<String> actualParameterTypes) {
        return methodName.equals(name) && (parameterTypes == null || parameterTypes.equals(actualParameterTypes));
    }

    /** The canonical text of one concrete method: {@code type#name(p1,p2)}. */
    static String format(String type, String name, List<String> parameterTypes) {
        return type + "#" + name + "(" + String.join(",", parameterTypes) + ")";
    }

    @Override
    public String toString() {
        return parameterTypes == null ? typeName + "#" + methodName : format(typeName, methodName, parameterTypes);
    }
}
