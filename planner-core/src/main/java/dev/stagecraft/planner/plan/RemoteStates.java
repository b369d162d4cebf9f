package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.DataDecl;
import dev.stagecraft.language.config.LocalDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code data "terraform_remote_state"} blocks (docs/planning.md "Remote state", ADR 0063): their
 * arguments are evaluated before planning, from variables, local values and literals only, into the
 * {@link RemoteStateSource}s the planner service reads; what it read ({@link RemoteStateRead})
 * becomes the {@code data} root every expression of the plan sees. Planning itself stays pure: it
 * never reads anything.
 */
final class RemoteStates {
  /** Keys of Terraform's http backend that do not matter for reading: accepted with a warning. */
  private static final Set<String> IGNORED_HTTP_SETTINGS =
      Set.of(
          "update_method",
          "lock_address",
          "unlock_address",
          "lock_method",
          "unlock_method",
          "username",
          "password",
          "skip_cert_verification",
          "retry_max",
          "retry_wait_min",
          "retry_wait_max",
          "client_certificate_pem",
          "client_private_key_pem",
          "client_ca_certificate_pem");

  private RemoteStates() {}

  /** A block's evaluated arguments, and what to read for it (null when its arguments failed). */
  record Evaluated(
      DataDecl decl, Value config, Value workspace, Value defaults, RemoteStateSource source) {}

  /**
   * A remote state is read before planning, so its arguments may depend on variables and local
   * values only: a resource or another data source among its (transitive) dependencies is an error
   * naming it, at the block.
   */
  static void checkDependencies(ConfigModel model, Diagnostics diagnostics) {
    for (DataDecl ds : model.dataSources().values()) {
      // what it reaches directly or through local values only: each such resource or data source
      List<String> named = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      ArrayDeque<String> queue = new ArrayDeque<>(model.graph().dependenciesOf(ds.address()));
      while (!queue.isEmpty()) {
        String node = queue.poll();
        if (!seen.add(node)) {
          continue;
        }
        if (ConfigModel.isLocalNode(node)) {
          queue.addAll(model.graph().dependenciesOf(node));
        } else {
          boolean direct = model.graph().dependenciesOf(ds.address()).contains(node);
          named.add(node + (direct ? "" : " (through local values)"));
        }
      }
      if (named.isEmpty()) {
        continue;
      }
      diagnostics.error(
          "Invalid reference in a remote state",
          ds.address()
              + " refers to "
              + String.join(", ", named)
              + ". A remote state is read before planning, so its config, workspace and"
              + " defaults may use only variables, local values and literals; use a variable or"
              + " a literal instead.",
          ds.range());
    }
  }

  /**
   * Evaluates every block's arguments. With {@code validateOnly} (no variable values) unknown
   * values are fine; otherwise {@code config}, {@code workspace} and {@code defaults} must be
   * known.
   */
  static List<Evaluated> evaluate(
      ConfigModel model, Diagnostics diagnostics, boolean validateOnly) {
    WalkScope walk = WalkScope.of(model);
    List<Evaluated> out = new ArrayList<>();
    for (DataDecl ds : model.dataSources().values()) {
      Diagnostics own = new Diagnostics();
      Map<String, Value> locals = neededLocals(walk, ds);
      if (locals == null) {
        // a local value it needs has errors: the walk reports them; nothing to read
        out.add(new Evaluated(ds, Value.unknown(), Value.unknown(), Value.unknown(), null));
        continue;
      }
      EvalContext ctx =
          walk.context(Map.of(), locals, PriorState.empty(), null, null, ds.address());
      Value config = argument(model, ds, "config", ctx, own, validateOnly);
      Value workspace = argument(model, ds, "workspace", ctx, own, validateOnly);
      Value defaults = argument(model, ds, "defaults", ctx, own, validateOnly);
      RemoteStateSource source = null;
      if (!own.hasErrors()) {
        source = source(ds, config, workspace, defaults, own, validateOnly);
      }
      diagnostics.addAll(own);
      out.add(new Evaluated(ds, config, workspace, defaults, own.hasErrors() ? null : source));
    }
    return out;
  }

