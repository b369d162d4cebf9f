package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.language.config.ModuleTree;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.apply.ApplyContext;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares a configuration with the workspace's prior state and gives every resource instance
 * exactly one action with a reason (design §4, seeds 000–002). Pure: the same request and state
 * give the same plan. Every problem is returned as a diagnostic with its source position; nothing
 * is thrown for user input. A plan stays within its {@link PlanLimits}: a limit exceeded stops it
 * with an error naming the limit.
 */
public final class Planner {
  private Planner() {}

  /**
   * Checks a configuration without state or variable values (like {@code terraform validate}):
   * syntax, references, cycles, lifecycle and removed blocks, and every argument that can be
   * evaluated.
   */
  public static Diagnostics validate(Map<String, String> files, Path baseDir) {
    Diagnostics diagnostics = new Diagnostics();
    LoadResult loaded = ConfigLoader.load(files);
    diagnostics.addAll(loaded.diagnostics());
    if (diagnostics.hasErrors()) {
      return diagnostics;
    }
    PlanRequest request = new PlanRequest("default", files, Map.of(), List.of(), false, baseDir);
    Configuration config =
        withModules(
            loaded.config(), request, PlanLimits.DEFAULT, diagnostics, true, Clock.systemUTC());
    if (diagnostics.hasErrors()) {
      return diagnostics;
    }
    ConfigModel model = ConfigModel.analyze(config, request, diagnostics, true);
    Moves.of(config, diagnostics);
    WalkScope walk =
        diagnostics.hasErrors() ? null : RemoteStates.prepare(model, null, diagnostics, true);
    if (!diagnostics.hasErrors()) {
      new Planning(walk, PriorState.empty(), request, diagnostics, true, PlanLimits.DEFAULT)
          .validate();
    }
    return diagnostics;
  }

  public static PlanResult plan(PlanRequest request, PriorState prior) {
    return plan(request, prior, ConfigLoader.load(request.files()));
  }

  /**
   * Parses configuration files once, for a caller that plans them more than once ({@link
   * #plan(PlanRequest, PriorState, LoadResult)}).
   */
  public static LoadResult parse(Map<String, String> files) {
    return ConfigLoader.load(files);
  }

  /**
   * Like {@link #plan(PlanRequest, PriorState)}, with the request's files already parsed: {@code
   * loaded} must be {@link #parse} of exactly {@code request.files()} (a parsed configuration is
   * immutable and may be planned any number of times, from any thread).
   */
  public static PlanResult plan(PlanRequest request, PriorState prior, LoadResult loaded) {
    return plan(request, prior, loaded, PlanLimits.DEFAULT);
  }

  /** Like {@link #plan(PlanRequest, PriorState, LoadResult)}, within {@code limits}. */
  public static PlanResult plan(
      PlanRequest request, PriorState prior, LoadResult loaded, PlanLimits limits) {
    return plan(request, prior, loaded, limits, Clock.systemUTC());
  }

  /**
   * Like {@link #plan(PlanRequest, PriorState, LoadResult, PlanLimits)}, with {@code clock} for the
   * plan's timestamp ({@code plantimestamp()}) and for {@code timestamp()} when the plan is
   * applied.
   */
  public static PlanResult plan(
      PlanRequest request, PriorState prior, LoadResult loaded, PlanLimits limits, Clock clock) {
    Diagnostics diagnostics = new Diagnostics();
    diagnostics.addAll(loaded.diagnostics());
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    Configuration config = withModules(loaded.config(), request, limits, diagnostics, false, clock);
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    prior = NullResourceTriggers.asStrings(ModuleAddresses.internal(prior));
    request = request.withReplace(request.replace().stream().map(Planner::flattened).toList());
    ConfigModel model = ConfigModel.analyze(config, request, diagnostics, false, clock);
    Moves moves = Moves.of(config, diagnostics);
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    WalkScope walk = RemoteStates.prepare(model, request.remoteStates(), diagnostics, false);
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    Moves.Result moved = moves.apply(prior, config, diagnostics);
    Planning planning = new Planning(walk, moved.state(), request, diagnostics, false, limits);
    Plan plan = withPreviousAddresses(planning.plan(), moved.previousAddresses());
    if (!diagnostics.hasErrors()) {
      moves.checkNotDeclared(model, plan, diagnostics);
    }
    if (diagnostics.hasErrors()) {
      return new PlanResult(null, diagnostics, request.files(), null);
    }
    return new PlanResult(
        withModuleAddresses(plan),
        diagnostics,
        request.files(),
        new ApplyContext(
            planning.walk(),
            moved.state(),
            request.files(),
            planning.plannedValues(),
            request.environment(),
            request.sensitiveEnvironment()));
  }

