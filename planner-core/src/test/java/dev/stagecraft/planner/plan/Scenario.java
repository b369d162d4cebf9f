package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A planning scenario: configuration + prior state (v4 JSON) + options → plan. Table-driven tests
 * list the expected {@link Row}s (address, action, reason).
 */
final class Scenario {
  private final String config;
  private final Map<String, String> vars;
  private String state = null;
  private List<String> replace = List.of();
  private boolean destroy = false;

  private Scenario(String config, Map<String, String> vars) {
    this.config = config;
    this.vars = vars;
  }

  static Scenario config(String config) {
    return new Scenario(config, Map.of());
  }

  static Scenario config(String config, Map<String, String> vars) {
    return new Scenario(config, vars);
  }

  /** Prior state from resource entries written with {@link #resource}. */
  Scenario state(String... resources) {
    this.state =
        "{\"version\":4,\"serial\":7,\"lineage\":\"l-1\",\"outputs\":{},\"resources\":["
            + String.join(",", resources)
            + "]}";
    return this;
  }

  Scenario rawState(String v4) {
    this.state = v4;
    return this;
  }

  Scenario replace(String... addresses) {
    this.replace = List.of(addresses);
    return this;
  }

  Scenario destroy() {
    this.destroy = true;
    return this;
  }

  /** A v4 resource entry; instances written with {@link #instance}. */
  static String resource(String type, String name, String... instances) {
    return "{\"mode\":\"managed\",\"type\":\""
        + type
        + "\",\"name\":\""
        + name
        + "\",\"provider\":\"provider[\\\"stagecraft.dev/builtin/stagecraft\\\"]\",\"instances\":["
        + String.join(",", instances)
        + "]}";
  }

  /**
   * A v4 instance: {@code indexKey} null, an Integer or a String; {@code attributes} JSON object
   * text; {@code extra} further instance fields (e.g. {@code "status":"tainted"}) or empty.
   */
  static String instance(Object indexKey, String attributes, String... extra) {
    StringBuilder sb = new StringBuilder("{\"schema_version\":0");
    if (indexKey instanceof String s) {
      sb.append(",\"index_key\":\"").append(s).append('"');
    } else if (indexKey != null) {
      sb.append(",\"index_key\":").append(indexKey);
    }
    sb.append(",\"attributes\":").append(attributes);
    for (String e : extra) {
      sb.append(',').append(e);
    }
    return sb.append('}').toString();
  }

  PlanResult plan() {
    return Planner.plan(
        new PlanRequest("default", Map.of("main.tf", config), vars, replace, destroy, null),
        PriorState.fromV4Json(state));
  }

  /** Plans, requires success, and checks every listed row (unlisted no-ops are ignored). */
  Plan expect(Row... rows) {
    PlanResult result = plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    List<Row> actual = new ArrayList<>();
    for (PlannedAction a : plan.actions()) {
      actual.add(new Row(a.address(), a.action(), a.reason()));
    }
    assertThat(actual)
        .as(PlanRenderer.render(plan))
        .filteredOn(r -> r.action() != ActionType.NO_OP || List.of(rows).contains(r))
        .containsExactlyInAnyOrder(rows);
    return plan;
  }

  record Row(String address, ActionType action, ActionReason reason) {}

  static Row row(String address, ActionType action) {
    return new Row(address, action, null);
  }

  static Row row(String address, ActionType action, ActionReason reason) {
    return new Row(address, action, reason);
  }
}