  /** The local values the block depends on, evaluated in order; null when one has errors. */
  private static Map<String, Value> neededLocals(WalkScope walk, DataDecl ds) {
    ConfigModel model = walk.model();
    Set<String> needed = model.graph().transitiveDependenciesOf(ds.address());
    Map<String, Value> values = new LinkedHashMap<>();
    for (String node : model.order()) {
      if (!needed.contains(node) || !ConfigModel.isLocalNode(node)) {
        continue;
      }
      LocalDecl l = model.local(node);
      Diagnostics problems = new Diagnostics();
      Value value =
          walk.evaluateLocal(
              l, walk.context(Map.of(), values, PriorState.empty(), null, null, node), problems);
      if (problems.hasErrors()) {
        return null;
      }
      values.put(l.name(), value);
    }
    return values;
  }

  private static Value argument(
      ConfigModel model,
      DataDecl ds,
      String name,
      EvalContext ctx,
      Diagnostics diagnostics,
      boolean validateOnly) {
    AttributeDecl a = ds.attributes().get(name);
    if (a == null) {
      return Value.NULL;
    }
    EvalResult result = model.evaluateExpression(a.expr(), ctx);
    diagnostics.addAll(result.diagnostics());
    if (result.hasErrors()) {
      return Value.unknown();
    }
    Value v = result.value();
    if (!validateOnly && !v.isWhollyKnown()) {
      diagnostics.error(
          "Remote state argument not known before planning",
          "The "
              + name
              + " of "
              + ds.address()
              + " depends on a value that is not known before planning. A remote state is read"
              + " before planning: use variables, local values and literals only.",
          a.expr().range());
      return Value.unknown();
    }
    if (!v.isNull()
        && v.isWhollyKnown()
        && !(v instanceof Value.ObjectValue)
        && !name.equals("workspace")) {
      diagnostics.error(
          "Invalid remote state argument",
          "The "
              + name
              + " of "
              + ds.address()
              + " must be an object, like "
              + (name.equals("config") ? "{ workspace = \"network\" }" : "{ port = 5432 }")
              + "; it is a "
              + v.typeName()
              + ".",
          a.expr().range());
      return Value.unknown();
    }
    return v;
  }

  /** What to read for the block; null in validate when a value is unknown (errors added). */
  private static RemoteStateSource source(
      DataDecl ds,
      Value config,
      Value workspace,
      Value defaults,
      Diagnostics diagnostics,
      boolean validateOnly) {
    if (!config.isWhollyKnown() || !workspace.isWhollyKnown() || !defaults.isWhollyKnown()) {
      return null; // validate: checked once the values are known
    }
    SourceRange configAt = ds.attribute("config").map(a -> a.expr().range()).orElse(ds.range());
    SourceRange workspaceAt =
        ds.attribute("workspace").map(a -> a.expr().range()).orElse(ds.range());
    Map<String, Value> settings = config instanceof Value.ObjectValue o ? o.attributes() : Map.of();
    String workspaceArgument = plainString(ds, "workspace", workspace, workspaceAt, diagnostics);
    if (ds.backend().equals("http")) {
      return httpSource(ds, settings, workspaceArgument, configAt, workspaceAt, diagnostics);
    }
    for (String key : settings.keySet()) {
      if (!key.equals("workspace")) {
        unsupportedSetting(ds, key, "workspace", configAt, diagnostics);
      }
    }
    Value named = settings.get("workspace");
    String fromConfig =
        named == null || named.isNull()
            ? null
            : plainString(ds, "config.workspace", named, configAt, diagnostics);
    if (diagnostics.hasErrors()) {
      return null;
    }
    String target = fromConfig != null ? fromConfig : workspaceArgument;
    if (fromConfig != null
        && workspaceArgument != null
        && !workspaceArgument.equals("default")
        && !workspaceArgument.equals(fromConfig)) {
      diagnostics.error(
          "Conflicting remote state workspace",
          ds.address()
              + " names workspace \""
              + fromConfig
              + "\" in config and \""
              + workspaceArgument
              + "\" in its workspace argument; name it once, in config = { workspace = ... }.",
          workspaceAt);
      return null;
    }
    if (target == null || target.isEmpty()) {
      diagnostics.error(
          "Missing remote state workspace",
          ds.address()
              + " names no workspace to read: add config = { workspace = \"NAME\" } (a workspace"
              + " of this tenant).",
          configAt);
      return null;
    }
    return new RemoteStateSource(ds.address(), "stagecraft", target, null, ds.range());
  }

