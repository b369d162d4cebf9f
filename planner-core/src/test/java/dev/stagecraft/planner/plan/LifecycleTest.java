package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG;
import static dev.stagecraft.planner.plan.ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE;
import static dev.stagecraft.planner.plan.ActionReason.REPLACE_BECAUSE_TAINTED;
import static dev.stagecraft.planner.plan.ActionReason.REPLACE_BY_REQUEST;
import static dev.stagecraft.planner.plan.ActionReason.REPLACE_BY_TRIGGERS;
import static dev.stagecraft.planner.plan.ActionType.CREATE;
import static dev.stagecraft.planner.plan.ActionType.CREATE_THEN_DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE_THEN_CREATE;
import static dev.stagecraft.planner.plan.ActionType.FORGET;
import static dev.stagecraft.planner.plan.ActionType.FORGET_THEN_CREATE;
import static dev.stagecraft.planner.plan.ActionType.NO_OP;
import static dev.stagecraft.planner.plan.ActionType.UPDATE;
import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static dev.stagecraft.planner.plan.Scenario.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import org.junit.jupiter.api.Test;

/** Rule 3: the lifecycle meta-argument (seeds 001 and 002), literal values only. */
class LifecycleTest {
  static String sp(String name, String stateKey, String... extra) {
    return resource(
        "stateful_provisioning",
        name,
        instance(null, "{\"id\":\"" + name + "-1\",\"state_key\":\"" + stateKey + "\"}", extra));
  }

