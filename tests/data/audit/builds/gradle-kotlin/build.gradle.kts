// Kotlin DSL, dependency coordinates with a variable.
plugins {
    java
}

val jmhVersion = "1.35"
val url = "http://example.com/x" // a string containing // must not start a comment

dependencies {
    implementation("org.openjdk.jmh:jmh-core:$jmhVersion")
    annotationProcessor("org.openjdk.jmh:jmh-generator-annprocess:${jmhVersion}")
}

java {
    toolchain {
        languageVersion.set(JavaLanguageVersion.of(17))
    }
}