  /** The http backend: the state address in config, workspace "default" only. */
  private static RemoteStateSource httpSource(
      DataDecl ds,
      Map<String, Value> settings,
      String workspaceArgument,
      SourceRange configAt,
      SourceRange workspaceAt,
      Diagnostics diagnostics) {
    for (String key : settings.keySet()) {
      if (IGNORED_HTTP_SETTINGS.contains(key)) {
        diagnostics.warning(
            "Ignored remote state setting",
            "The http backend setting \""
                + key
                + "\" of "
                + ds.address()
                + " is not used: Stagecraft reads the workspace's outputs itself, with the run's"
                + " own credential"
                + (key.equals("password") ? "; remove the token from the configuration." : "."),
            configAt);
      } else if (!key.equals("address")) {
        unsupportedSetting(ds, key, "address", configAt, diagnostics);
      }
    }
    if (workspaceArgument != null && !workspaceArgument.equals("default")) {
      diagnostics.error(
          "Workspaces not supported",
          "The http backend does not support workspaces (as in Terraform): "
              + ds.address()
              + " may only read workspace \"default\" of the address given. Name the"
              + " Stagecraft workspace in the address, or use backend = \"stagecraft\".",
          workspaceAt);
    }
    Value address = settings.get("address");
    if (address == null || address.isNull()) {
      diagnostics.error(
          "Missing remote state address",
          ds.address()
              + " uses the http backend, whose config needs the workspace's state address:"
              + " config = { address = \"<this Stagecraft's state URL>/tf/v1/workspaces/NAME/state\""
              + " }.",
          configAt);
      return null;
    }
    String text = plainString(ds, "config.address", address, configAt, diagnostics);
    return diagnostics.hasErrors() || text == null
        ? null
        : new RemoteStateSource(ds.address(), "http", null, text, ds.range());
  }

  private static void unsupportedSetting(
      DataDecl ds, String key, String allowed, SourceRange at, Diagnostics diagnostics) {
    diagnostics.error(
        "Unsupported remote state setting",
        "The "
            + ds.backend()
            + " backend of "
            + ds.address()
            + " takes config = { "
            + allowed
            + " = ... }; \""
            + key
            + "\" is not a setting of it."
            + (ds.backend().equals("stagecraft")
                ? " A run reads the workspaces of its own tenant only."
                : ""),
        at);
  }

  /** A known, non-sensitive string, else null (an error added unless null). */
  private static String plainString(
      DataDecl ds, String what, Value v, SourceRange at, Diagnostics diagnostics) {
    if (v.isNull()) {
      return null;
    }
    if (v.containsSensitive()) {
      diagnostics.error(
          "Sensitive remote state setting",
          "The " + what + " of " + ds.address() + " may not be sensitive: it names what is read.",
          at);
      return null;
    }
    if (!(v instanceof Value.StringValue s)) {
      diagnostics.error(
          "Invalid remote state setting",
          "The "
              + what
              + " of "
              + ds.address()
              + " must be a string; it is a "
              + v.typeName()
              + ".",
          at);
      return null;
    }
    return s.value();
  }