  /**
   * The configuration with the modules it calls loaded, checked and flattened into it
   * (docs/adr/0065); problems are added to {@code diagnostics}.
   */
  private static Configuration withModules(
      Configuration config,
      PlanRequest request,
      PlanLimits limits,
      Diagnostics diagnostics,
      boolean validateOnly,
      Clock clock) {
    if (config.modules().isEmpty()) {
      return config;
    }
    var modules =
        ModuleTree.load(config, ModuleTree.ModuleFiles.under(request.baseDir()), diagnostics);
    if (diagnostics.hasErrors()) {
      return config;
    }
    return ModuleExpansion.flatten(
        config, modules, request, limits, diagnostics, validateOnly, clock);
  }

  /** A {@code -replace} address as the flattened configuration names it. */
  private static String flattened(String address) {
    String internal = ModuleAddresses.internal(address);
    return internal == null ? address : internal;
  }

  /** The plan with Terraform's addresses for instances in modules. */
  private static Plan withModuleAddresses(Plan plan) {
    if (plan.actions().stream()
        .noneMatch(
            a ->
                a.address().contains(".module.")
                    || a.previousAddress() != null && a.previousAddress().contains(".module."))) {
      return plan;
    }
    return new Plan(
        plan.workspace(),
        plan.priorSerial(),
        plan.priorLineage(),
        plan.destroy(),
        plan.actions().stream().map(ModuleAddresses::external).toList(),
        plan.priorState(),
        plan.outputChanges(),
        plan.checks());
  }

  /** The plan with every moved instance's action naming where the state holds it. */
  private static Plan withPreviousAddresses(Plan plan, Map<String, String> previous) {
    if (plan == null || previous.isEmpty()) {
      return plan;
    }
    return new Plan(
        plan.workspace(),
        plan.priorSerial(),
        plan.priorLineage(),
        plan.destroy(),
        plan.actions().stream()
            .map(
                a ->
                    previous.containsKey(a.address())
                        ? a.withPreviousAddress(previous.get(a.address()))
                        : a)
            .toList(),
        plan.priorState(),
        plan.outputChanges(),
        plan.checks());
  }

  /**
   * What must be read before planning {@code request}: one {@link RemoteStateSource} per {@code
   * data "terraform_remote_state"} block whose arguments evaluate without errors (a block with
   * errors is reported by {@link #plan}). Pure: reads nothing. The caller reads each and plans
   * {@link PlanRequest#withRemoteStates} of what it read (docs/planning.md "Remote state").
   *
   * @param loaded {@link #parse} of exactly {@code request.files()}
   */
  public static List<RemoteStateSource> remoteStateSources(PlanRequest request, LoadResult loaded) {
    if (loaded.config().dataSources().isEmpty() || loaded.diagnostics().hasErrors()) {
      return List.of();
    }
    Diagnostics diagnostics = new Diagnostics();
    ConfigModel model = ConfigModel.analyze(loaded.config(), request, diagnostics, false);
    if (diagnostics.hasErrors()) {
      return List.of();
    }
    return RemoteStates.evaluate(model, diagnostics, false).stream()
        .map(RemoteStates.Evaluated::source)
        .filter(Objects::nonNull)
        .toList();
  }

  /** State stores absent maps as null and numbers as JSON numbers; compare by meaning. */
  static Object normalize(Object value) {
    if (value instanceof Map<?, ?> map && map.isEmpty()) {
      return null;
    }
    if (value instanceof Number n) {
      return new BigDecimal(n.toString()).stripTrailingZeros();
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(k, normalize(v)));
      return out;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(Planner::normalize).toList();
    }
    return value;
  }
}
