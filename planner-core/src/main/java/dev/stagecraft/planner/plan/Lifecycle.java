package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.Literals;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A resource's {@code lifecycle} block, read without evaluating anything: lifecycle settings shape
 * the graph before any expression can be evaluated, so they take literal values only (seed 001).
 * The language module keeps the block raw; this is where it gets its meaning.
 *
 * @param createBeforeDestroy the configured value, or null when absent
 * @param preventDestroyRange where {@code prevent_destroy = true} is written (null when absent or
 *     false)
 * @param ignoreChanges attribute paths: an attribute name followed by map keys (String) or list
 *     indexes (Integer)
 * @param destroy {@code destroy = false|true} as configured, or null when absent
 */
public record Lifecycle(
    Boolean createBeforeDestroy,
    SourceRange createBeforeDestroyRange,
    SourceRange preventDestroyRange,
    boolean ignoreAll,
    List<List<Object>> ignoreChanges,
    List<Trigger> replaceTriggeredBy,
    boolean enabled,
    Boolean destroy,
    List<Condition> preconditions,
    List<Condition> postconditions) {

  /** Arguments of a resource block that are not the resource type's own. */
  static final Set<String> META_ARGUMENTS =
      Set.of(
          "count",
          "for_each",
          "depends_on",
          "lifecycle",
          "provisioner",
          "connection",
          "provider",
          "create_before_destroy",
          "prevent_destroy",
          "ignore_changes",
          "replace_triggered_by",
          "enabled",
          "destroy");

  static final Lifecycle DEFAULT =
      new Lifecycle(
          null, null, null, false, List.of(), List.of(), true, null, List.of(), List.of());

  /**
   * A {@code replace_triggered_by} reference: a resource, one of its instances ({@code key}: a
   * literal or {@code count.index} / {@code each.key}) or an attribute of an instance.
   */
  public record Trigger(
      String resourceAddress, Expression key, List<Object> attributePath, SourceRange range) {}

  /** A {@code precondition} or {@code postcondition} block. */
  public record Condition(Expression condition, Expression errorMessage, SourceRange range) {}

  public boolean preventDestroy() {
    return preventDestroyRange != null;
  }

  public boolean createBeforeDestroyConfigured() {
    return Boolean.TRUE.equals(createBeforeDestroy);
  }

  /** {@code destroy = false}: instances that would be destroyed are forgotten instead. */
  public boolean skipDestroy() {
    return Boolean.FALSE.equals(destroy);
  }

  static Lifecycle parse(Optional<BlockDecl> block, ResourceKind kind, Diagnostics diagnostics) {
    if (block.isEmpty()) {
      return DEFAULT;
    }
    BlockDecl b = block.get();
    Boolean cbd = bool(b, "create_before_destroy", diagnostics);
    Boolean prevent = bool(b, "prevent_destroy", diagnostics);
    Boolean enabled = bool(b, "enabled", diagnostics);
    Boolean destroy = bool(b, "destroy", diagnostics);
    boolean ignoreAll = false;
    List<List<Object>> ignore = new ArrayList<>();
    Optional<AttributeDecl> ic = b.attribute("ignore_changes");
    if (ic.isPresent()) {
      Expression e = ic.get().expr();
      if (isKeyword(e, "all") || "all".equals(Literals.string(e).orElse(null))) {
        ignoreAll = true;
      } else if (e instanceof Expression.Tuple t) {
        for (Expression element : t.elements()) {
          List<Object> path = ignorePath(element, kind, diagnostics);
          if (path != null) {
            ignore.add(path);
          }
        }
      } else {
        diagnostics.error(
            "Invalid ignore_changes",
            "ignore_changes must be a list of attribute names (such as [tags, tags[\"Name\"]])"
                + " or the keyword all; expressions are not allowed in lifecycle blocks.",
            e.range());
      }
    }
    List<Trigger> triggers = new ArrayList<>();
    Optional<AttributeDecl> rtb = b.attribute("replace_triggered_by");
    if (rtb.isPresent()) {
      if (rtb.get().expr() instanceof Expression.Tuple t) {
        for (Expression element : t.elements()) {
          Trigger trigger = trigger(element, diagnostics);
          if (trigger != null) {
            triggers.add(trigger);
          }
        }
      } else {
        diagnostics.error(
            "Invalid replace_triggered_by",
            "replace_triggered_by must be a list of references to managed resources, their"
                + " instances or attributes, such as [stateful_provisioning.db.id].",
            rtb.get().expr().range());
      }
    }
    return new Lifecycle(
        cbd,
        b.attribute("create_before_destroy").map(AttributeDecl::range).orElse(null),
        Boolean.TRUE.equals(prevent) ? b.attribute("prevent_destroy").orElseThrow().range() : null,
        ignoreAll,
        ignore,
        triggers,
        enabled == null || enabled,
        destroy,
        conditions(b, "precondition", diagnostics),
        conditions(b, "postcondition", diagnostics));
  }

  /** A literal bool argument; an expression is an error naming its position. */
  static Boolean bool(BlockDecl b, String name, Diagnostics diagnostics) {
    Optional<AttributeDecl> a = b.attribute(name);
    if (a.isEmpty()) {
      return null;
    }
    Optional<Boolean> value = Literals.bool(a.get().expr());
    if (value.isEmpty()) {
      diagnostics.error(
          "Invalid lifecycle argument",
          "The lifecycle argument \""
              + name
              + "\" must be a literal true or false. Lifecycle settings are read before any"
              + " expression is evaluated, so variables, references and function calls cannot be"
              + " used here.",
          a.get().expr().range());
      return null;
    }
    return value.get();
  }

  private static boolean isKeyword(Expression e, String word) {
    return e instanceof Expression.ScopeTraversal st
        && st.traversal().root().equals(word)
        && st.traversal().steps().isEmpty();
  }

  private static List<Object> ignorePath(Expression e, ResourceKind kind, Diagnostics diagnostics) {
    List<Object> path = new ArrayList<>();
    if (e instanceof Expression.ScopeTraversal st) {
      Traversal t = st.traversal();
      path.add(t.root());
      for (Traversal.Step step : t.steps()) {
        switch (step) {
          case Traversal.Attr a -> path.add(a.name());
          case Traversal.Key k when k.key() instanceof BigDecimal n -> path.add(n.intValue());
          case Traversal.Key k -> path.add(String.valueOf(k.key()));
        }
      }
    } else if (Literals.string(e).isPresent()) {
      path.add(Literals.string(e).get());
      diagnostics.warning(
          ConfigLoader.QUOTED_REFERENCE, ConfigLoader.QUOTED_REFERENCE_DETAIL, e.range());
    } else {
      diagnostics.error(
          "Invalid ignore_changes",
          "Each ignore_changes element must be an attribute path such as tags, tags[\"Name\"] or"
              + " list[0]; expressions are not allowed in lifecycle blocks.",
          e.range());
      return null;
    }
    String attribute = (String) path.get(0);
    if (META_ARGUMENTS.contains(attribute)) {
      diagnostics.error(
          "Invalid ignore_changes",
          "ignore_changes cannot name the meta-argument \""
              + attribute
              + "\": it can only name attributes of the resource type ("
              + String.join(", ", kind.arguments())
              + ").",
          e.range());
      return null;
    }
    if (!kind.arguments().contains(attribute)) {
      diagnostics.error(
          "Unsupported attribute in ignore_changes",
          "A "
              + kind.type()
              + " has no argument \""
              + attribute
              + "\"; only attributes defined by the resource type can be ignored ("
              + String.join(", ", kind.arguments())
              + ").",
          e.range());
      return null;
    }
    return path;
  }

  private static Trigger trigger(Expression e, Diagnostics diagnostics) {
    Expression key = null;
    List<Object> attributes = new ArrayList<>();
    Traversal base = null;
    Expression inner = e;
    if (inner instanceof Expression.RelativeTraversal rt) {
      for (Traversal.Step step : rt.steps()) {
        attributes.add(stepKey(step));
      }
      inner = rt.source();
    }
    if (inner instanceof Expression.Index ix
        && ix.collection() instanceof Expression.ScopeTraversal st
        && st.traversal().steps().size() == 1) {
      base = st.traversal();
      key = ix.key();
      if (!isInstanceKeyReference(key)) {
        diagnostics.error(
            "Invalid replace_triggered_by expression",
            "An instance key in replace_triggered_by must be a literal, count.index or each.key.",
            key.range());
        return null;
      }
    } else if (inner instanceof Expression.ScopeTraversal st && attributes.isEmpty()) {
      Traversal t = st.traversal();
      base = t;
      List<Traversal.Step> steps = t.steps();
      int i = 1;
      if (steps.size() > 1 && steps.get(1) instanceof Traversal.Key k) {
        key =
            new Expression.Literal(
                k.key() instanceof BigDecimal n ? (Object) n : String.valueOf(k.key()), k.range());
        i = 2;
      }
      for (; i < steps.size(); i++) {
        attributes.add(stepKey(steps.get(i)));
      }
    }
    if (base == null || !base.isResourceReference()) {
      diagnostics.error(
          "Invalid replace_triggered_by expression",
          "replace_triggered_by may only reference managed resources, their instances or"
              + " attributes (such as stateful_provisioning.db, stateful_provisioning.db[0] or"
              + " stateful_provisioning.db.id); use a terraform_data resource to trigger on other"
              + " values.",
          e.range());
      return null;
    }
    return new Trigger(base.resourceAddress().orElseThrow(), key, attributes, e.range());
  }

  private static Object stepKey(Traversal.Step step) {
    return switch (step) {
      case Traversal.Attr a -> a.name();
      case Traversal.Key k when k.key() instanceof BigDecimal n -> n.intValue();
      case Traversal.Key k -> String.valueOf(k.key());
    };
  }

  private static boolean isInstanceKeyReference(Expression key) {
    if (key instanceof Expression.Literal) {
      return true;
    }
    if (key instanceof Expression.Template t && t.isLiteral()) {
      return true;
    }
    if (key instanceof Expression.ScopeTraversal st) {
      String ref = st.traversal().toString();
      return ref.equals("count.index") || ref.equals("each.key");
    }
    return false;
  }

  /** One {@code precondition} block (already checked by the language module) as a condition. */
  static List<Condition> conditionsOf(BlockDecl block) {
    Optional<AttributeDecl> condition = block.attribute("condition");
    Optional<AttributeDecl> message = block.attribute("error_message");
    if (condition.isEmpty() || message.isEmpty()) {
      return List.of();
    }
    return List.of(new Condition(condition.get().expr(), message.get().expr(), block.range()));
  }

  static List<Condition> conditions(BlockDecl b, String type, Diagnostics diagnostics) {
    List<Condition> out = new ArrayList<>();
    for (BlockDecl c : b.blocks(type)) {
      Optional<AttributeDecl> condition = c.attribute("condition");
      Optional<AttributeDecl> message = c.attribute("error_message");
      if (condition.isEmpty() || message.isEmpty()) {
        diagnostics.error(
            "Missing required argument",
            "A " + type + " block needs both a condition and an error_message argument.",
            c.range());
        continue;
      }
      out.add(new Condition(condition.get().expr(), message.get().expr(), c.range()));
    }
    return out;
  }
}
