package dev.stagecraft.executor;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

@AnalyzeClasses(
    packages = "dev.stagecraft.executor",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule stepLogicImportsNoFrameworkKafkaSshOrAdapter =
      noClasses()
          .that()
          .resideInAPackage("dev.stagecraft.executor.step..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.micronaut..",
              "io.micrometer..",
              "jakarta..",
              "javax.inject..",
              "io.netty..",
              "org.apache.kafka..",
              "com.fasterxml.jackson..",
              "dev.stagecraft.platform..",
              "net.schmizz..",
              "com.hierynomus..",
              "org.apache.sshd..",
              "dev.stagecraft.executor.adapter..");
}
