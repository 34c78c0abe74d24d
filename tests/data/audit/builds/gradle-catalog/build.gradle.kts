plugins {
    java
}

dependencies {
    implementation(libs.jmh.core)
}

tasks.withType<JavaCompile> {
    options.release.set(21)
}
