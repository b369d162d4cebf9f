package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.TemplatePart;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Rewrites the references of one module's expressions into the names its declarations have once
 * every module is flattened into one configuration ({@link ModuleFlattener}): in module {@code
 * module.app}, {@code var.x} is the local value {@code module.app.var.x}, {@code local.y} is {@code
 * module.app.local.y}, {@code null_resource.z} is the resource {@code null_resource} named {@code
 * module.app.z}, {@code module.db.out} reads the local value {@code module.app.module.db.outputs},
 * and {@code path.module} is the module's directory. Names bound by {@code for} expressions and
 * template directives are left alone. A reference to something the module does not declare is an
 * error here, with the module named, so it can never resolve to a declaration of another module.
 */
final class ScopeRewriter {
  private final String prefix;
  private final String dir;
  private final Configuration module;
  private final Diagnostics d;
  private final Set<String> resources = new HashSet<>();
  private final Map<String, List<Traversal>> moduleResources;
  private final Map<String, Expression> callInstance;

  /**
   * @param prefix {@code module.app} ({@code ""}: the root module, where only {@code module.*}
   *     references change)
   */
  ScopeRewriter(
      String prefix,
      String dir,
      Configuration module,
      Map<String, List<Traversal>> moduleResources,
      Diagnostics d) {
    this(prefix, dir, module, moduleResources, Map.of(), d);
  }

  private ScopeRewriter(
      String prefix,
      String dir,
      Configuration module,
      Map<String, List<Traversal>> moduleResources,
      Map<String, Expression> callInstance,
      Diagnostics d) {
    this.callInstance = callInstance;
    this.moduleResources = moduleResources;
    this.prefix = prefix;
    this.dir = dir;
    this.module = module;
    this.d = d;
    module.resources().forEach(r -> resources.add(r.address()));
  }

  /**
   * This scope for the arguments of one instance of a repeated module call: {@code count.index},
   * {@code each.key} and {@code each.value} are the expressions given, by those names.
   */
  ScopeRewriter forCallInstance(Map<String, Expression> bindings) {
    return new ScopeRewriter(prefix, dir, module, moduleResources, bindings, d);
  }

  private boolean root() {
    return prefix.isEmpty();
  }

  private String where() {
    return root() ? "the root module" : prefix;
  }

  /** The name of something of this module in the flattened configuration. */
  String name(String kind, String name) {
    return (root() ? "" : prefix + ".") + kind + name;
  }

  Expression rewrite(Expression e) {
    return e == null ? null : expr(e, Set.of());
  }

  Optional<Expression> rewrite(Optional<Expression> e) {
    return e.map(this::rewrite);
  }

  /**
   * {@code depends_on} entries; a whole module ({@code module.app}) is every resource in it and in
   * the modules it calls.
   */
  List<Traversal> traversals(List<Traversal> ts) {
    List<Traversal> out = new ArrayList<>();
    for (Traversal t : ts) {
      if (t.root().equals("module") && t.steps().size() == 1 && t.firstAttribute().isPresent()) {
        String call = t.firstAttribute().get();
        if (!moduleResources.containsKey(call)) {
          d.error(
              "Reference to undeclared module",
              "No module call named \"" + call + "\" is declared in " + where() + ".",
              t.range());
        }
        out.addAll(moduleResources.getOrDefault(call, List.of()));
        continue;
      }
      Expression e = traversal(t, Set.of());
      if (e instanceof Expression.ScopeTraversal st) {
        out.add(st.traversal());
      }
    }
    return out;
  }

  AttributeDecl attribute(AttributeDecl a) {
    return new AttributeDecl(a.name(), rewrite(a.expr()), a.range());
  }

  Map<String, AttributeDecl> attributes(Map<String, AttributeDecl> attributes) {
    Map<String, AttributeDecl> out = new LinkedHashMap<>();
    attributes.forEach((k, v) -> out.put(k, attribute(v)));
    return out;
  }

