package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A configuration and the modules it calls as one configuration (docs/adr/0065): every module's
 * resources, local values, input variables and outputs get names that carry their module path
 * ({@link ScopeRewriter}), so the planner plans them as it plans a root module, with one graph and
 * one evaluation scope, and no declaration of one module can be read by another.
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
 * <p>Module calls with {@code count} or {@code for_each}, and {@code removed}, {@code moved},
 * {@code check} and {@code data} blocks inside modules, are refused for now.
 */
public final class ModuleFlattener {
  private final Diagnostics d;
  private final List<ResourceDecl> resources = new ArrayList<>();
  private final List<LocalDecl> locals = new ArrayList<>();

  private ModuleFlattener(Diagnostics d) {
    this.d = d;
  }

  /** {@code root} with {@code modules} (its calls, loaded) flattened into it. */
  public static Configuration flatten(
      Configuration root, List<ModuleTree.Module> modules, Diagnostics d) {
    if (root.modules().isEmpty()) {
      return root;
    }
    ModuleFlattener f = new ModuleFlattener(d);
    ScopeRewriter rootScope = new ScopeRewriter("", ".", root, resourcesOf(modules), d);
    for (ResourceDecl r : root.resources()) {
      f.resources.add(f.resource(r, rootScope, List.of(), ""));
    }
    for (LocalDecl l : root.locals()) {
      f.locals.add(new LocalDecl(l.name(), rootScope.rewrite(l.expr()), l.range()));
    }
    for (ModuleTree.Module m : modules) {
      f.module(m, rootScope, List.of());
    }
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
    return new Configuration(
        root.variables(),
        f.resources,
        f.locals,
        outputs,
        root.removed(),
        root.moved(),
        root.requiredVersion(),
        checks,
        root.dataSources(),
        List.of());
  }

  private void module(ModuleTree.Module m, ScopeRewriter caller, List<Traversal> inherited) {
    ModuleCallDecl call = m.call();
    Configuration config = m.config();
    if (call.count().isPresent() || call.forEach().isPresent()) {
      d.error(
          "Repeated modules are not supported yet",
          "Module \""
              + call.name()
              + "\" sets "
              + (call.count().isPresent() ? "count" : "for_each")
              + "; Stagecraft plans modules called once only for now (docs/adr/0065). Call the"
              + " module once per instance, or repeat the resources inside the module.",
          call.count().or(call::forEach).orElseThrow().range());
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
    ScopeRewriter scope =
        new ScopeRewriter(m.path(), m.dir(), config, resourcesOf(m.children()), d);
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
      resources.add(resource(r, scope, dependsOn, m.path() + "."));
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
            m.path() + ".outputs", new Expression.ObjectCons(items, call.range()), call.range()));
    for (ModuleTree.Module child : m.children()) {
      module(child, scope, dependsOn);
    }
  }

  /**
   * For each module call, the resources of the module and of the modules it calls, as {@code
   * depends_on} entries of the flattened configuration.
   */
  private static Map<String, List<Traversal>> resourcesOf(List<ModuleTree.Module> calls) {
    Map<String, List<Traversal>> out = new LinkedHashMap<>();
    for (ModuleTree.Module m : calls) {
      List<Traversal> all = new ArrayList<>();
      collect(m, all);
      out.put(m.call().name(), all);
    }
    return out;
  }

  private static void collect(ModuleTree.Module m, List<Traversal> out) {
    for (ResourceDecl r : m.config().resources()) {
      out.add(
          new Traversal(
              r.type(),
              m.call().range(),
              List.of(new Traversal.Attr(m.path() + "." + r.name(), m.call().range())),
              m.call().range()));
    }
    m.children().forEach(c -> collect(c, out));
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
