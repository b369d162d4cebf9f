package dev.stagecraft.state;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The state domain is plain Java: no framework, database, Kafka or JSON library. */
class ArchitectureTest {
  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.stagecraft.state");

  @Test
  void historyDomainImportsNoFrameworkOrInfrastructure() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.state.history..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "jakarta..",
            "java.sql..",
            "javax.sql..",
            "org.apache.kafka..",
            "com.fasterxml..",
            "org.flywaydb..",
            "com.zaxxer..",
            "dev.stagecraft.platform..",
            "dev.stagecraft.servicekit..",
            "dev.stagecraft.state.adapter..")
        .check(classes);
  }

  @Test
  void hostKeyDomainImportsNoFrameworkOrInfrastructure() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.state.hostkey..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "jakarta..",
            "java.sql..",
            "javax.sql..",
            "org.apache.kafka..",
            "com.fasterxml..",
            "dev.stagecraft.platform..",
            "dev.stagecraft.servicekit..",
            "dev.stagecraft.state.adapter..")
        .check(classes);
  }

  @Test
  void domainDoesNotDependOnAdapters() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.state.history..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..adapter..")
        .check(classes);
  }
}
