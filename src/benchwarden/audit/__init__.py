"""Audit a project's JMH configuration: extraction, JMH's precedence rules, cost model, findings, history, output.

Entry point: :func:`benchwarden.audit.project.audit_project`.  Modules, in the
order data flows through them:

* ``javasource`` — parse Java sources with tree-sitter into classes, methods,
  fields and annotation uses (no regular expressions on Java);
* ``buildfile`` — JMH version and Java target from Maven and Gradle build files;
* ``deadcode`` — values a ``@Benchmark`` method computes without side effects and never uses;
* ``resolve`` — JMH's own rules: which classes carry benchmarks, which
  annotation wins, which ``@Param`` fields apply;
* ``defaults`` — JMH's defaults by version;
* ``cost`` — estimated execution time under the project's, JMH's default and
  benchwarden's dynamic configuration;
* ``findings`` — configuration smells, each with its consequence;
* ``history`` — monthly git history sampling;
* ``render`` / ``apply`` — output and a derived benchwarden suite table.
"""
