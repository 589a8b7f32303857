package dev.graphrt.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** DESIGN.md section 1's module rules, checked on the compiled classes of every module. */
class ModuleRulesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.graphrt");
    }

    @Test
    void backends_depend_on_the_runtime_api_only_never_on_the_core() {
        noClasses()
                .that()
                .resideInAPackage("dev.graphrt.backend..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.graphrt.core..")
                .check(classes);
    }

    @Test
    void no_backend_depends_on_another_backend() {
        String[] backends = {"cpu", "cuda", "hip", "wgpu"};
        for (String backend : backends) {
            for (String other : backends) {
                if (!backend.equals(other)) {
                    noClasses()
                            .that()
                            .resideInAPackage("dev.graphrt.backend." + backend + "..")
                            .should()
                            .dependOnClassesThat()
                            .resideInAPackage("dev.graphrt.backend." + other + "..")
                            .check(classes);
                }
            }
        }
    }

    /** The JDK includes its supported management extension (com.sun.management): the cpu backend's memory ceiling. */
    @Test
    void backends_use_nothing_outside_the_jdk_slf4j_the_runtime_api_and_the_shared_driver_layer() {
        noClasses()
                .that()
                .resideInAPackage("dev.graphrt.backend..")
                .should()
                .dependOnClassesThat()
                .resideOutsideOfPackages(
                        "java..",
                        "javax..",
                        "jdk..",
                        "com.sun.management..",
                        "org.slf4j..",
                        "dev.graphrt.api..",
                        "dev.graphrt.spi..",
                        "dev.graphrt.driver..",
                        "dev.graphrt.backend..")
                .check(classes);
    }

    @Test
    void only_the_hardware_graph_backends_use_the_shared_driver_layer() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.graphrt.backend.cpu..",
                        "dev.graphrt.backend.wgpu..",
                        "dev.graphrt.core..",
                        "dev.graphrt.api..",
                        "dev.graphrt.spi..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.graphrt.driver..")
                .check(classes);
    }

    @Test
    void the_shared_driver_layer_depends_on_the_jdk_slf4j_and_the_runtime_api_only() {
        noClasses()
                .that()
                .resideInAPackage("dev.graphrt.driver..")
                .should()
                .dependOnClassesThat()
                .resideOutsideOfPackages(
                        "java..", "org.slf4j..", "dev.graphrt.api..", "dev.graphrt.spi..", "dev.graphrt.driver..")
                .check(classes);
    }

    /** JSpecify's nullness annotations aside: a {@code requires static} module, read by NullAway when building. */
    @Test
    void the_api_depends_on_nothing_but_the_jdk() {
        noClasses()
                .that()
                .resideInAnyPackage("dev.graphrt.api..", "dev.graphrt.spi..")
                .should()
                .dependOnClassesThat()
                .resideOutsideOfPackages("java..", "dev.graphrt.api..", "dev.graphrt.spi..", "org.jspecify.annotations")
                .check(classes);
    }

    @Test
    void the_examples_use_only_the_api_and_the_core_entry_points() {
        noClasses()
                .that()
                .resideInAPackage("dev.graphrt.examples..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.graphrt.core.runtime..",
                        "dev.graphrt.core.lifecycle..",
                        "dev.graphrt.core.memory..",
                        "dev.graphrt.core.metadata..",
                        "dev.graphrt.backend..")
                .check(classes);
    }
}
