package dev.stagecraft.planner.service.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.service.workspace.VariableRefused.Reason;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The changes to variables and sets that are refused, each with a message saying what to do. */
class VariableRulesTest {
  private static StoredVariable v(
      String key, VariableCategory c, String value, boolean hcl, boolean sensitive) {
    return new StoredVariable(key, c, value, hcl, sensitive, "");
  }

  @Test
  void twoGlobalSetsMayNotDefineTheSameVariable() {
    var other =
        new VariableSetView(
            "shared", true, 1, List.of(v("TOKEN", VariableCategory.ENV, null, false, false)));
    assertThatThrownBy(
            () ->
                VariableRules.checkGlobalDuplicates(
                    "mine",
                    List.of(v("TOKEN", VariableCategory.ENV, "x", false, false)),
                    List.of(other)))
        .isInstanceOfSatisfying(
            VariableRefused.class, e -> assertThat(e.reason()).isEqualTo(Reason.CONFLICT))
        .hasMessageContaining("\"shared\" defines env variable TOKEN");
    // another category, or the set itself, is no duplicate
    assertThatCode(
            () ->
                VariableRules.checkGlobalDuplicates(
                    "mine",
                    List.of(v("TOKEN", VariableCategory.TERRAFORM, "x", false, false)),
                    List.of(other)))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                VariableRules.checkGlobalDuplicates(
                    "shared",
                    List.of(v("TOKEN", VariableCategory.ENV, "x", false, false)),
                    List.of(other)))
        .doesNotThrowAnyException();
  }

  @Test
  void keysMustBeIdentifiersOfTheirCategory() {
    assertThatCode(() -> VariableRules.checkKey(VariableCategory.TERRAFORM, "ssh-key_2"))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> VariableRules.checkKey(VariableCategory.ENV, "ssh-key"))
        .hasMessageContaining("environment variable's name");
    assertThatThrownBy(() -> VariableRules.checkKey(VariableCategory.TERRAFORM, "2fast"))
        .hasMessageContaining("\"2fast\"");
    assertThatThrownBy(() -> VariableRules.checkKey(VariableCategory.TERRAFORM, "a".repeat(129)))
        .isInstanceOf(VariableRefused.class);
  }

  @Test
  void aPutIsRefusedForHclEnvironmentVariablesLargeValuesAndNoValue() {
    assertThatThrownBy(
            () ->
                VariableRules.checkPut(
                    v("X", VariableCategory.ENV, "{}", true, false), Optional.empty(), true))
        .hasMessageContaining("environment variable's value is a string");
    assertThatThrownBy(
            () ->
                VariableRules.checkPut(
                    v("x", VariableCategory.TERRAFORM, "é".repeat(32 * 1024 + 1), false, false),
                    Optional.empty(),
                    true))
        .hasMessageContaining("over 64 KiB");
    assertThatThrownBy(
            () ->
                VariableRules.checkPut(
                    v("x", VariableCategory.TERRAFORM, null, false, false), Optional.empty(), true))
        .hasMessageContaining("{\"value\"");
    assertThatCode(
            () ->
                VariableRules.checkPut(
                    v("x", VariableCategory.TERRAFORM, "", false, false), Optional.empty(), true))
        .doesNotThrowAnyException();
  }

  @Test
  void aSensitiveVariableStaysSensitiveAndNeedsAKeyring() {
    var stored = v("key", VariableCategory.TERRAFORM, null, false, true);
    assertThatThrownBy(
            () ->
                VariableRules.checkPut(
                    v("key", VariableCategory.TERRAFORM, "x", false, false),
                    Optional.of(stored),
                    true))
        .hasMessageContaining("unset the variable first");
    assertThatThrownBy(
            () ->
                VariableRules.checkPut(
                    v("key", VariableCategory.TERRAFORM, "x", false, true),
                    Optional.empty(),
                    false))
        .isInstanceOfSatisfying(
            VariableRefused.class, e -> assertThat(e.reason()).isEqualTo(Reason.CANNOT_SEAL))
        .hasMessageContaining("STAGECRAFT_SECRETS_KEYS");
  }

  @Test
  void setNamesAndCategoriesAreChecked() {
    assertThatCode(() -> VariableRules.checkSetName("ssh-keys.prod_1")).doesNotThrowAnyException();
    assertThatThrownBy(() -> VariableRules.checkSetName("-x")).hasMessageContaining("\"-x\"");
    assertThatThrownBy(() -> VariableRules.checkSetName(null)).hasMessageContaining("got none");
    assertThatThrownBy(() -> VariableRules.category("secret"))
        .hasMessageContaining("\"terraform\"");
    assertThat(VariableRules.category(null)).isEqualTo(VariableCategory.TERRAFORM);
    assertThat(VariableRules.category("ENV")).isEqualTo(VariableCategory.ENV);
  }
}