  /** A raw block's expressions; {@code ignore_changes} names attributes and stays as written. */
  BlockDecl block(BlockDecl b) {
    Map<String, AttributeDecl> attributes = new LinkedHashMap<>();
    b.attributes()
        .forEach(
            (k, v) ->
                attributes.put(
                    k,
                    b.type().equals("lifecycle") && k.equals("ignore_changes") ? v : attribute(v)));
    return new BlockDecl(
        b.type(), b.labels(), attributes, b.blocks().stream().map(this::block).toList(), b.range());
  }

  private Expression expr(Expression e, Set<String> bound) {
    return switch (e) {
      case Expression.Literal l -> l;
      case Expression.ScopeTraversal st -> traversal(st.traversal(), bound);
      case Expression.Template t ->
          new Expression.Template(parts(t.parts(), bound), t.heredoc(), t.range());
      case Expression.RelativeTraversal r ->
          new Expression.RelativeTraversal(expr(r.source(), bound), r.steps(), r.range());
      case Expression.Index i ->
          new Expression.Index(expr(i.collection(), bound), expr(i.key(), bound), i.range());
      case Expression.Splat s ->
          new Expression.Splat(expr(s.source(), bound), s.each(), s.attributeSplat(), s.range());
      case Expression.FunctionCall f ->
          new Expression.FunctionCall(
              f.name(),
              f.args().stream().map(a -> expr(a, bound)).toList(),
              f.expandFinal(),
              f.nameRange(),
              f.range());
      case Expression.Tuple t ->
          new Expression.Tuple(t.elements().stream().map(x -> expr(x, bound)).toList(), t.range());
      case Expression.ObjectCons o ->
          new Expression.ObjectCons(
              o.items().stream()
                  .map(
                      i ->
                          new Expression.ObjectItem(
                              objectKey(i.key(), bound), expr(i.value(), bound)))
                  .toList(),
              o.range());
      case Expression.Unary u -> new Expression.Unary(u.op(), expr(u.operand(), bound), u.range());
      case Expression.Binary b ->
          new Expression.Binary(b.op(), expr(b.left(), bound), expr(b.right(), bound), b.range());
      case Expression.Conditional c ->
          new Expression.Conditional(
              expr(c.condition(), bound),
              expr(c.trueResult(), bound),
              expr(c.falseResult(), bound),
              c.range());
      case Expression.Parens p -> new Expression.Parens(expr(p.inner(), bound), p.range());
      case Expression.ForExpr f -> {
        Set<String> inner = with(bound, f.keyVar(), f.valueVar());
        yield new Expression.ForExpr(
            f.keyVar(),
            f.valueVar(),
            expr(f.collection(), bound),
            f.keyExpr() == null ? null : expr(f.keyExpr(), inner),
            expr(f.valueExpr(), inner),
            f.condition() == null ? null : expr(f.condition(), inner),
            f.grouping(),
            f.range());
      }
    };
  }

  /** An object key written as a bare name ({@code { name = 1 }}) is the name, not a reference. */
  private Expression objectKey(Expression key, Set<String> bound) {
    if (key instanceof Expression.ScopeTraversal st && st.traversal().steps().isEmpty()) {
      return key;
    }
    return expr(key, bound);
  }

  private List<TemplatePart> parts(List<TemplatePart> parts, Set<String> bound) {
    List<TemplatePart> out = new ArrayList<>();
    for (TemplatePart p : parts) {
      out.add(
          switch (p) {
            case TemplatePart.Literal l -> l;
            case TemplatePart.Interpolation i ->
                new TemplatePart.Interpolation(expr(i.expr(), bound), i.range());
            case TemplatePart.If i ->
                new TemplatePart.If(
                    expr(i.condition(), bound),
                    parts(i.thenParts(), bound),
                    parts(i.elseParts(), bound),
                    i.range());
            case TemplatePart.For f ->
                new TemplatePart.For(
                    f.keyVar(),
                    f.valueVar(),
                    expr(f.collection(), bound),
                    parts(f.body(), with(bound, f.keyVar(), f.valueVar())),
                    f.range());
          });
    }
    return out;
  }