  @Test
  void createBeforeDestroyPropagatesToDependenciesAndIsStoredInState() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "db" {
                  state_key = "v2"
                  lifecycle {
                    create_before_destroy = false
                  }
                }
                resource "stateful_provisioning" "cache" {
                  state_key = "v2"
                }
                locals {
                  db_id = stateful_provisioning.db.id
                }
                resource "stateful_provisioning" "app" {
                  state_key  = "v2-${local.db_id}"
                  depends_on = [stateful_provisioning.cache]
                  lifecycle {
                    create_before_destroy = true
                  }
                }
                resource "stateful_provisioning" "other" {
                  state_key = "v2"
                }
                """)
            .state(sp("db", "v1"), sp("cache", "v1"), sp("app", "v1"), sp("other", "v1"))
            .expect(
                row("stateful_provisioning.db", CREATE_THEN_DELETE, REPLACE_BECAUSE_CANNOT_UPDATE),
                row(
                    "stateful_provisioning.cache",
                    CREATE_THEN_DELETE,
                    REPLACE_BECAUSE_CANNOT_UPDATE),
                row("stateful_provisioning.app", CREATE_THEN_DELETE, REPLACE_BECAUSE_CANNOT_UPDATE),
                row(
                    "stateful_provisioning.other",
                    DELETE_THEN_CREATE,
                    REPLACE_BECAUSE_CANNOT_UPDATE));
    assertThat(plan.actions())
        .filteredOn(PlannedAction::createBeforeDestroy)
        .extracting(PlannedAction::address)
        .containsExactlyInAnyOrder(
            "stateful_provisioning.db", "stateful_provisioning.cache", "stateful_provisioning.app");
    assertThat(plan.action("stateful_provisioning.app").orElseThrow().action().terraformActions())
        .containsExactly("create", "delete");
    assertThat(plan.action("stateful_provisioning.app").orElseThrow().waitFor())
        .containsExactly("stateful_provisioning.cache", "stateful_provisioning.db");
    assertThat(PlanRenderer.render(plan))
        .contains("+/- resource \"stateful_provisioning\" \"app\"");
    assertThat(PlanJson.render(plan)).contains("\"create_before_destroy\":true");
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "db" {
                  state_key = "v2"
                  lifecycle {
                    create_before_destroy = false
                  }
                }
                resource "stateful_provisioning" "app" {
                  state_key = stateful_provisioning.db.id
                  lifecycle {
                    create_before_destroy = true
                  }
                }
                """)
            .plan();
    assertThat(result.diagnostics().list())
        .extracting(Diagnostic::summary)
        .contains("create_before_destroy cannot be turned off");
  }

  @Test
  void createBeforeDestroyIsReadFromStateForInstancesNoLongerConfigured() {
    Plan plan =
        Scenario.config("")
            .state(sp("old", "v1", "\"create_before_destroy\":true"))
            .expect(row("stateful_provisioning.old", DELETE, DELETE_BECAUSE_NO_RESOURCE_CONFIG));
    assertThat(plan.action("stateful_provisioning.old").orElseThrow().createBeforeDestroy())
        .isTrue();
  }

  @Test
  void preventDestroyRejectsThePlanWhenAnActionWouldDestroyTheInstance() {
    String config =
        """
        resource "stateful_provisioning" "db" {
          count     = %s
          state_key = "%s"
          lifecycle {
            prevent_destroy = true%s
          }
        }
        """;
    record Case(String count, String key, String extra, boolean rejected) {}
    for (Case c :
        new Case[] {
          new Case("1", "v2", "", true), // replace
          new Case("0", "v1", "", true), // count shrunk: delete
          new Case("1", "v1", "", false), // no-op
          new Case("1", "v2", "\n    destroy = false", false), // forget + create
        }) {
      PlanResult result =
          Scenario.config(config.formatted(c.count(), c.key(), c.extra()))
              .state(
                  resource(
                      "stateful_provisioning",
                      "db",
                      instance(0, "{\"id\":\"1\",\"state_key\":\"v1\"}")))
              .plan();
      assertThat(result.hasErrors()).as(c.toString()).isEqualTo(c.rejected());
      if (c.rejected()) {
        Diagnostic d = result.diagnostics().errors().get(0);
        assertThat(d.summary()).isEqualTo("Instance cannot be destroyed");
        assertThat(d.detail()).contains("stateful_provisioning.db[0]");
        assertThat(d.range().toString()).isEqualTo("main.tf:5:5");
      }
    }
    // removing the resource block removes the protection
    Scenario.config("")
        .state(sp("db", "v1"))
        .expect(row("stateful_provisioning.db", DELETE, DELETE_BECAUSE_NO_RESOURCE_CONFIG));
    // destroy mode is rejected too
    assertThat(
            Scenario.config(
                    """
                    resource "stateful_provisioning" "db" {
                      state_key = "v1"
                      lifecycle {
                        prevent_destroy = true
                      }
                    }
                    """)
                .state(sp("db", "v1"))
                .destroy()
                .plan()
                .hasErrors())
        .isTrue();
  }

  @Test
  void ignoreChangesIsConsideredAtCreateButIgnoredAtUpdateAndReplaceDecisions() {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v2"
          tags      = { Name = "new", team = "blue" }
          lifecycle {
            ignore_changes = [%s]
          }
        }
        """;
    record Case(String ignore, ActionType expected, String tags) {}
    for (Case c :
        new Case[] {
          new Case("state_key, tags", NO_OP, "{Name=old, team=red}"),
          new Case("state_key, tags[\"Name\"]", UPDATE, "{Name=old, team=blue}"),
          new Case("tags", DELETE_THEN_CREATE, "{Name=new, team=blue}"),
        }) {
      Plan plan =
          Scenario.config(config.formatted(c.ignore()))
              .state(
                  resource(
                      "stateful_provisioning",
                      "app",
                      instance(
                          null,
                          "{\"id\":\"1\",\"state_key\":\"v1\",\"tags\":{\"Name\":\"old\",\"team\":\"red\"}}")))
              .expect(
                  row(
                      "stateful_provisioning.app",
                      c.expected(),
                      c.expected() == DELETE_THEN_CREATE ? REPLACE_BECAUSE_CANNOT_UPDATE : null));
      assertThat(plan.action("stateful_provisioning.app").orElseThrow().after().get("tags"))
          .as(c.ignore())
          .hasToString(c.tags());
    }
    // at create the configured values are used
    Plan created =
        Scenario.config(config.replace("[%s]", "all"))
            .expect(row("stateful_provisioning.app", CREATE));
    assertThat(created.action("stateful_provisioning.app").orElseThrow().after())
        .containsEntry("state_key", "v2");
    // all: never an update or replace
    Scenario.config(config.replace("[%s]", "all"))
        .state(sp("app", "v1"))
        .expect(row("stateful_provisioning.app", NO_OP));
  }

  @Test
  void ignoreChangesMayNotNameMetaArgumentsOrUnknownAttributes() {
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                  lifecycle {
                    ignore_changes = [count, colour]
                  }
                }
                """)
            .plan();
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary, d -> d.range().toString())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("Invalid ignore_changes", "main.tf:4:23"),
            org.assertj.core.groups.Tuple.tuple(
                "Unsupported attribute in ignore_changes", "main.tf:4:30"));
  }

  @Test
  void lifecycleArgumentsAcceptLiteralValuesOnly() {
    PlanResult result =
        Scenario.config(
                """
                variable "cbd" {
                  default = true
                }
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                  lifecycle {
                    create_before_destroy = var.cbd
                    prevent_destroy       = !false
                  }
                }
                """)
            .plan();
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary, d -> d.range().toString())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("Invalid lifecycle argument", "main.tf:7:29"),
            org.assertj.core.groups.Tuple.tuple("Invalid lifecycle argument", "main.tf:8:29"));
  }

  @Test
  void replaceTriggeredByFiresOnResourceInstanceAndAttributeChanges() {
    String config =
        """
        resource "stateful_provisioning" "db" {
          count     = 2
          state_key = var.db_key
          tags      = { v = var.db_tag }
        }
        resource "stateful_provisioning" "whole" {
          state_key = "w"
          lifecycle {
            replace_triggered_by = [stateful_provisioning.db]
          }
        }
        resource "stateful_provisioning" "each" {
          count     = 2
          state_key = "e"
          lifecycle {
            replace_triggered_by = [stateful_provisioning.db[count.index]]
          }
        }
        resource "stateful_provisioning" "attr" {
          state_key = "a"
          lifecycle {
            replace_triggered_by = [stateful_provisioning.db[1].state_key]
          }
        }
        variable "db_key" {}
        variable "db_tag" {}
        """;
    String[] state = {
      resource(
          "stateful_provisioning",
          "db",
          instance(0, "{\"id\":\"d0\",\"state_key\":\"k1\",\"tags\":{\"v\":\"t1\"}}"),
          instance(1, "{\"id\":\"d1\",\"state_key\":\"k1\",\"tags\":{\"v\":\"t1\"}}")),
      sp("whole", "w"),
      resource(
          "stateful_provisioning",
          "each",
          instance(0, "{\"id\":\"e0\",\"state_key\":\"e\"}"),
          instance(1, "{\"id\":\"e1\",\"state_key\":\"e\"}")),
      sp("attr", "a")
    };
    // nothing changed: nothing fires
    Scenario.config(config, java.util.Map.of("db_key", "k1", "db_tag", "t1"))
        .state(state)
        .expect(
            row("stateful_provisioning.whole", NO_OP),
            row("stateful_provisioning.each[0]", NO_OP),
            row("stateful_provisioning.each[1]", NO_OP),
            row("stateful_provisioning.attr", NO_OP));
    // db instances updated in place (tags): the whole-resource and instance triggers fire, the
    // state_key attribute did not change
    Scenario.config(config, java.util.Map.of("db_key", "k1", "db_tag", "t2"))
        .state(state)
        .expect(
            row("stateful_provisioning.db[0]", UPDATE),
            row("stateful_provisioning.db[1]", UPDATE),
            row("stateful_provisioning.whole", DELETE_THEN_CREATE, REPLACE_BY_TRIGGERS),
            row("stateful_provisioning.each[0]", DELETE_THEN_CREATE, REPLACE_BY_TRIGGERS),
            row("stateful_provisioning.each[1]", DELETE_THEN_CREATE, REPLACE_BY_TRIGGERS),
            row("stateful_provisioning.attr", NO_OP));
    // state_key changed: everything fires
    Plan plan =
        Scenario.config(config, java.util.Map.of("db_key", "k2", "db_tag", "t1"))
            .state(state)
            .expect(
                row(
                    "stateful_provisioning.db[0]",
                    DELETE_THEN_CREATE,
                    REPLACE_BECAUSE_CANNOT_UPDATE),
                row(
                    "stateful_provisioning.db[1]",
                    DELETE_THEN_CREATE,
                    REPLACE_BECAUSE_CANNOT_UPDATE),
                row("stateful_provisioning.whole", DELETE_THEN_CREATE, REPLACE_BY_TRIGGERS),
                row("stateful_provisioning.each[0]", DELETE_THEN_CREATE, REPLACE_BY_TRIGGERS),
                row("stateful_provisioning.each[1]", DELETE_THEN_CREATE, REPLACE_BY_TRIGGERS),
                row("stateful_provisioning.attr", DELETE_THEN_CREATE, REPLACE_BY_TRIGGERS));
    assertThat(plan.action("stateful_provisioning.each[1]").orElseThrow().waitFor())
        .contains("stateful_provisioning.db");
    assertThat(PlanRenderer.render(plan))
        .contains("will be replaced due to changes in replace_triggered_by");
  }

  @Test
  void enabledFalseIsAsIfTheResourceWereNotInConfiguration() {
    Scenario.config(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              lifecycle {
                enabled = false
              }
            }
            resource "stateful_provisioning" "new" {
              state_key = "v1"
              lifecycle {
                enabled = false
              }
            }
            """)
        .state(sp("app", "v1"))
        .expect(row("stateful_provisioning.app", DELETE, DELETE_BECAUSE_NO_RESOURCE_CONFIG));
  }

  @Test
  void destroyFalseForgetsInsteadOfDestroyingAndIsStoredInState() {
    String config =
        """
        resource "stateful_provisioning" "app" {
          count     = %s
          state_key = "%s"
          lifecycle {
            destroy = false
          }
        }
        """;
    Plan replace =
        Scenario.config(config.formatted("1", "v2"))
            .state(
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(0, "{\"id\":\"1\",\"state_key\":\"v1\"}")))
            .expect(
                row(
                    "stateful_provisioning.app[0]",
                    FORGET_THEN_CREATE,
                    REPLACE_BECAUSE_CANNOT_UPDATE));
    PlannedAction a = replace.action("stateful_provisioning.app[0]").orElseThrow();
    assertThat(a.action().terraformActions()).containsExactly("forget", "create");
    assertThat(a.action().wireName()).isEqualTo("replace");
    assertThat(a.skipDestroy()).isTrue();
    assertThat(PlanRenderer.summary(replace))
        .isEqualTo("Plan: 1 to add, 0 to change, 0 to destroy, 1 to forget.");
    Plan shrink =
        Scenario.config(config.formatted("0", "v1"))
            .state(
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(0, "{\"id\":\"1\",\"state_key\":\"v1\"}")))
            .expect(
                row(
                    "stateful_provisioning.app[0]",
                    FORGET,
                    ActionReason.DELETE_BECAUSE_COUNT_INDEX));
    assertThat(PlanRenderer.render(shrink))
        .contains("will be removed from the state, but will not be destroyed")
        .contains("  . resource \"stateful_provisioning\" \"app\"");
    // a created instance carries the flag to state
    assertThat(
            Scenario.config(config.formatted("1", "v1"))
                .expect(row("stateful_provisioning.app[0]", CREATE))
                .action("stateful_provisioning.app[0]")
                .orElseThrow()
                .skipDestroy())
        .isTrue();
  }

  @Test
  void aLaterRemovalOfAResourceWhoseStateSaysSkipDestroyForgetsIt() {
    Scenario.config("")
        .state(sp("app", "v1", "\"skip_destroy\":true"), sp("other", "v1"))
        .expect(
            row("stateful_provisioning.app", FORGET, DELETE_BECAUSE_NO_RESOURCE_CONFIG),
            row("stateful_provisioning.other", DELETE, DELETE_BECAUSE_NO_RESOURCE_CONFIG));
    // removing the option from a still-configured resource turns destruction back on
    Scenario.config(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v2"
            }
            """)
        .state(sp("app", "v1", "\"skip_destroy\":true"))
        .expect(
            row("stateful_provisioning.app", DELETE_THEN_CREATE, REPLACE_BECAUSE_CANNOT_UPDATE));
  }

  @Test
  void taintedAndRequestedReplacementsUseInstanceAddresses() {
    Scenario.config(
            """
            resource "stateful_provisioning" "web" {
              count     = 3
              state_key = "v1"
            }
            """)
        .state(
            resource(
                "stateful_provisioning",
                "web",
                instance(0, "{\"id\":\"1\",\"state_key\":\"v1\"}", "\"status\":\"tainted\""),
                instance(1, "{\"id\":\"2\",\"state_key\":\"v1\"}"),
                instance(2, "{\"id\":\"3\",\"state_key\":\"v1\"}")))
        .replace("stateful_provisioning.web[1]")
        .expect(
            row("stateful_provisioning.web[0]", DELETE_THEN_CREATE, REPLACE_BECAUSE_TAINTED),
            row("stateful_provisioning.web[1]", DELETE_THEN_CREATE, REPLACE_BY_REQUEST),
            row("stateful_provisioning.web[2]", NO_OP));
  }

  @Test
  void preconditionFailureStopsThePlanWithItsMessageAndAddress() {
    PlanResult result =
        Scenario.config(
                """
                variable "env" {
                  default = "prod"
                }
                resource "stateful_provisioning" "app" {
                  count     = 1
                  state_key = "v1"
                  lifecycle {
                    precondition {
                      condition     = var.env == "staging"
                      error_message = "Only staging may be deployed, not ${var.env}."
                    }
                  }
                }
                """)
            .plan();
    assertThat(result.hasErrors()).isTrue();
    Diagnostic d = result.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("Resource precondition failed");
    assertThat(d.detail())
        .contains("Only staging may be deployed, not prod.")
        .contains("stateful_provisioning.app[0]");
    assertThat(d.range().toString()).isEqualTo("main.tf:9:23");
  }

  @Test
  void postconditionIsCheckedAtPlanTimeWhenKnownElseAfterApply() {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          lifecycle {
            postcondition {
              condition     = self.%s != "v1"
              error_message = "%s must not be v1."
            }
          }
        }
        """;
    PlanResult known = Scenario.config(config.formatted("state_key", "state_key")).plan();
    assertThat(known.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Resource postcondition failed");
    PlanResult deferred = Scenario.config(config.formatted("id", "id")).plan();
    assertThat(deferred.hasErrors()).as(deferred.renderDiagnostics()).isFalse();
    assertThat(
            deferred
                .applyContext()
                .checkPostconditions(
                    "stateful_provisioning.app", java.util.Map.of("id", "v1", "state_key", "v1"))
                .errors())
        .extracting(Diagnostic::detail)
        .anyMatch(s -> s.contains("id must not be v1."));
    assertThat(
            deferred
                .applyContext()
                .checkPostconditions(
                    "stateful_provisioning.app", java.util.Map.of("id", "42", "state_key", "v1"))
                .hasErrors())
        .isFalse();
  }
}
