package dev.stagecraft.language.syntax;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Collects the references of an expression (see {@link Expression#traversals()}). */
public final class References {
  private References() {}

  public static List<Traversal> of(Expression e) {
    List<Traversal> out = new ArrayList<>();
    walk(e, Set.of(), out);
    return List.copyOf(out);
  }

  private static Set<String> with(Set<String> bound, String... names) {
    Set<String> s = new HashSet<>(bound);
    for (String n : names) {
      if (n != null) {
        s.add(n);
      }
    }
    return s;
  }

  private static void walk(Expression e, Set<String> bound, List<Traversal> out) {
    if (e == null) {
      return;
    }
    switch (e) {
      case Expression.Literal l -> {}
      case Expression.Template t -> walkParts(t.parts(), bound, out);
      case Expression.ScopeTraversal st -> {
        if (!bound.contains(st.traversal().root())) {
          out.add(st.traversal());
        }
      }
      case Expression.RelativeTraversal rt -> walk(rt.source(), bound, out);
      case Expression.Index ix -> {
        walk(ix.collection(), bound, out);
        walk(ix.key(), bound, out);
      }
      case Expression.Splat sp -> walk(sp.source(), bound, out);
      case Expression.FunctionCall fc -> fc.args().forEach(a -> walk(a, bound, out));
      case Expression.Tuple tu -> tu.elements().forEach(a -> walk(a, bound, out));
      case Expression.ObjectCons oc ->
          oc.items()
              .forEach(
                  i -> {
                    walk(i.key(), bound, out);
                    walk(i.value(), bound, out);
                  });
      case Expression.Unary u -> walk(u.operand(), bound, out);
      case Expression.Binary b -> {
        walk(b.left(), bound, out);
        walk(b.right(), bound, out);
      }
      case Expression.Conditional c -> {
        walk(c.condition(), bound, out);
        walk(c.trueResult(), bound, out);
        walk(c.falseResult(), bound, out);
      }
      case Expression.Parens p -> walk(p.inner(), bound, out);
      case Expression.ForExpr f -> {
        walk(f.collection(), bound, out);
        Set<String> inner = with(bound, f.keyVar(), f.valueVar());
        walk(f.keyExpr(), inner, out);
        walk(f.valueExpr(), inner, out);
        walk(f.condition(), inner, out);
      }
    }
  }

  private static void walkParts(List<TemplatePart> parts, Set<String> bound, List<Traversal> out) {
    for (TemplatePart p : parts) {
      switch (p) {
        case TemplatePart.Literal l -> {}
        case TemplatePart.Interpolation i -> walk(i.expr(), bound, out);
        case TemplatePart.If i -> {
          walk(i.condition(), bound, out);
          walkParts(i.thenParts(), bound, out);
          walkParts(i.elseParts(), bound, out);
        }
        case TemplatePart.For f -> {
          walk(f.collection(), bound, out);
          walkParts(f.body(), with(bound, f.keyVar(), f.valueVar()), out);
        }
      }
    }
  }
}
