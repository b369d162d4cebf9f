package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A configuration and the modules it calls as one configuration (docs/adr/0065): every module's
 * resources, local values, input variables and outputs get names that carry their module instance
 * path ({@link ScopeRewriter}), so the planner plans them as it plans a root module, with one graph
 * and one evaluation scope, and no declaration of one module can be read by another.
 *
 * <ul>
 *   <li>a resource {@code null_resource.deploy} of {@code module.app} is the resource {@code
 *       null_resource} named {@code module.app.deploy}; its instance addresses are mapped to and
 *       from Terraform's ({@code module.app.null_resource.deploy[0]}) by the planner;
 *   <li>an input variable is a local value {@code module.app.var.NAME} whose expression is the
 *       call's argument, evaluated in the caller, then converted and checked by the variable's
 *       declaration ({@link LocalDecl#moduleVariable()});
 *   <li>a local value is {@code module.app.local.NAME};
 *   <li>the outputs are one local value {@code module.app.outputs}, an object of every output
 *       (sensitive ones marked), which the caller's {@code module.app.NAME} reads;
 *   <li>{@code depends_on} of a module call is added to every resource of the module.
 * </ul>
 *
 * <p>A call with {@code count} or {@code for_each} is flattened once per instance, with the
 * instance key in the path ({@code module.app{"eu"}}, see {@link ModulePaths}), once its keys are
 * known ({@link Expansion}); the call's {@code count.index}, {@code each.key} and {@code
 * each.value} in its arguments are the instance's. Its {@code count} or {@code for_each} is the
 * local value {@code module.app.count} or {@code module.app.for_each} (in the caller's scope),
 * which the planner evaluates before planning; the caller's {@code module.app} is the local value
 * {@code module.app.outputs}, a tuple or object of the instances' outputs. A call whose keys are
 * not known yet is {@linkplain Result#pending() pending}: none of its instances is flattened, and
 * its outputs are unknown.
 *
 * <p>{@code removed}, {@code moved}, {@code check} and {@code data} blocks inside modules are
 * refused for now.
 */
public final class ModuleFlattener {
  /** The most module instances one configuration may make. */
  public static final int MAX_MODULE_INSTANCES = 1000;

  /**
   * The instance keys of a repeated module call, known before planning.
   *
   * @param keys {@link Integer} count indexes or {@link String} for_each keys, in order
   * @param set whether {@code for_each} is a set (so {@code each.value} is the key)
   */
  public record Expansion(List<Object> keys, boolean set) {
    public Expansion {
      keys = List.copyOf(keys);
    }
  }

  /**
   * A repeated call whose keys are not known yet.
   *
   * @param path the call's flattened path ({@code module.app}, {@code module.a{"x"}.module.b})
   * @param local the local value of its {@code count} or {@code for_each}
   * @param count whether it is {@code count} (else {@code for_each})
   * @param expression that argument as written
   */
  public record PendingCall(String path, String local, boolean count, Expression expression) {}

  /** The flattened configuration, and the repeated calls not flattened for want of keys. */
  public record Result(Configuration config, List<PendingCall> pending) {
    public Result {
      pending = List.copyOf(pending);
    }
  }

  private record Instance(String path, Object key) {}

  private final Diagnostics d;
  private final Map<String, Expansion> expansions;
  private final List<ResourceDecl> resources = new ArrayList<>();
  private final List<LocalDecl> locals = new ArrayList<>();
  private final List<PendingCall> pending = new ArrayList<>();
  private int instanceCount;

  private ModuleFlattener(Map<String, Expansion> expansions, Diagnostics d) {
    this.expansions = expansions;
    this.d = d;
  }

  /** {@code root} with {@code modules} (its calls, loaded) flattened into it; no call repeated. */
  public static Configuration flatten(
      Configuration root, List<ModuleTree.Module> modules, Diagnostics d) {
    return flatten(root, modules, Map.of(), d).config();
  }

  /**
   * {@code root} with {@code modules} flattened into it, each repeated call with the keys {@code
   * expansions} has for it (by {@link PendingCall#path()}).
   */
  public static Result flatten(
      Configuration root,
      List<ModuleTree.Module> modules,
      Map<String, Expansion> expansions,
      Diagnostics d) {
    if (root.modules().isEmpty()) {
      return new Result(root, List.of());
    }
    ModuleFlattener f = new ModuleFlattener(expansions, d);
    ScopeRewriter rootScope = new ScopeRewriter("", ".", root, f.resourcesOf(modules, ""), d);
    for (ResourceDecl r : root.resources()) {
      f.resources.add(f.resource(r, rootScope, List.of(), ""));
    }
    for (LocalDecl l : root.locals()) {
      f.locals.add(new LocalDecl(l.name(), rootScope.rewrite(l.expr()), l.range()));
    }
    f.calls(modules, rootScope, "", List.of());
    List<OutputDecl> outputs =
        root.outputs().stream()
            .map(
                o ->
                    new OutputDecl(
                        o.name(),
                        rootScope.rewrite(o.value()),
                        o.description(),
                        o.sensitive(),
                        rootScope.traversals(o.dependsOn()),
                        o.preconditions().stream().map(rootScope::block).toList(),
                        o.range()))
            .toList();
    List<CheckDecl> checks =
        root.checks().stream()
            .map(
                c ->
                    new CheckDecl(
                        c.name(),
                        c.asserts().stream()
                            .map(
                                a ->
                                    new CheckDecl.Assertion(
                                        rootScope.rewrite(a.condition()),
                                        rootScope.rewrite(a.errorMessage()),
                                        a.range()))
                            .toList(),
                        c.range()))
            .toList();
    return new Result(
        new Configuration(
            root.variables(),
            f.resources,
            f.locals,
            outputs,
            root.removed(),
            root.moved(),
            root.requiredVersion(),
            checks,
            root.dataSources(),
            List.of()),
        f.pending);
  }

  /**
   * The calls {@code calls} of the module instance {@code prefix} ({@code ""}: the root), each
   * flattened once per instance; a repeated call's count or for_each and its outputs become local
   * values of the caller.
   */
  private void calls(
      List<ModuleTree.Module> calls,
      ScopeRewriter caller,
      String prefix,
      List<Traversal> inherited) {
    for (ModuleTree.Module m : calls) {
      ModuleCallDecl call = m.call();
      String path = callPath(prefix, call);
      Optional<Expression> repeat = call.count().or(call::forEach);
      if (repeat.isEmpty()) {
        module(m, new Instance(path, null), caller, inherited);
        continue;
      }
      String local = path + (call.count().isPresent() ? ".count" : ".for_each");
      locals.add(new LocalDecl(local, caller.rewrite(repeat.get()), repeat.get().range()));
      Expansion expansion = expansions.get(path);
      if (expansion == null) {
        pending.add(new PendingCall(path, local, call.count().isPresent(), repeat.get()));
        locals.add(
            new LocalDecl(
                path + ".outputs",
                new Expression.Literal(Value.unknown(), call.range()),
                call.range()));
        continue;
      }
      List<Expression> each = new ArrayList<>();
      List<Expression.ObjectItem> byKey = new ArrayList<>();
      for (Instance i : instances(m, prefix)) {
        module(m, i, caller.forCallInstance(bindings(i, expansion, path, call)), inherited);
        Expression outputs = localRef(i.path() + ".outputs", call.range());
        each.add(outputs);
        byKey.add(
            new Expression.ObjectItem(new Expression.Literal(i.key(), call.range()), outputs));
      }
      locals.add(
          new LocalDecl(
              path + ".outputs",
              call.count().isPresent()
                  ? new Expression.Tuple(each, call.range())
                  : new Expression.ObjectCons(byKey, call.range()),
              call.range()));
    }
  }

  private static String callPath(String prefix, ModuleCallDecl call) {
    return (prefix.isEmpty() ? "" : prefix + ".") + "module." + call.name();
  }

  /**
   * The instances of {@code m} called from the module instance {@code prefix}: one without a key
   * when it is not repeated, none while its keys are not known.
   */
  private List<Instance> instances(ModuleTree.Module m, String prefix) {
    ModuleCallDecl call = m.call();
    String path = callPath(prefix, call);
    if (call.count().isEmpty() && call.forEach().isEmpty()) {
      return List.of(new Instance(path, null));
    }
    Expansion expansion = expansions.get(path);
    if (expansion == null) {
      return List.of();
    }
    return expansion.keys().stream()
        .map(k -> new Instance(path + ModulePaths.segment(k), k))
        .toList();
  }

  /** {@code count.index}, {@code each.key} and {@code each.value} of one instance of a call. */
  private static Map<String, Expression> bindings(
      Instance i, Expansion expansion, String callPath, ModuleCallDecl call) {
    SourceRange r = call.range();
    if (i.key() instanceof Integer index) {
      return Map.of("count.index", Expression.Literal.number(BigDecimal.valueOf(index), r));
    }
    Expression key = new Expression.Literal(i.key(), r);
    Expression value =
        expansion.set() ? key : new Expression.Index(localRef(callPath + ".for_each", r), key, r);
    return Map.of("each.key", key, "each.value", value);
  }

  private static Expression localRef(String name, SourceRange r) {
    return new Expression.ScopeTraversal(
        new Traversal("local", r, List.of(new Traversal.Attr(name, r)), r));
  }

  private void module(
      ModuleTree.Module m, Instance instance, ScopeRewriter caller, List<Traversal> inherited) {
    ModuleCallDecl call = m.call();
    Configuration config = m.config();
    if (++instanceCount > MAX_MODULE_INSTANCES) {
      if (instanceCount == MAX_MODULE_INSTANCES + 1) {
        d.error(
            "Too many module instances",
            "The configuration makes more than "
                + MAX_MODULE_INSTANCES
                + " module instances (reached at "
                + ModulePaths.external(instance.path())
                + "). Make fewer instances, or split the configuration into several workspaces.",
            call.count().or(call::forEach).map(Expression::range).orElse(call.range()));
      }
      return;
    }
    refuseInModule(config.removed(), "removed", m);
    refuseInModule(config.moved(), "moved", m);
    if (!config.checks().isEmpty()) {
      d.error(
          "Check blocks are not supported in modules yet",
          "Module " + m.path() + " declares check \"" + config.checks().get(0).name() + "\".",
          config.checks().get(0).range());
    }
    if (!config.dataSources().isEmpty()) {
      d.error(
          "Data sources are not supported in modules",
          "Module "
              + m.path()
              + " declares data \""
              + config.dataSources().get(0).type()
              + "\"; read it in the root module and pass the value in as an input variable.",
          config.dataSources().get(0).range());
    }
    String path = instance.path();
    ScopeRewriter scope =
        new ScopeRewriter(path, m.dir(), config, resourcesOf(m.children(), path), d);
    for (VariableDecl v : config.variables().values()) {
      AttributeDecl input = call.inputs().get(v.name());
      Expression given = input == null ? null : caller.rewrite(input.expr());
      locals.add(
          new LocalDecl(
              scope.name("var.", v.name()),
              given == null ? new Expression.Literal(null, call.range()) : given,
              input == null ? call.range() : input.range(),
              v,
              given != null));
    }
    for (LocalDecl l : config.locals()) {
      locals.add(new LocalDecl(scope.name("local.", l.name()), scope.rewrite(l.expr()), l.range()));
    }
    List<Traversal> dependsOn = new ArrayList<>(inherited);
    dependsOn.addAll(caller.traversals(call.dependsOn()));
    for (ResourceDecl r : config.resources()) {
      resources.add(resource(r, scope, dependsOn, path + "."));
    }
    List<Expression.ObjectItem> items = new ArrayList<>();
    for (OutputDecl o : config.outputs()) {
      if (!o.preconditions().isEmpty() || !o.dependsOn().isEmpty()) {
        d.error(
            "Output conditions are not supported in modules yet",
            "Output \"" + o.name() + "\" of " + m.path() + " has depends_on or a precondition.",
            o.range());
      }
      Expression value = scope.rewrite(o.value());
      if (o.sensitive()) {
        value =
            new Expression.FunctionCall(
                "sensitive", List.of(value), false, o.value().range(), o.value().range());
      }
      items.add(new Expression.ObjectItem(new Expression.Literal(o.name(), o.range()), value));
    }
    locals.add(
        new LocalDecl(
            path + ".outputs", new Expression.ObjectCons(items, call.range()), call.range()));
    calls(m.children(), scope, path, dependsOn);
  }

  /**
   * For each module call of the module instance {@code prefix}, the resources of all its instances
   * and of the modules they call, as {@code depends_on} entries of the flattened configuration.
   */
  private Map<String, List<Traversal>> resourcesOf(List<ModuleTree.Module> calls, String prefix) {
    Map<String, List<Traversal>> out = new LinkedHashMap<>();
    for (ModuleTree.Module m : calls) {
      List<Traversal> all = new ArrayList<>();
      for (Instance i : instances(m, prefix)) {
        collect(m, i.path(), all);
      }
      out.put(m.call().name(), all);
    }
    return out;
  }

  private void collect(ModuleTree.Module m, String path, List<Traversal> out) {
    for (ResourceDecl r : m.config().resources()) {
      out.add(
          new Traversal(
              r.type(),
              m.call().range(),
              List.of(new Traversal.Attr(path + "." + r.name(), m.call().range())),
              m.call().range()));
    }
    for (ModuleTree.Module c : m.children()) {
      for (Instance i : instances(c, path)) {
        collect(c, i.path(), out);
      }
    }
  }

  private void refuseInModule(List<BlockDecl> blocks, String type, ModuleTree.Module m) {
    if (!blocks.isEmpty()) {
      d.error(
          "Unsupported block in a module",
          "Module "
              + m.path()
              + " has a "
              + type
              + " block; Stagecraft reads "
              + type
              + " blocks in the root module only for now.",
          blocks.get(0).range());
    }
  }

  private ResourceDecl resource(
      ResourceDecl r, ScopeRewriter scope, List<Traversal> inherited, String namePrefix) {
    List<Traversal> dependsOn = new ArrayList<>(scope.traversals(r.dependsOn()));
    dependsOn.addAll(inherited);
    return new ResourceDecl(
        r.type(),
        namePrefix + r.name(),
        scope.attributes(r.attributes()),
        dependsOn,
        scope.rewrite(r.count()),
        scope.rewrite(r.forEach()),
        r.provisioners().stream()
            .map(
                p ->
                    new ProvisionerDecl(
                        p.type(),
                        scope.attributes(p.attributes()),
                        p.connection().map(scope::block),
                        p.when(),
                        p.onFailure(),
                        p.range()))
            .toList(),
        r.connection().map(scope::block),
        r.lifecycle().map(scope::block),
        r.range());
  }
}
