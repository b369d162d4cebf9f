package dev.stagecraft.chaos;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class ArchitectureTest {

  @Test
  void historyInvariantsAndReportImportNoFrameworkOrInfrastructure() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.stagecraft.chaos.history..",
            "dev.stagecraft.chaos.invariant..",
            "dev.stagecraft.chaos.report..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.micronaut..",
            "org.apache.kafka..",
            "java.sql..",
            "java.net..",
            "com.fasterxml..",
            "dev.stagecraft.chaos.source..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.stagecraft.chaos"));
  }
}
