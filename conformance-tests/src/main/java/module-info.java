/**
 * The conformance kit: abstract JUnit 5 classes that every backend extends in its own tests, the kernels
 * they need in every dialect, and the report writer.
 */
module dev.graphrt.conformance {
    requires transitive dev.graphrt.core;
    requires transitive org.junit.jupiter.api;
    requires org.assertj.core;
    requires org.junit.platform.launcher;

    exports dev.graphrt.conformance;
    exports dev.graphrt.conformance.model;

    opens dev.graphrt.conformance to
            org.junit.platform.commons;
    opens dev.graphrt.conformance.model to
            org.junit.platform.commons;
}