  /**
   * Evaluates the blocks; the walk of {@code model} with its {@code data} root from {@code reads}
   * (null: nothing read, outputs unknown), or with none when there are no blocks. Errors are added
   * to {@code diagnostics}.
   */
  static WalkScope prepare(
      ConfigModel model,
      Map<String, RemoteStateRead> reads,
      Diagnostics diagnostics,
      boolean validateOnly) {
    WalkScope walk = WalkScope.of(model);
    if (model.dataSources().isEmpty()) {
      return walk;
    }
    List<Evaluated> evaluated = evaluate(model, diagnostics, validateOnly);
    return walk.withDataRoot(
        dataRoot(evaluated, validateOnly ? null : reads, model.sensitiveValues(), diagnostics));
  }

  /**
   * The {@code data} root: {@code terraform_remote_state.NAME} is {@code {backend, config,
   * workspace, defaults, outputs}} as in Terraform. {@code outputs} are the remote outputs over the
   * defaults — each with its value's type, sensitive ones marked as state marks them (ADR 0062) —
   * or unknown when nothing was read ({@code reads} null). A refused read, or a workspace without
   * state and no defaults, is an error at the block.
   */
  static Value dataRoot(
      List<Evaluated> evaluated,
      Map<String, RemoteStateRead> reads,
      Set<String> sensitiveValues,
      Diagnostics diagnostics) {
    Map<String, Value> byName = new LinkedHashMap<>();
    for (Evaluated e : evaluated) {
      Value outputs = outputs(e, reads, sensitiveValues, diagnostics);
      Map<String, Value> object = new LinkedHashMap<>();
      object.put("backend", Value.string(e.decl().backend()));
      object.put("config", e.config());
      object.put("workspace", e.workspace().isNull() ? Value.string("default") : e.workspace());
      object.put("defaults", e.defaults());
      object.put("outputs", outputs);
      byName.put(e.decl().name(), Value.object(object));
    }
    return Value.object(Map.of("terraform_remote_state", Value.object(byName)));
  }

  private static Value outputs(
      Evaluated e,
      Map<String, RemoteStateRead> reads,
      Set<String> sensitiveValues,
      Diagnostics diagnostics) {
    if (reads == null || e.source() == null) {
      return Value.unknown();
    }
    RemoteStateRead read = reads.get(e.decl().address());
    Map<String, Value> merged = new LinkedHashMap<>();
    if (e.defaults() instanceof Value.ObjectValue d) {
      merged.putAll(d.attributes());
    }
    switch (read) {
      case null -> {
        diagnostics.error(
            "Remote state not read",
            "The planner read nothing for " + e.decl().address() + "; plan again.",
            e.decl().range());
        return Value.unknown();
      }
      case RemoteStateRead.Refused r -> {
        diagnostics.error(
            "Remote state cannot be read",
            e.decl().address() + " cannot be read: " + r.detail(),
            e.decl().range());
        return Value.unknown();
      }
      case RemoteStateRead.NotFound n -> {
        if (e.defaults().isNull()) {
          diagnostics.error(
              "Unable to find remote state",
              "No state is stored for "
                  + describe(e.source())
                  + ", so "
                  + e.decl().address()
                  + " has no outputs. Apply that workspace first, or give defaults = { NAME ="
                  + " value } for the outputs this configuration reads.",
              e.decl().range());
          return Value.unknown();
        }
      }
      case RemoteStateRead.Found f -> {
        for (var output : new TreeMap<>(f.outputs()).entrySet()) {
          Value value = Value.of(output.getValue().get("value"));
          if (Boolean.TRUE.equals(output.getValue().get("sensitive"))) {
            value = value.markFromState();
            ConfigModel.collectSensitive(value, sensitiveValues);
          }
          merged.put(output.getKey(), value);
        }
      }
    }
    return Value.object(merged);
  }

  private static String describe(RemoteStateSource source) {
    return source.workspace() != null
        ? "workspace \"" + source.workspace() + "\" of this tenant"
        : "the workspace at " + source.httpAddress();
  }
}
