package dev.stagecraft.planner.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The planner service's run lifecycle, triggers, configuration, workspace variables and
 * configuration sources are plain Java: no framework, database, pool, migration or Kafka library;
 * those live in {@code dev.stagecraft.planner.service.adapter..}, behind the ports these packages
 * declare.
 */
class ArchitectureTest {
  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.stagecraft.planner.service");

  @Test
  void domainPackagesImportNoFrameworkOrInfrastructure() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.stagecraft.planner.service.run..",
            "dev.stagecraft.planner.service.trigger..",
            "dev.stagecraft.planner.service.config..",
            "dev.stagecraft.planner.service.workspace..",
            "dev.stagecraft.planner.service.source..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "io.micrometer..",
            "jakarta..",
            "java.sql..",
            "javax.sql..",
            "org.apache.kafka..",
            "com.zaxxer..",
            "org.flywaydb..")
        .check(classes);
  }

  @Test
  void domainPackagesDoNotDependOnAdapters() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.stagecraft.planner.service.run..",
            "dev.stagecraft.planner.service.trigger..",
            "dev.stagecraft.planner.service.config..",
            "dev.stagecraft.planner.service.workspace..",
            "dev.stagecraft.planner.service.source..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.stagecraft.planner.service.adapter..")
        .check(classes);
  }

  /**
   * The lifecycle is the core the rest is built on (docs/adr/0070, 0073): it knows nothing of the
   * driver that carries out its effects, the coordinator, the intake, the views or the answers the
   * API gives.
   */
  @Test
  void theRunLifecycleDependsOnNoDriverCoordinatorOrApi() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.planner.service.run.lifecycle..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.stagecraft.planner.service.run.driver..",
            "dev.stagecraft.planner.service.run.approval..",
            "dev.stagecraft.planner.service.run.intake..",
            "dev.stagecraft.planner.service.run.view..",
            "dev.stagecraft.planner.service.trigger..")
        .orShould()
        .dependOnClassesThat()
        .haveSimpleName("RunCoordinator")
        .check(classes);
  }

  /** Approval answers are decided from the lifecycle's decisions, not from the coordinator. */
  @Test
  void approvalAnswersDependOnTheLifecycleOnly() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.planner.service.run.approval..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.stagecraft.planner.service.run.driver..",
            "dev.stagecraft.planner.service.run.intake..",
            "dev.stagecraft.planner.service.run.view..")
        .orShould()
        .dependOnClassesThat()
        .haveSimpleName("RunCoordinator")
        .check(classes);
  }

  /**
   * The driver and its effect handlers carry out decisions; they never reach into the coordinator.
   */
  @Test
  void theRunDriverDoesNotDependOnTheCoordinator() {
    noClasses()
        .that()
        .resideInAPackage("dev.stagecraft.planner.service.run.driver..")
        .should()
        .dependOnClassesThat()
        .haveSimpleName("RunCoordinator")
        .orShould()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.stagecraft.planner.service.run.intake..",
            "dev.stagecraft.planner.service.run.view..",
            "dev.stagecraft.planner.service.trigger..")
        .check(classes);
  }
}
