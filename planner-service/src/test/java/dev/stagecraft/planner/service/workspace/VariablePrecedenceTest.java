package dev.stagecraft.planner.service.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Precedence between every pair of sources (ADR 0078 item 3): run over workspace over attached sets
 * (by name) over global sets, per (category, key).
 */
class VariablePrecedenceTest {
  private static StoredVariable tf(String key, String value) {
    return new StoredVariable(key, VariableCategory.TERRAFORM, value, false, false, "");
  }

  private static StoredVariable env(String key, String value) {
    return new StoredVariable(key, VariableCategory.ENV, value, false, false, "");
  }

  private static StoredVariable secret(String key, String value) {
    return new StoredVariable(key, VariableCategory.TERRAFORM, value, false, true, "");
  }

  private static VariableSetView ws(long version, StoredVariable... vars) {
    return new VariableSetView("prod", false, version, List.of(vars));
  }

  private static VariableSetView set(String name, boolean global, StoredVariable... vars) {
    return new VariableSetView(name, global, 7, List.of(vars));
  }

  private static ResolvedVariable only(ResolvedVariables r, VariableCategory c, String key) {
    List<ResolvedVariable> found =
        r.variables().stream().filter(v -> v.category() == c && v.key().equals(key)).toList();
    assertThat(found).hasSize(1);
    return found.getFirst();
  }

  @Test
  void theRunsOwnValueWinsOverTheWorkspaces() {
    var r =
        VariablePrecedence.resolve(
            Map.of("rev", "run"), Set.of(), ws(3, tf("rev", "ws")), List.of(), List.of());
    assertThat(only(r, VariableCategory.TERRAFORM, "rev").value()).isEqualTo("run");
    assertThat(only(r, VariableCategory.TERRAFORM, "rev").origin())
        .isEqualTo(new VariableOrigin.Run());
    assertThat(r.versions()).containsExactly(Map.entry("workspace", 3L));
  }

  @Test
  void theWorkspacesValueWinsOverAnAttachedSets() {
    var r =
        VariablePrecedence.resolve(
            Map.of(),
            Set.of(),
            ws(2, tf("region", "ws")),
            List.of(set("a", false, tf("region", "set"))),
            List.of());
    ResolvedVariable v = only(r, VariableCategory.TERRAFORM, "region");
    assertThat(v.value()).isEqualTo("ws");
    assertThat(v.origin()).isEqualTo(new VariableOrigin.Workspace(2));
    assertThat(r.versions()).containsEntry("workspace", 2L).containsEntry("set:a", 7L);
  }

  @Test
  void ofTwoAttachedSetsTheOneWhoseNameSortsFirstWins() {
    var r =
        VariablePrecedence.resolve(
            Map.of(),
            Set.of(),
            ws(0),
            List.of(set("zeta", false, tf("k", "z")), set("alpha", false, tf("k", "a"))),
            List.of());
    ResolvedVariable v = only(r, VariableCategory.TERRAFORM, "k");
    assertThat(v.value()).isEqualTo("a");
    assertThat(v.origin().describe()).isEqualTo("variable set \"alpha\"");
  }

  @Test
  void anAttachedSetWinsOverAGlobalSetWhateverTheNames() {
    var r =
        VariablePrecedence.resolve(
            Map.of(),
            Set.of(),
            ws(0),
            List.of(set("zz-attached", false, env("TOKEN", "attached"))),
            List.of(set("aa-global", true, env("TOKEN", "global"))));
    ResolvedVariable v = only(r, VariableCategory.ENV, "TOKEN");
    assertThat(v.value()).isEqualTo("attached");
    assertThat(r.environment()).containsExactly(Map.entry("TOKEN", "attached"));
  }

  @Test
  void theRunsOwnValueWinsOverAGlobalSetsAndTheWorkspaceOverAGlobalSets() {
    var r =
        VariablePrecedence.resolve(
            Map.of("a", "run"),
            Set.of("a"),
            ws(1, tf("b", "ws")),
            List.of(),
            List.of(set("g", true, tf("a", "global"), tf("b", "global"), tf("c", "global"))));
    assertThat(r.terraformValues())
        .containsEntry("a", "run")
        .containsEntry("b", "ws")
        .containsEntry("c", "global");
    assertThat(r.hclNames()).containsExactly("a");
    assertThat(only(r, VariableCategory.TERRAFORM, "c").origin())
        .isEqualTo(new VariableOrigin.VariableSet("g", true, 7));
  }

  @Test
  void categoriesAreDecidedApartAndTheRunsValuesAreTerraformVariables() {
    var r =
        VariablePrecedence.resolve(
            Map.of("PATH_X", "run"), Set.of(), ws(1, env("PATH_X", "env")), List.of(), List.of());
    assertThat(r.terraformValues()).containsExactly(Map.entry("PATH_X", "run"));
    assertThat(r.environment()).containsExactly(Map.entry("PATH_X", "env"));
  }

  @Test
  void aValueOverAStoredSensitiveOneStaysSensitive() {
    var r =
        VariablePrecedence.resolve(
            Map.of("key", "from-run"),
            Set.of(),
            ws(1),
            List.of(set("keys", false, secret("key", "stored"), secret("other", "x"))),
            List.of());
    assertThat(only(r, VariableCategory.TERRAFORM, "key").sensitive()).isTrue();
    assertThat(only(r, VariableCategory.TERRAFORM, "key").value()).isEqualTo("from-run");
    assertThat(r.sensitiveNames()).containsExactlyInAnyOrder("key", "other");
    assertThat(only(r, VariableCategory.TERRAFORM, "key").toString()).doesNotContain("from-run");
  }

  @Test
  void theRunAloneGivesOnlyItsValuesAndNoVersions() {
    var r = VariablePrecedence.runOnly("acme", "prod", Map.of("x", "1"), Set.of());
    assertThat(r.terraformValues()).containsExactly(Map.entry("x", "1"));
    assertThat(r.versions()).isEmpty();
    assertThat(WorkspaceVariables.NONE.resolve("acme", "prod", Map.of(), Set.of()).variables())
        .isEmpty();
  }
}