  private static Set<String> with(Set<String> bound, String a, String b) {
    Set<String> out = new HashSet<>(bound);
    if (a != null) {
      out.add(a);
    }
    if (b != null) {
      out.add(b);
    }
    return out;
  }

  private Expression traversal(Traversal t, Set<String> bound) {
    String rootName = t.root();
    Optional<String> first = t.firstAttribute();
    if (bound.contains(rootName) || first.isEmpty()) {
      return new Expression.ScopeTraversal(t);
    }
    String name = first.get();
    Expression bound0 = callInstance.get(rootName + "." + name);
    if (bound0 != null) {
      List<Traversal.Step> rest = t.steps().subList(1, t.steps().size());
      return rest.isEmpty() ? bound0 : new Expression.RelativeTraversal(bound0, rest, t.range());
    }
    switch (rootName) {
      case "module" -> {
        if (module.modules().stream().noneMatch(c -> c.name().equals(name))) {
          d.error(
              "Reference to undeclared module",
              "No module call named \"" + name + "\" is declared in " + where() + ".",
              t.range());
        }
        return local(t, name("module.", name) + ".outputs");
      }
      case "var" -> {
        return variable(t, name);
      }
      case "local" -> {
        return root() ? new Expression.ScopeTraversal(t) : local(t, name("local.", name));
      }
      case "path" -> {
        if (!root() && name.equals("module") && t.steps().size() == 1) {
          return new Expression.Literal(dir, t.range());
        }
        return new Expression.ScopeTraversal(t);
      }
      case "data" -> {
        if (!root()) {
          d.error(
              "Data sources are not supported in modules",
              "A module may not read data sources ("
                  + t
                  + "); read it in the root module and pass"
                  + " the value in as an input variable.",
              t.range());
        }
        return new Expression.ScopeTraversal(t);
      }
      default -> {
        return resource(t, rootName, name);
      }
    }
  }

  /** {@code var.NAME}: in a module, the local value holding the module's input variable. */
  private Expression variable(Traversal t, String name) {
    if (root()) {
      return new Expression.ScopeTraversal(t);
    }
    if (!module.variables().containsKey(name)) {
      d.error(
          "Reference to undeclared input variable",
          "An input variable with the name \""
              + name
              + "\" has not been declared in "
              + prefix
              + ". Declare it with variable \""
              + name
              + "\" {} in the module.",
          t.range());
    }
    return local(t, name("var.", name));
  }

  /** {@code TYPE.NAME}: in a module, the resource under its module-prefixed name. */
  private Expression resource(Traversal t, String rootName, String name) {
    if (root() || Traversal.SPECIAL_ROOTS.contains(rootName)) {
      return new Expression.ScopeTraversal(t);
    }
    if (!resources.contains(rootName + "." + name)) {
      d.error(
          "Reference to undeclared resource",
          "A managed resource \""
              + rootName
              + "\" \""
              + name
              + "\" has not been declared in "
              + prefix
              + ".",
          t.range());
    }
    List<Traversal.Step> steps = new ArrayList<>(t.steps());
    Traversal.Attr attr = (Traversal.Attr) steps.get(0);
    steps.set(0, new Traversal.Attr(prefix + "." + name, attr.range()));
    return new Expression.ScopeTraversal(new Traversal(rootName, t.rootRange(), steps, t.range()));
  }

  /** {@code local.NAME} followed by the steps of {@code t} after its first attribute. */
  private static Expression local(Traversal t, String localName) {
    List<Traversal.Step> steps = new ArrayList<>(t.steps());
    Traversal.Attr attr = (Traversal.Attr) steps.get(0);
    steps.set(0, new Traversal.Attr(localName, attr.range()));
    return new Expression.ScopeTraversal(new Traversal("local", t.rootRange(), steps, t.range()));
  }
}
