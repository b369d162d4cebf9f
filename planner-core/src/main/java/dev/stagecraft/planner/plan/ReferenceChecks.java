package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.LocalDecl;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import dev.stagecraft.planner.graph.DependencyGraph;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks every reference of a configuration against what it declares, with Terraform's messages
 * (undeclared variables, locals and resources, {@code count}, {@code each} and {@code self} out of
 * their contexts, self-references, destroy-time provisioners reaching beyond {@code self}), and
 * records each reference between resources and local values as an edge of the dependency graph.
 * Part of {@link ConfigModel#analyze}; the maps are the model's own.
 */
final class ReferenceChecks {
  private final Configuration config;
  private final Map<String, ResourceDecl> resources;
  private final Map<String, ResourceDecl> disabled;
  private final Map<String, Lifecycle> lifecycles;
  private final Map<String, LocalDecl> locals;
  private final DependencyGraph graph;

  ReferenceChecks(
      Configuration config,
      Map<String, ResourceDecl> resources,
      Map<String, ResourceDecl> disabled,
      Map<String, Lifecycle> lifecycles,
      Map<String, LocalDecl> locals,
      DependencyGraph graph) {
    this.config = config;
    this.resources = resources;
    this.disabled = disabled;
    this.lifecycles = lifecycles;
    this.locals = locals;
    this.graph = graph;
  }

  /** Where {@code count}, {@code each} and {@code self} may be used. */
  private record Scope(boolean count, boolean each, boolean self) {
    static final Scope PLAIN = new Scope(false, false, false);
  }

  /** The references of a resource's arguments, provisioners, connections and lifecycle. */
  void checkResource(ResourceDecl r, Diagnostics diagnostics) {
    String from = lifecycles.get(r.address()).enabled() ? r.address() : null;
    boolean counted = r.count().isPresent();
    boolean each = r.forEach().isPresent();
    Scope args = new Scope(counted, each, false);
    Scope withSelf = new Scope(counted, each, true);
    r.count().ifPresent(e -> check(from, e, Scope.PLAIN, diagnostics));
    r.forEach().ifPresent(e -> check(from, e, Scope.PLAIN, diagnostics));
    r.attributes().values().forEach(a -> check(from, a.expr(), args, diagnostics));
    for (ProvisionerDecl p : r.provisioners()) {
      if (p.runsAtDestroy()) {
        continue;
      }
      p.attributes().values().forEach(a -> check(from, a.expr(), withSelf, diagnostics));
      p.connection()
          .ifPresent(
              c ->
                  c.attributes()
                      .values()
                      .forEach(a -> check(from, a.expr(), withSelf, diagnostics)));
    }
    boolean connectionUsedAtCreate =
        r.provisioners().stream().anyMatch(p -> !p.runsAtDestroy() && p.connection().isEmpty());
    if (connectionUsedAtCreate) {
      r.connection()
          .ifPresent(
              c ->
                  c.attributes()
                      .values()
                      .forEach(a -> check(from, a.expr(), withSelf, diagnostics)));
    }
    checkDestroyTime(
        r.provisioners().stream().filter(ProvisionerDecl::runsAtDestroy).toList(),
        r.connection(),
        diagnostics);
    for (Traversal t : r.dependsOn()) {
      if (!t.isResourceReference() && !t.root().equals("var") && !t.root().equals("local")) {
        diagnostics.error(
            "Invalid depends_on reference",
            "depends_on may only list resources, such as stateful_provisioning.name.",
            t.range());
        continue;
      }
      checkReference(from, t, args, diagnostics);
    }
    Lifecycle lifecycle = lifecycles.get(r.address());
    for (Lifecycle.Condition c : lifecycle.preconditions()) {
      check(from, c.condition(), args, diagnostics);
      check(from, c.errorMessage(), args, diagnostics);
    }
    for (Lifecycle.Condition c : lifecycle.postconditions()) {
      check(from, c.condition(), withSelf, diagnostics);
      check(from, c.errorMessage(), withSelf, diagnostics);
    }
    for (Lifecycle.Trigger t : lifecycle.replaceTriggeredBy()) {
      if (t.key() != null) {
        check(null, t.key(), args, diagnostics);
      }
      if (t.resourceAddress().equals(r.address())) {
        diagnostics.error(
            "Self-referential block",
            "replace_triggered_by of " + r.address() + " may not refer to the resource itself.",
            t.range());
      } else if (resources.containsKey(t.resourceAddress())) {
        if (from != null) {
          graph.addEdge(from, t.resourceAddress());
        }
      } else if (!disabled.containsKey(t.resourceAddress())) {
        diagnostics.error(
            "Reference to undeclared resource",
            "replace_triggered_by refers to "
                + t.resourceAddress()
                + ", which is not declared in the root module.",
            t.range());
      }
    }
  }

  /**
   * Destroy-time provisioners run when the rest of the configuration may be gone: they and their
   * connections may reference only {@code self}, {@code count.index} and {@code each.key} — and, as
   * Terraform allows, {@code path.*} and {@code terraform.*}, which do not depend on it.
   */
  static void checkDestroyTime(
      List<ProvisionerDecl> provisioners,
      Optional<BlockDecl> resourceConnection,
      Diagnostics diagnostics) {
    List<Expression> expressions = new ArrayList<>();
    for (ProvisionerDecl p : provisioners) {
      p.attributes().values().forEach(a -> expressions.add(a.expr()));
      Optional<BlockDecl> connection = p.connection().or(() -> resourceConnection);
      connection.ifPresent(c -> c.attributes().values().forEach(a -> expressions.add(a.expr())));
    }
    Set<SourceRange> reported = new LinkedHashSet<>();
    for (Expression e : expressions) {
      for (Traversal t : e.traversals()) {
        String ref = t.toString();
        boolean allowed =
            t.root().equals("self")
                || t.root().equals("path")
                || t.root().equals("terraform")
                || ref.equals("count.index")
                || ref.equals("each.key");
        if (!allowed && reported.add(t.range())) {
          diagnostics.error(
              "Invalid reference from destroy provisioner",
              "Destroy-time provisioners and their connection configurations may only reference"
                  + " attributes of the related resource, via 'self', 'count.index', or"
                  + " 'each.key'. References to other resources during the destroy phase can"
                  + " cause dependency cycles and interact poorly with create_before_destroy.",
              t.range());
        }
      }
    }
  }

  /**
   * A reference to a data source: only {@code data.terraform_remote_state.NAME} declared in the
   * configuration (docs/planning.md "Remote state"); an edge from {@code from} to its node.
   */
  private void checkDataReference(String from, Traversal t, Diagnostics diagnostics) {
    List<String> names = new ArrayList<>();
    for (Traversal.Step step : t.steps()) {
      if (names.size() == 2 || !(step instanceof Traversal.Attr a)) {
        break;
      }
      names.add(a.name());
    }
    if (names.size() < 2) {
      diagnostics.error(
          "Invalid data source reference",
          "A reference to a data source needs its type and name, like"
              + " data.terraform_remote_state.NAME.outputs.OUTPUT.",
          t.range());
      return;
    }
    String node = "data." + names.get(0) + "." + names.get(1);
    boolean declared = config.dataSources().stream().anyMatch(d -> d.address().equals(node));
    if (!declared) {
      diagnostics.error(
          "Reference to undeclared data source",
          "A data source \""
              + names.get(0)
              + "\" \""
              + names.get(1)
              + "\" has not been declared in the root module"
              + (names.get(0).equals("terraform_remote_state")
                  ? "; declare it with a data \"terraform_remote_state\" \""
                      + names.get(1)
                      + "\" block."
                  : "; the one supported data source is terraform_remote_state."),
          t.range());
      return;
    }
    if (node.equals(from)) {
      diagnostics.error(
          "Self-referential block",
          "Configuration for " + node + " may not refer to itself.",
          t.range());
      return;
    }
    if (from != null) {
      graph.addEdge(from, node);
    }
  }

  /**
   * The references of an expression outside resources (a local value's, {@code from} its node; an
   * output's, {@code from} null): no count, each or self.
   */
  void checkPlain(String from, Expression e, Diagnostics diagnostics) {
    check(from, e, Scope.PLAIN, diagnostics);
  }

  private void check(String from, Expression e, Scope scope, Diagnostics diagnostics) {
    for (Traversal t : e.traversals()) {
      checkReference(from, t, scope, diagnostics);
    }
  }

  private void checkReference(String from, Traversal t, Scope scope, Diagnostics diagnostics) {
    switch (t.root()) {
      case "var" -> {
        String name = t.firstAttribute().orElse("");
        if (!config.variables().containsKey(name)) {
          diagnostics.error(
              "Reference to undeclared input variable",
              "An input variable with the name \""
                  + name
                  + "\" has not been declared. This variable can be declared with a variable \""
                  + name
                  + "\" {} block.",
              t.range());
        }
      }
      case "local" -> {
        String name = t.firstAttribute().orElse("");
        if (!locals.containsKey(name)) {
          diagnostics.error(
              "Reference to undeclared local value",
              "A local value with the name \"" + name + "\" has not been declared.",
              t.range());
        } else if (from != null) {
          graph.addEdge(from, ConfigModel.LOCAL_PREFIX + name);
        }
      }
      case "count" -> checkCountReference(t, scope, diagnostics);
      case "each" -> checkEachReference(t, scope, diagnostics);
      case "self" -> {
        if (!scope.self()) {
          diagnostics.error(
              "Invalid \"self\" reference",
              "The \"self\" object is available only in provisioner and connection blocks and in"
                  + " postconditions, where it refers to the resource instance itself.",
              t.range());
        }
      }
      case "path", "terraform" -> {}
      case "data" -> checkDataReference(from, t, diagnostics);
      default -> checkResourceReference(from, t, diagnostics);
    }
  }

  private static void checkCountReference(Traversal t, Scope scope, Diagnostics diagnostics) {
    if (!scope.count()) {
      diagnostics.error(
          "Reference to \"count\" in non-counted context",
          "The \"count\" object can only be used in resource blocks, and only when the"
              + " \"count\" argument is set.",
          t.range());
    } else if (!"index".equals(t.firstAttribute().orElse(null))) {
      diagnostics.error(
          "Invalid \"count\" attribute",
          "The \"count\" object has only the attribute \"index\".",
          t.range());
    }
  }

  private static void checkEachReference(Traversal t, Scope scope, Diagnostics diagnostics) {
    String attr = t.firstAttribute().orElse("");
    if (!scope.each()) {
      diagnostics.error(
          "Reference to \"each\" in context without for_each",
          "The \"each\" object can be used only in resource blocks, and only when the"
              + " \"for_each\" argument is set.",
          t.range());
    } else if (!attr.equals("key") && !attr.equals("value")) {
      diagnostics.error(
          "Invalid \"each\" attribute",
          "The \"each\" object has only the attributes \"key\" and \"value\".",
          t.range());
    }
  }

  /** {@code TYPE.NAME}: a declared resource other than {@code from}; adds the graph edge. */
  private void checkResourceReference(String from, Traversal t, Diagnostics diagnostics) {
    if (!t.isResourceReference()) {
      return;
    }
    String target = t.resourceAddress().orElseThrow();
    if (disabled.containsKey(target)) {
      return;
    }
    if (!resources.containsKey(target)) {
      diagnostics.error(
          "Reference to undeclared resource",
          "A managed resource \""
              + t.root()
              + "\" \""
              + t.firstAttribute().orElse("")
              + "\" has not been declared in the root module.",
          t.range());
      return;
    }
    if (target.equals(from)) {
      diagnostics.error(
          "Self-referential block",
          "Configuration for "
              + target
              + " may not refer to itself. Inside provisioner and connection blocks use"
              + " self.ATTRIBUTE instead.",
          t.range());
      return;
    }
    if (from != null) {
      graph.addEdge(from, target);
    }
  }
}
