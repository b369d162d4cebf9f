package dev.stagecraft.state.history;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks that a parsed JSON value is a Terraform state v4 document Stagecraft can store: {@code
 * version} 4, a {@code terraform_version}, a non-negative integer {@code serial}, a {@code
 * lineage}, {@code outputs} (each with {@code value} and {@code type}), and {@code resources} whose
 * {@code mode}, {@code type}, {@code name}, {@code provider} and {@code instances} have Terraform's
 * shapes ({@code index_key} a whole number or a string, {@code status} only {@code "tainted"}, an
 * {@code attributes} object, {@code dependencies} a list of strings, boolean lifecycle flags, at
 * most one current object per instance address). Fields it does not know are allowed: they are kept
 * and given back on pull.
 *
 * <p>Returns every problem found (not only the first), each as {@code "<JSON path>: <what is wrong
 * and what is expected>"}; an empty list means valid. Pure function; thread-safe.
 */
public final class TerraformStateValidator {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
  private static final Pattern MODULE =
      Pattern.compile("module\\.[A-Za-z_][A-Za-z0-9_-]*(\\[[^\\]]+\\])?(\\.module\\..+)?");

  private TerraformStateValidator() {}

  public static List<String> validate(Object document) {
    List<String> problems = new ArrayList<>();
    if (!(document instanceof Map<?, ?> doc)) {
      problems.add("$: a Terraform state must be a JSON object");
      return problems;
    }
    problems.addAll(validateHeader(doc));
    Object resources = doc.get("resources");
    if (!(resources instanceof List<?> list)) {
      problems.add(resourcesNotAList(resources));
      return problems;
    }
    Set<String> addresses = new HashSet<>();
    for (int r = 0; r < list.size(); r++) {
      String path = "$.resources[" + r + "]";
      if (!(list.get(r) instanceof Map<?, ?> resource)) {
        problems.add(path + ": must be an object");
        continue;
      }
      ResourceCheck check = resource(resource, path, problems);
      if (!(resource.get("instances") instanceof List<?> instances)) {
        problems.add(instancesNotAList(path, resource.get("instances")));
        continue;
      }
      for (int i = 0; i < instances.size(); i++) {
        instance(check, instances.get(i), i, addresses, problems);
      }
    }
    return problems;
  }

  /**
   * The checks of everything but {@code resources}: {@code version}, {@code terraform_version},
   * {@code serial}, {@code lineage} and {@code outputs}, for a reader that sees the document's
   * top-level fields apart from its resources (a streaming parser). {@code top} holds those fields
   * (missing ones are absent); the problems come in the order {@link #validate} reports them.
   */
  public static List<String> validateHeader(Map<?, ?> top) {
    List<String> problems = new ArrayList<>();
    Map<?, ?> doc = top;
    Object version = doc.get("version");
    if (!(version instanceof Number n) || !isWhole(n) || n.longValue() != 4) {
      problems.add(
          "$.version: must be 4 (Terraform state format v4, written by Terraform 0.12 and later);"
              + " got "
              + describe(version));
    }
    if (!(doc.get("terraform_version") instanceof String tv) || tv.isBlank()) {
      problems.add(
          "$.terraform_version: must be a non-empty string (the Terraform version that wrote the"
              + " state); got "
              + describe(doc.get("terraform_version")));
    }
    Object serial = doc.get("serial");
    if (!(serial instanceof Number s) || !isWhole(s) || s.longValue() < 0) {
      problems.add("$.serial: must be a non-negative whole number; got " + describe(serial));
    }
    if (!(doc.get("lineage") instanceof String lineage) || lineage.isBlank()) {
      problems.add(
          "$.lineage: must be a non-empty string (the state's unique id, a UUID in Terraform);"
              + " got "
              + describe(doc.get("lineage")));
    }
    Object outputs = doc.get("outputs");
    if (outputs != null) {
      if (!(outputs instanceof Map<?, ?> out)) {
        problems.add("$.outputs: must be an object of outputs by name; got " + describe(outputs));
      } else {
        out.forEach(
            (name, value) -> {
              String path = "$.outputs." + name;
              if (!(value instanceof Map<?, ?> o)) {
                problems.add(path + ": must be an object with 'value' and 'type'");
              } else {
                if (!o.containsKey("value")) {
                  problems.add(path + ".value: is required");
                }
                if (!o.containsKey("type")) {
                  problems.add(path + ".type: is required (the output's type constraint)");
                }
                if (o.containsKey("sensitive") && !(o.get("sensitive") instanceof Boolean)) {
                  problems.add(path + ".sensitive: must be true or false");
                }
              }
            });
      }
    }
    return problems;
  }

  /** The problem reported when {@code resources} is missing or not a list. */
  public static String resourcesNotAList(Object resources) {
    return "$.resources: must be a list (use [] for none); got " + describe(resources);
  }

  /** The problem reported when a resource's {@code instances} is missing or not a list. */
  public static String instancesNotAList(String resourcePath, Object instances) {
    return resourcePath + ".instances: must be a list; got " + describe(instances);
  }

  /**
   * What the instance checks need to know of their resource, from {@link #resource}: its path, and
   * when its naming fields were valid ({@code named}) its module, mode, type and name.
   */
  public record ResourceCheck(
      String path, boolean named, String module, String mode, String type, String name) {}

  /**
   * Checks one resource's own fields ({@code mode}, {@code type}, {@code name}, {@code provider},
   * {@code module}, {@code each}; not {@code instances}), adding problems to {@code problems}.
   *
   * @param path the resource's JSON path, {@code $.resources[N]}
   */
  public static ResourceCheck resource(Map<?, ?> resource, String path, List<String> problems) {
    Object mode = resource.get("mode");
    if (!"managed".equals(mode) && !"data".equals(mode)) {
      problems.add(path + ".mode: must be \"managed\" or \"data\"; got " + describe(mode));
    }
    boolean named = true;
    for (String field : List.of("type", "name")) {
      if (!(resource.get(field) instanceof String s) || !NAME.matcher(s).matches()) {
        problems.add(
            path
                + "."
                + field
                + ": must be a name (letters, digits, '_' and '-', not starting with a digit); got "
                + describe(resource.get(field)));
        named = false;
      }
    }
    if (!(resource.get("provider") instanceof String p) || p.isBlank()) {
      problems.add(
          path
              + ".provider: must be a provider address such as"
              + " provider[\\\"registry.terraform.io/hashicorp/null\\\"]; got "
              + describe(resource.get("provider")));
    }
    Object module = resource.get("module");
    if (module != null && (!(module instanceof String m) || !MODULE.matcher(m).matches())) {
      problems.add(
          path + ".module: must be a module path like module.net; got " + describe(module));
      named = false;
    }
    Object each = resource.get("each");
    if (each != null && !"list".equals(each) && !"map".equals(each)) {
      problems.add(path + ".each: must be \"list\" or \"map\" when present; got " + describe(each));
    }
    return new ResourceCheck(
        path,
        named,
        module instanceof String m ? m : null,
        "data".equals(mode) ? "data" : "managed",
        resource.get("type") instanceof String t ? t : null,
        resource.get("name") instanceof String n ? n : null);
  }

  /**
   * Checks the {@code i}-th instance of the resource {@code check} describes, adding problems to
   * {@code problems}; {@code addresses} collects the current objects' addresses across the whole
   * document (a second current object for one address is a problem).
   */
  public static void instance(
      ResourceCheck check, Object value, int i, Set<String> addresses, List<String> problems) {
    String at = check.path() + ".instances[" + i + "]";
    int before = problems.size();
    if (!(value instanceof Map<?, ?> instance)) {
      problems.add(at + ": must be an object");
      return;
    }
    Object key = instance.get("index_key");
    if (key != null && !(key instanceof String) && !(key instanceof Number n && isWhole(n))) {
      problems.add(
          at
              + ".index_key: must be a whole number (count) or a string (for_each); got "
              + describe(key));
      key = null;
    }
    Object status = instance.get("status");
    if (status != null && !"tainted".equals(status) && !"".equals(status)) {
      problems.add(at + ".status: must be \"tainted\" when present; got " + describe(status));
    }
    if (instance.containsKey("attributes_flat") && !instance.containsKey("attributes")) {
      problems.add(
          at
              + ".attributes_flat: flat attributes (Terraform 0.11 and older) are not supported;"
              + " let Terraform 0.12 or later rewrite the state first");
    } else if (!(instance.get("attributes") instanceof Map<?, ?>)) {
      problems.add(
          at + ".attributes: must be an object; got " + describe(instance.get("attributes")));
    }
    Object schemaVersion = instance.get("schema_version");
    if (schemaVersion != null
        && !(schemaVersion instanceof Number n && isWhole(n) && n.longValue() >= 0)) {
      problems.add(
          at
              + ".schema_version: must be a non-negative whole number; got "
              + describe(schemaVersion));
    }
    Object deps = instance.get("dependencies");
    if (deps != null
        && !(deps instanceof List<?> l && l.stream().allMatch(d -> d instanceof String))) {
      problems.add(at + ".dependencies: must be a list of resource addresses (strings)");
    }
    for (String flag : List.of("create_before_destroy", "skip_destroy")) {
      if (instance.get(flag) != null && !(instance.get(flag) instanceof Boolean)) {
        problems.add(at + "." + flag + ": must be true or false");
      }
    }
    Object sensitive = instance.get("sensitive_attributes");
    if (sensitive != null && !(sensitive instanceof List<?>)) {
      problems.add(at + ".sensitive_attributes: must be a list of attribute paths");
    }
    Object deposed = instance.get("deposed");
    if (deposed != null && !(deposed instanceof String)) {
      problems.add(at + ".deposed: must be a string (the deposed object's key)");
    }
    if (check.named() && deposed == null && problems.size() == before) {
      String address =
          new InstanceAddress(
                  check.module(),
                  check.mode(),
                  check.type(),
                  check.name(),
                  key instanceof Number n ? (Object) n.longValue() : key)
              .toString();
      if (!addresses.add(address)) {
        problems.add(
            at
                + ": a second current object for "
                + address
                + " (each instance has at most one; older objects carry 'deposed')");
      }
    }
  }

  private static boolean isWhole(Number n) {
    return n instanceof Integer
        || n instanceof Long
        || n instanceof Short
        || n instanceof BigInteger
        || (n.doubleValue() == Math.rint(n.doubleValue()) && !Double.isInfinite(n.doubleValue()));
  }

  private static String describe(Object value) {
    return switch (value) {
      case null -> "nothing";
      case String s -> "\"" + (s.length() > 60 ? s.substring(0, 60) + "…" : s) + "\"";
      case Map<?, ?> m -> "an object";
      case List<?> l -> "a list";
      default -> value.toString();
    };
  }
}
