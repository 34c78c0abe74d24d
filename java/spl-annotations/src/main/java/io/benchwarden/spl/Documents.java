package io.benchwarden.spl;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method(s) a JMH benchmark method measures, for performance documentation: {@code benchwarden site build}
 * gives each a page with how its time grows with the benchmark's {@code @Param} axes, and
 * {@code benchwarden docs --javadoc} a Performance section in its Javadoc page (see docs/site.md in the
 * benchwarden repository). Methods are named in Javadoc notation, {@code package.Class#method(Type)}:
 *
 * <pre>{@code
 * @Benchmark
 * @Documents("com.acme.Parser#parse(String)")
 * public Document parse() { ... }
 * }</pre>
 *
 * <p>The annotation is retained at run time so that tools can read it from the built jar's class files.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Documents {
    /** The documented method(s), as {@code package.Class#method(Type, ...)}. */
    String[] value();
}
