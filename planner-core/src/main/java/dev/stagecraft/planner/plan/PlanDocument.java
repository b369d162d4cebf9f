package dev.stagecraft.planner.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A plan as Terraform's JSON plan representation holds it ({@code terraform show -json}): what
 * {@link PlanCodec} writes and reads back. Not a {@link Plan}: a plan's sensitive values are left
 * out of its JSON (only their names are written) and its changes' dependencies are not in it, so a
 * plan cannot be rebuilt from its document; the document is everything else, typed. Two documents
 * are compared with {@link PlanComparison}.
 *
 * @param formatVersion {@code format_version} ({@link PlanJson#FORMAT_VERSION} when written here)
 * @param terraformVersion {@code terraform_version}
 * @param resourceChanges {@code resource_changes}, in the plan's order
 * @param outputChanges {@code output_changes}, by name order
 * @param priorState {@code prior_state}: the v4 state document planned against (sensitive values
 *     redacted), or null
 * @param checks {@code checks}, by address order (empty when the plan has none)
 * @param errored {@code errored}
 * @param stagecraft Stagecraft's own fields ({@code stagecraft}); null in a document without them
 */
public record PlanDocument(
    String formatVersion,
    String terraformVersion,
    List<ResourceChange> resourceChanges,
    Map<String, Output> outputChanges,
    Map<String, Object> priorState,
    List<Check> checks,
    boolean errored,
    Stagecraft stagecraft) {

  /** The version written in {@code terraform_version}. */
  public static final String TERRAFORM_VERSION = "stagecraft-0.1.0";

  public PlanDocument {
    resourceChanges = List.copyOf(resourceChanges);
    outputChanges = Collections.unmodifiableMap(new TreeMap<>(outputChanges));
    checks = List.copyOf(checks);
  }

  /** The document of {@code plan}, as {@link PlanCodec#encode(Plan)} writes it. */
  public static PlanDocument of(Plan plan) {
    Map<String, Output> outputs = new TreeMap<>();
    plan.outputChanges().forEach(o -> outputs.put(o.name(), Output.of(o)));
    Map<String, List<String>> waits = new TreeMap<>();
    Map<String, LifecycleFlags> lifecycle = new TreeMap<>();
    for (PlannedAction a : plan.actions()) {
      waits.put(a.address(), a.waitFor());
      if (a.createBeforeDestroy() || a.skipDestroy()) {
        lifecycle.put(a.address(), new LifecycleFlags(a.createBeforeDestroy(), a.skipDestroy()));
      }
    }
    return new PlanDocument(
        PlanJson.FORMAT_VERSION,
        TERRAFORM_VERSION,
        plan.actions().stream().map(ResourceChange::of).toList(),
        outputs,
        plan.priorState(),
        plan.checks().stream()
            .sorted(Comparator.comparing(CheckResult::address))
            .map(Check::of)
            .toList(),
        false,
        new Stagecraft(
            plan.workspace(),
            plan.priorSerial(),
            plan.priorLineage(),
            plan.destroy(),
            waits,
            lifecycle));
  }

  public Optional<ResourceChange> resourceChange(String address) {
    return resourceChanges.stream().filter(r -> r.address().equals(address)).findFirst();
  }

  /**
   * The serial of the state planned against: {@code stagecraft.prior_serial}, else {@code
   * prior_state.serial}, else 0.
   */
  public long priorSerial() {
    if (stagecraft != null) {
      return stagecraft.priorSerial();
    }
    return priorState != null && priorState.get("serial") instanceof Number n ? n.longValue() : 0;
  }

  /**
   * The lineage of the state planned against: {@code stagecraft.prior_lineage}, else {@code
   * prior_state.lineage}; null when there is none.
   */
  public String priorLineage() {
    if (stagecraft != null) {
      return stagecraft.priorLineage();
    }
    return priorState != null && priorState.get("lineage") instanceof String s ? s : null;
  }

  /**
   * One entry of {@code resource_changes}.
   *
   * @param moduleAddress {@code module_address}, null for a root module instance
   * @param mode {@code mode} ({@code managed})
   * @param index {@code index}: null, a {@link Long} ({@code count}) or a {@link String} ({@code
   *     for_each})
   * @param previousAddress {@code previous_address} (moved), or null
   * @param reason {@code action_reason}, or null
   */
  public record ResourceChange(
      String address,
      String moduleAddress,
      String mode,
      String type,
      String name,
      Object index,
      String previousAddress,
      String providerName,
      Change change,
      ActionReason reason) {

    public static final String PROVIDER_NAME = "stagecraft.dev/builtin/stagecraft";

    static ResourceChange of(PlannedAction a) {
      Object key = InstanceKey.parse(a.address()).key();
      Map<String, Object> unknown = new TreeMap<>();
      a.afterUnknown().forEach(k -> unknown.put(k, a.unknownParts().getOrDefault(k, true)));
      Map<String, Object> sensitive = new TreeMap<>();
      a.sensitivePaths().forEach(k -> sensitive.put(k, true));
      return new ResourceChange(
          a.address(),
          ModuleAddresses.moduleOf(a.address()),
          "managed",
          a.type(),
          a.name(),
          key instanceof Integer i ? Long.valueOf(i) : key,
          a.previousAddress(),
          PROVIDER_NAME,
          new Change(
              a.action(),
              redacted(a.before(), a.sensitivePaths()),
              redacted(a.after(), a.sensitivePaths()),
              unknown,
              a.before() == null ? null : sensitive,
              a.after() == null ? null : sensitive,
              a.replacePaths().stream().sorted().map(p -> List.<Object>of(p)).toList()),
          a.reason());
    }

    /** Sensitive attributes are left out; {@code *_sensitive} says which. */
    private static Map<String, Object> redacted(Map<String, Object> values, Set<String> sensitive) {
      if (values == null || sensitive.isEmpty()) {
        return values;
      }
      Map<String, Object> out = new LinkedHashMap<>(values);
      out.keySet().removeAll(sensitive);
      return out;
    }
  }

  /**
   * The {@code change} of a resource change. Sensitive values are never in it: a sensitive
   * attribute is left out of {@code before}/{@code after} and named in the {@code *_sensitive} map.
   *
   * @param before {@code before}, null when the instance is not in state
   * @param after {@code after}, null when the instance is deleted or forgotten
   * @param afterUnknown {@code after_unknown}: attribute → {@code true}, or the shape of a value
   *     partly known
   * @param beforeSensitive {@code before_sensitive}: attribute → {@code true}; null for {@code
   *     false} (no {@code before})
   * @param afterSensitive {@code after_sensitive}, as {@code beforeSensitive}
   * @param replacePaths {@code replace_paths} (empty when not written)
   */
  public record Change(
      ActionType actions,
      Map<String, Object> before,
      Map<String, Object> after,
      Map<String, Object> afterUnknown,
      Map<String, Object> beforeSensitive,
      Map<String, Object> afterSensitive,
      List<List<Object>> replacePaths) {
    public Change {
      before = before == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(before));
      after = after == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(after));
      afterUnknown = Collections.unmodifiableMap(new TreeMap<>(afterUnknown));
      beforeSensitive =
          beforeSensitive == null
              ? null
              : Collections.unmodifiableMap(new TreeMap<>(beforeSensitive));
      afterSensitive =
          afterSensitive == null
              ? null
              : Collections.unmodifiableMap(new TreeMap<>(afterSensitive));
      replacePaths =
          replacePaths.stream().map(p -> Collections.unmodifiableList(new ArrayList<>(p))).toList();
    }

    /** The attributes named sensitive before or after. */
    public Set<String> sensitiveAttributes() {
      Set<String> out = new TreeSet<>();
      if (beforeSensitive != null) {
        out.addAll(beforeSensitive.keySet());
      }
      if (afterSensitive != null) {
        out.addAll(afterSensitive.keySet());
      }
      return out;
    }
  }

  /**
   * One entry of {@code output_changes}. A sensitive output's values are never written (null).
   *
   * @param actions {@link ActionType#CREATE}, {@link ActionType#UPDATE}, {@link ActionType#NO_OP}
   *     or {@link ActionType#DELETE}
   */
  public record Output(
      ActionType actions,
      Object before,
      Object after,
      boolean afterUnknown,
      boolean beforeSensitive,
      boolean afterSensitive) {
    static Output of(OutputChange o) {
      return new Output(
          PlanDecoder.actionType(o.actions()),
          o.before(),
          o.after(),
          o.afterUnknown(),
          o.sensitive(),
          o.sensitive());
    }

    public boolean sensitive() {
      return beforeSensitive || afterSensitive;
    }
  }

  /**
   * One entry of {@code checks}: a {@code check} block's status and the messages of its failed
   * assertions ({@code problems}).
   */
  public record Check(String name, CheckResult.Status status, List<String> problems) {
    public Check {
      problems = List.copyOf(problems);
    }

    static Check of(CheckResult c) {
      return new Check(c.name(), c.status(), c.problems());
    }

    public String address() {
      return "check." + name;
    }
  }

  /**
   * Stagecraft's own fields ({@code stagecraft}).
   *
   * @param priorLineage null for a workspace without state yet
   * @param waitFor {@code wait_for}: what each instance's change waits for (every instance)
   * @param lifecycle {@code lifecycle}: the instances with {@code create_before_destroy} or {@code
   *     skip_destroy} (empty when none, and then not written)
   */
  public record Stagecraft(
      String workspace,
      long priorSerial,
      String priorLineage,
      boolean destroy,
      Map<String, List<String>> waitFor,
      Map<String, LifecycleFlags> lifecycle) {
    public Stagecraft {
      Map<String, List<String>> waits = new TreeMap<>();
      waitFor.forEach((k, v) -> waits.put(k, List.copyOf(v)));
      waitFor = Collections.unmodifiableMap(waits);
      lifecycle = Collections.unmodifiableMap(new TreeMap<>(lifecycle));
    }
  }

  /** The lifecycle flags of an instance that go to state. */
  public record LifecycleFlags(boolean createBeforeDestroy, boolean skipDestroy) {}
}
