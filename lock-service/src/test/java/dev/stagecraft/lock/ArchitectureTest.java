package dev.stagecraft.lock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The lock domain is plain Java: no framework, database, Kafka or JSON library. */
class ArchitectureTest {
  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.stagecraft.lock");

  @Test
  void leaseDomainImportsNoFrameworkOrInfrastructure() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.lock.lease..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "io.micrometer..",
            "jakarta..",
            "java.sql..",
            "javax.sql..",
            "org.apache.kafka..",
            "com.fasterxml..",
            "org.flywaydb..",
            "com.zaxxer..",
            "dev.stagecraft.platform..",
            "dev.stagecraft.servicekit..",
            "dev.stagecraft.lock.adapter..")
        .check(classes);
  }
}
