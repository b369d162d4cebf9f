package dev.stagecraft.planner.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The planner service's run lifecycle, triggers and configuration are plain Java: no framework,
 * database, pool, migration or Kafka library; those live in {@code dev.stagecraft.planner.service
 * .adapter..}, behind the ports these packages declare.
 */
class ArchitectureTest {
  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.stagecraft.planner.service");

  @Test
  void runTriggerAndConfigPackagesImportNoFrameworkOrInfrastructure() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.stagecraft.planner.service.run..",
            "dev.stagecraft.planner.service.trigger..",
            "dev.stagecraft.planner.service.config..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "jakarta..",
            "java.sql..",
            "javax.sql..",
            "org.apache.kafka..",
            "com.zaxxer..",
            "org.flywaydb..")
        .check(classes);
  }

  @Test
  void runTriggerAndConfigPackagesDoNotDependOnAdapters() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.stagecraft.planner.service.run..",
            "dev.stagecraft.planner.service.trigger..",
            "dev.stagecraft.planner.service.config..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.stagecraft.planner.service.adapter..")
        .check(classes);
  }
}
