package io.benchwarden.spl;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A performance assertion in Stochastic Performance Logic on a JMH benchmark method, checked by
 * {@code benchwarden check} (see docs/spl.md in the benchwarden repository).
 *
 * <p>{@code SELF} (or {@code THIS}) in the formula means the annotated benchmark; other benchmarks of the
 * suite are named as in any SPL file ({@code Class.method}, with {@code @Param} values as arguments):
 *
 * <pre>{@code
 * @Benchmark
 * @SPL("for s in {100, 1000} SELF(s) <= 1.5 * CountWordsBench.countHash")
 * public List<String> tokenize() { ... }
 * }</pre>
 *
 * <p>Several formulas may be given as an array; each is a separate assertion. The annotation is retained
 * at run time so that tools can read it from the built jar's class files.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface SPL {
    /** The formula(s): SPL source text. */
    String[] value();
}
