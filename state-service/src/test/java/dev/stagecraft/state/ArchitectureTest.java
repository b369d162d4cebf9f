package dev.stagecraft.state;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.stagecraft.state.adapter.db.DecidingStoreOffender;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.http.DecidingControllerOffender;
import dev.stagecraft.state.application.JdbcUseCaseOffender;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.StateDecider;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The state domain and the application layer are plain Java: no framework, database, Kafka or JSON
 * library; the adapters reach the deciders through the application layer.
 */
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
            "io.micrometer..",
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

  /** The application layer: plain Java, no adapter; a port's failure may be an SQLException. */
  private static final ArchRule APPLICATION_IS_PLAIN_JAVA =
      noClasses()
          .that()
          .resideInAPackage("dev.stagecraft.state.application..")
          .should()
          .dependOnClassesThat(
              resideInAnyPackage(
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
                      "dev.stagecraft.state.adapter..")
                  // the database's failure, classified by its SQLSTATE (transient or not)
                  .and(not(equivalentTo(SQLException.class))));

  /**
   * HTTP and Kafka adapters call StateHistory's use cases; they never ask a decider for a write
   * themselves.
   */
  private static final ArchRule ADAPTERS_DECIDE_THROUGH_THE_APPLICATION =
      noClasses()
          .that()
          .resideInAnyPackage(
              "dev.stagecraft.state.adapter.http..", "dev.stagecraft.state.adapter.kafka..")
          .should()
          .dependOnClassesThat()
          .belongToAnyOf(StateDecider.class)
          .orShould()
          .callMethodWhere(
              target(owner(equivalentTo(DocumentDecider.class)))
                  .and(target(nameMatching("rollback|delete|push|pushStored"))));

  /**
   * The store decides no whole-document change: a push, a rollback and a deletion are decided by
   * the application layer between the port's reads and its write (ADR 0075).
   */
  private static final ArchRule THE_STORE_DECIDES_NO_DOCUMENT_CHANGE =
      noClasses()
          .that()
          .resideInAPackage("dev.stagecraft.state.adapter.db..")
          .should()
          .callMethodWhere(
              target(owner(equivalentTo(DocumentDecider.class)))
                  .and(target(nameMatching("rollback|delete|push|pushStored"))));

  /**
   * The store's write ports are the application layer's, wired in adapter.db; the store's push and
   * opening methods (the use cases over its own ports, for tests, tools and benchmarks) are not the
   * controllers' way in either.
   */
  private static final ArchRule ONLY_THE_APPLICATION_REACHES_THE_WRITE_PORTS =
      noClasses()
          .that()
          .resideOutsideOfPackages(
              "dev.stagecraft.state.application..", "dev.stagecraft.state.adapter.db..")
          .should()
          .callMethodWhere(
              target(owner(equivalentTo(StateStore.class)))
                  .and(
                      target(
                          nameMatching(
                              "resultLog|lockedChanges|pushLog|openingLog|pushDocument|pushStreamed|openRun"))));

  @Test
  void applicationLayerIsPlainJavaAndKnowsNoAdapter() {
    APPLICATION_IS_PLAIN_JAVA.check(classes);
  }

  @Test
  void adaptersDecideThroughTheApplicationLayer() {
    ADAPTERS_DECIDE_THROUGH_THE_APPLICATION.check(classes);
  }

  @Test
  void theStoreDecidesNoDocumentChange() {
    THE_STORE_DECIDES_NO_DOCUMENT_CHANGE.check(classes);
  }

  @Test
  void onlyTheApplicationLayerAndItsWiringReachTheStoresWritePorts() {
    ONLY_THE_APPLICATION_REACHES_THE_WRITE_PORTS.check(classes);
  }

  @Test
  void theRulesCatchAnAdapterThatDecidesAndAnApplicationClassThatUsesJdbc() {
    JavaClasses offenders =
        new ClassFileImporter()
            .importClasses(
                DecidingControllerOffender.class,
                JdbcUseCaseOffender.class,
                DecidingStoreOffender.class);
    assertThatThrownBy(() -> ADAPTERS_DECIDE_THROUGH_THE_APPLICATION.check(offenders))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("DecidingControllerOffender")
        .hasMessageContaining("StateDecider")
        .hasMessageContaining("DocumentDecider.delete");
    assertThatThrownBy(() -> APPLICATION_IS_PLAIN_JAVA.check(offenders))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("JdbcUseCaseOffender")
        .hasMessageContaining("java.sql.Connection");
    assertThatThrownBy(() -> ONLY_THE_APPLICATION_REACHES_THE_WRITE_PORTS.check(offenders))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("lockedChanges")
        .hasMessageContaining("pushStreamed");
    assertThatThrownBy(() -> THE_STORE_DECIDES_NO_DOCUMENT_CHANGE.check(offenders))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("DecidingStoreOffender")
        .hasMessageContaining("DocumentDecider.pushStored");
  }
}
