package dev.stagecraft.planner.service.workspace;

import dev.stagecraft.planner.service.workspace.VariableRefused.Reason;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a change to stored variables and variable sets must satisfy (docs/workspaces.md): valid
 * names, values of at most 64 KiB, no HCL for environment variables, a sensitive variable stays
 * sensitive, and no two global sets of a tenant define the same variable. Each check throws {@link
 * VariableRefused} saying what is wrong and how to fix it. Pure functions; thread-safe.
 */
public final class VariableRules {
  /** The most a value may hold, in UTF-8 bytes. */
  public static final int MAX_VALUE_BYTES = 64 * 1024;

  /** The most a key may hold, in characters. */
  public static final int MAX_KEY_CHARS = 128;

  /** The most a description may hold, in characters. */
  public static final int MAX_DESCRIPTION_CHARS = 1024;

  private static final Pattern TERRAFORM_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
  private static final Pattern ENV_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern SET_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,89}");

  private VariableRules() {}

  /**
   * The category a request names: {@code terraform} (also when absent) or {@code env}.
   *
   * @throws VariableRefused for anything else
   */
  public static VariableCategory category(String text) {
    if (text == null || text.isBlank()) {
      return VariableCategory.TERRAFORM;
    }
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "terraform" -> VariableCategory.TERRAFORM;
      case "env" -> VariableCategory.ENV;
      default ->
          throw new VariableRefused(
              Reason.INVALID,
              "Invalid category",
              "A variable's category is \"terraform\" (an input variable, var.NAME) or \"env\" (an"
                  + " environment variable of every local-exec step); got \""
                  + text
                  + "\".");
    };
  }

  /** How a category is written in the API and the database: {@code terraform} or {@code env}. */
  public static String name(VariableCategory category) {
    return category.name().toLowerCase(Locale.ROOT);
  }

  /**
   * A variable set's name: 1-90 letters, digits, '_', '.' or '-', starting with a letter or digit.
   */
  public static void checkSetName(String name) {
    if (name == null || !SET_NAME.matcher(name).matches()) {
      throw new VariableRefused(
          Reason.INVALID,
          "Invalid variable set name",
          "A variable set's name is 1-90 letters, digits, '_', '.' or '-', starting with a letter"
              + " or digit; got "
              + (name == null ? "none" : "\"" + name + "\"")
              + ". Send e.g. {\"name\": \"ssh-keys\"}.");
    }
  }

  /** A key valid for its category (checked before a variable is looked up or removed). */
  public static void checkKey(VariableCategory category, String key) {
    Pattern pattern = category == VariableCategory.ENV ? ENV_KEY : TERRAFORM_KEY;
    if (key == null || key.length() > MAX_KEY_CHARS || !pattern.matcher(key).matches()) {
      throw new VariableRefused(
          Reason.INVALID,
          "Invalid variable key",
          category == VariableCategory.ENV
              ? "An environment variable's name is a letter or '_' followed by letters, digits or"
                  + " '_' (at most 128); got \""
                  + key
                  + "\"."
              : "A Terraform variable's name is a letter or '_' followed by letters, digits, '_'"
                  + " or '-' (at most 128), as in its variable block; got \""
                  + key
                  + "\".");
    }
  }

  /**
   * Whether {@code next} may replace {@code current} (empty: a new variable).
   *
   * @param canSeal a sensitive value can be sealed (the planner has a secrets keyring)
   */
  public static void checkPut(
      StoredVariable next, Optional<StoredVariable> current, boolean canSeal) {
    checkKey(next.category(), next.key());
    if (next.value() == null) {
      throw new VariableRefused(
          Reason.INVALID,
          "No value",
          "Send the variable's value: {\"value\": \"...\"} (an empty string is a value).");
    }
    if (next.value().getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
      throw new VariableRefused(
          Reason.INVALID,
          "Value too large",
          "Variable "
              + next.key()
              + "'s value is over 64 KiB; a larger input belongs in the configuration's files"
              + " (a configuration version), not in a variable.");
    }
    if (next.hcl() && next.category() == VariableCategory.ENV) {
      throw new VariableRefused(
          Reason.INVALID,
          "HCL environment variable",
          "An environment variable's value is a string; send \"hcl\": false (or no \"hcl\") for"
              + " "
              + next.key()
              + ", or make it a Terraform variable (\"category\": \"terraform\").");
    }
    if (next.description().length() > MAX_DESCRIPTION_CHARS) {
      throw new VariableRefused(
          Reason.INVALID,
          "Description too long",
          "A description is at most " + MAX_DESCRIPTION_CHARS + " characters.");
    }
    if (current.isPresent() && current.get().sensitive() && !next.sensitive()) {
      throw new VariableRefused(
          Reason.CONFLICT,
          "Variable is sensitive",
          "Variable "
              + next.key()
              + " is sensitive and stays so: its value cannot be made readable. To store a value"
              + " that is not secret, unset the variable first (DELETE) and set it again.");
    }
    if (next.sensitive() && !canSeal) {
      throw new VariableRefused(
          Reason.CANNOT_SEAL,
          "Cannot seal",
          "This planner has no secrets keyring (STAGECRAFT_SECRETS_KEYS), so it cannot store"
              + " sensitive values: they are kept only sealed. Configure the keyring"
              + " (docs/operations.md), or store the value as not sensitive.");
    }
  }

  /**
   * No two global sets may define the same variable: {@code variables} (of global set {@code
   * setName}, or about to be in it) against the tenant's other global sets.
   */
  public static void checkGlobalDuplicates(
      String setName, List<StoredVariable> variables, List<VariableSetView> otherGlobalSets) {
    for (StoredVariable v : variables) {
      for (VariableSetView other : otherGlobalSets) {
        if (other.name().equals(setName)) {
          continue;
        }
        if (other.variables().stream().anyMatch(o -> o.is(v.category(), v.key()))) {
          throw new VariableRefused(
              Reason.CONFLICT,
              "Defined by another global set",
              "The global variable set \""
                  + other.name()
                  + "\" defines "
                  + name(v.category())
                  + " variable "
                  + v.key()
                  + " already, and two global sets may not define the same variable (which"
                  + " would win is not obvious). Keep it in one of them, or attach \""
                  + setName
                  + "\" to chosen workspaces instead of making it global.");
        }
      }
    }
  }
}
