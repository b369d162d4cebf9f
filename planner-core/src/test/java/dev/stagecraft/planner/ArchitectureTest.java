package dev.stagecraft.planner;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The planner's domain is plain Java: no framework, broker, database or SSH library; and no
 * java.util.regex, whose backtracking tenant input could make take years (RE2/J instead, ADR 0061).
 * Checked on the compiled classes, so a fully qualified name in the code counts as an import does.
 */
class ArchitectureTest {
  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.stagecraft.planner");

  @Test
  void domainCodeDependsOnNoFrameworkInfrastructureOrBacktrackingRegex() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.planner..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "org.apache.kafka..",
            "java.sql..",
            "javax.sql..",
            "net.schmizz..",
            "org.flywaydb..",
            "java.util.regex..")
        .check(classes);
  }
}
