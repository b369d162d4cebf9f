package dev.stagecraft.planner.service.run.lifecycle;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The run lifecycle decides without I/O, locks, threads or clock reads: time comes in commands.
 * Were a clock read or a lock added, the decider's tests would depend on when and how they run.
 */
class RunDeciderPurityTest {
  private final JavaClasses lifecycle =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.stagecraft.planner.service.run.lifecycle");

  @Test
  void lifecycleDoesNoIoTakesNoLockAndStartsNoThread() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.util.concurrent..",
            "java.io..",
            "java.nio..",
            "java.net..",
            "org.slf4j..",
            "io.micronaut..",
            "com.fasterxml..")
        .orShould()
        .dependOnClassesThat()
        .belongToAnyOf(Thread.class, Clock.class)
        .check(lifecycle);
  }

  @Test
  void lifecycleReadsNoClock() {
    noClasses()
        .should()
        .callMethod(Instant.class, "now")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .check(lifecycle);
  }
}
